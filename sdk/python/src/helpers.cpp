#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

#include "bindings.h"

namespace allfives::python {

Config to_config(py::handle h) {
  if (py::isinstance<Config>(h)) return h.cast<Config>();
  return Config::standard(V().to_format(h));
}

Policy to_policy(const std::string& name) {
  Policy p;
  if (!parse_policy(name, p))
    throw py::value_error("unknown policy \"" + name + "\" (random or greedy)");
  return p;
}

py::tuple ints(const int* values, int n) {
  py::tuple out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = values[i];
  return out;
}

py::tuple scores_of(const State& s) {
  std::array<int, kMaxPlayers> v{};
  for (int side = 0; side < num_sides(s.format()); ++side) v[side] = s.score(side);
  return ints(v.data(), num_sides(s.format()));
}

py::tuple line_of(const Line& line) {
  py::tuple out(static_cast<size_t>(line.size()));
  for (int i = 0; i < line.size(); ++i) out[static_cast<size_t>(i)] = V().line_tile(line[i]);
  return out;
}

py::object end_of(const Line& line, End e) {
  if (line.empty()) return py::none();
  return V().line_end(line.end(e));
}

py::tuple plays_of(const PlayList& list) {
  py::tuple out(static_cast<size_t>(list.size()));
  for (int i = 0; i < list.size(); ++i) out[static_cast<size_t>(i)] = V().play(list[i]);
  return out;
}

py::list actions_of(const PlayList& list) {
  py::list out(static_cast<size_t>(list.size()));
  for (int i = 0; i < list.size(); ++i) out[static_cast<size_t>(i)] = action_of(list[i]);
  return out;
}

void apply_or_raise(State& s, Play p, EventList* events) {
  if (const PlayError e = s.apply(p, events); e != PlayError::kNone)
    throw py::value_error("illegal play " + to_string(p) + ": " + std::string(describe(e)));
}

Play play_of_action(int action) {
  if (action < 0 || action >= kNumActions)
    throw py::value_error("an action is 0.." + std::to_string(kNumActions - 1));
  return play_of(action);
}

py::list events_of(const EventList& events) {
  py::list out;
  for (const Event& e : events) out.append(e);
  return out;
}

void check_fits(const Line& line, Play p) {
  if (!line.empty() && !line.fits(p.tile, p.end))
    throw py::value_error("the tile " + to_string(p.tile) + " does not fit the " +
                          std::string(to_string(p.end)) + " end");
}

int checked_count_after(const Line& line, Play p) {
  check_fits(line, p);
  return allfives::count_after(line, p);
}

// An observation as array.array("h"): a slice of an all-zero template (one allocation, no
// argument parsing), filled through the buffer protocol; numpy.frombuffer reads it as it is.
py::object to_array(const Features& o) {
  static const py::object* blank = new py::object(
      py::module_::import("array").attr("array")("h", py::bytes(std::string(sizeof o, '\0'))));
  py::object out = py::reinterpret_steal<py::object>(
      PySequence_GetSlice(blank->ptr(), 0, static_cast<Py_ssize_t>(o.size())));
  if (!out) throw py::error_already_set();
  Py_buffer view;
  if (PyObject_GetBuffer(out.ptr(), &view, PyBUF_WRITABLE) != 0) throw py::error_already_set();
  std::memcpy(view.buf, o.data(), sizeof o);
  PyBuffer_Release(&view);
  return out;
}

// 1 for each legal action, as bytes of NUM_ACTIONS zeros and ones.
py::bytes mask_of(const PlayList& legal) {
  std::array<char, kNumActions> mask{};
  for (const Play& p : legal) mask[static_cast<size_t>(action_of(p))] = 1;
  return py::bytes(mask.data(), mask.size());
}

State blank_state() {
  return State::new_match(Config::standard(Format::kTwoPlayers), 0);
}

State sample_or_raise(const WorldSampler& sampler, SplitMix64& rng) {
  State s = blank_state();
  if (!sampler.sample(rng, s))
    throw py::value_error("no state to sample: the view is not at its own seat's decision");
  return s;
}

}  // namespace allfives::python
