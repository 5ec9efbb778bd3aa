// The Table: a match with every seat's Knowledge kept up to date, stepped by actions: the engine
// of the in-process environment (allfives_bot/env.py). The calls the environment makes at
// every play (play, observe, legal_actions) are fast calls (fast_call.h).
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

#include "bindings.h"
#include "fast_call.h"

namespace allfives::python {

namespace {

// What Table.play returns when the play ended the hand or the match (otherwise: the seat to
// move next, >= 0).
constexpr int kHandOver = -1;
constexpr int kMatchOver = -2;

class Table {
 public:
  Table(const Config& config, uint64_t seed) : state_(blank_state()) { reset(config, seed); }

  void reset(const Config& config, uint64_t seed) {
    events_.clear();
    state_ = State::new_match(config, seed, &events_);
    for (int s = 0; s < num_players(config.format); ++s)
      knowledge_[s] = Knowledge(config.format, s);
    feed();
    mask_ = py::object();
  }

  // Plays `action` for the seat to move: the seat to move next, or kHandOver, kMatchOver.
  int play(int action) {
    const int hand = state_.hand_index();
    events_.clear();
    mask_ = py::object();
    apply_or_raise(state_, play_of_action(action), &events_);
    feed();
    if (state_.is_terminal()) return kMatchOver;
    return state_.hand_index() != hand ? kHandOver : state_.seat_to_move();
  }

  // 0, or 1 if a hand ended, 2 if the match did.
  int step(int action) {
    const int r = play(action);
    return r >= 0 ? 0 : (r == kHandOver ? 1 : 2);
  }

  const State& state() const { return state_; }
  const EventList& events() const { return events_; }
  const Knowledge& knowledge(int seat) const { return knowledge_[check(seat)]; }
  PyView view(int seat) const { return PyView{state_.view(check(seat)), knowledge_[seat]}; }
  Features observation(int seat) const {
    return encode(state_.view(check(seat)), &knowledge_[seat]);
  }

  // `seat`'s mask as bytes; the mover's is made once per decision (bytes are immutable, so
  // every caller may share it), every other seat's is the one all-zero mask.
  py::object mask(int seat) {
    if (check(seat) != state_.seat_to_move()) {
      static const py::object* zeros = new py::object(mask_of(PlayList{}));
      return *zeros;
    }
    if (!mask_) mask_ = mask_of(state_.legal_plays());
    return mask_;
  }

 private:
  int check(int seat) const {
    if (seat < 0 || seat >= num_players(state_.format())) throw py::index_error("no such seat");
    return seat;
  }
  void feed() {
    for (const Event& e : events_)
      for (int s = 0; s < num_players(state_.format()); ++s) knowledge_[s].observe(seen_by(e, s));
  }

  State state_;
  EventList events_;
  std::array<Knowledge, kMaxPlayers> knowledge_{};
  py::object mask_;  // the mover's mask at this decision, once asked for
};

// --- the fast calls (fast_call.h) -------------------------------------------------------------

// An int argument taken as int() takes it (numpy integers included). A number out of range
// becomes -1, which the callee rejects with its own message.
int int_of(PyObject* arg) {
  py::object number = py::reinterpret_steal<py::object>(PyNumber_Long(arg));
  if (!number) throw py::error_already_set();
  const long v = PyLong_AsLong(number.ptr());
  if (v == -1 && PyErr_Occurred()) PyErr_Clear();
  return (v < INT32_MIN || v > INT32_MAX) ? -1 : static_cast<int>(v);
}

PyObject* table_play(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return guarded([&] {
    const int action = int_of(only_arg(args, nargs, kw, "action"));
    return PyLong_FromLong(self_of<Table>(self).play(action));
  });
}

PyObject* table_observe(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return guarded([&] {
    static PyObject* const observation_key = PyUnicode_InternFromString("observation");
    static PyObject* const mask_key = PyUnicode_InternFromString("action_mask");
    Table& t = self_of<Table>(self);
    const int seat = int_of(only_arg(args, nargs, kw, "seat"));
    py::object mask = t.mask(seat);
    py::object observation = to_array(t.observation(seat));
    py::dict out;
    if (PyDict_SetItem(out.ptr(), observation_key, observation.ptr()) != 0 ||
        PyDict_SetItem(out.ptr(), mask_key, mask.ptr()) != 0)
      throw py::error_already_set();
    return out.release().ptr();
  });
}

PyObject* table_legal_actions(PyObject* self, PyObject* const*, Py_ssize_t nargs, PyObject* kw) {
  return guarded([&] {
    if (nargs != 0 || kw) throw py::type_error("legal_actions() takes no arguments");
    return actions_of(self_of<Table>(self).state().legal_plays()).release().ptr();
  });
}

PyMethodDef kPlay = {
    "play", as_cfunction(table_play), METH_FASTCALL | METH_KEYWORDS,
    "play(action): plays `action` for the seat to move. Returns the seat to move next, or -1 "
    "if the play ended the hand (the next hand is dealt), -2 if it ended the match."};
PyMethodDef kObserve = {
    "observe", as_cfunction(table_observe), METH_FASTCALL | METH_KEYWORDS,
    "observe(seat): {\"observation\": observation(seat), \"action_mask\": action_mask(seat)}, "
    "in one call."};
PyMethodDef kLegalActions = {
    "legal_actions", as_cfunction(table_legal_actions), METH_FASTCALL | METH_KEYWORDS,
    "legal_actions(): the seat to move's legal actions, in the referee's order."};

}  // namespace

void bind_table(py::module_& m) {
  py::class_<Table> table(m, "Table",
                          "A match and every seat's knowledge of it, stepped by actions: the "
                          "engine of allfives_bot.env.");
  table
      .def(
          py::init([](py::handle config, uint64_t seed) { return Table(to_config(config), seed); }),
          py::arg("config"), py::arg("seed"))
      .def(
          "reset",
          [](Table& t, py::handle config, uint64_t seed) { t.reset(to_config(config), seed); },
          py::arg("config"), py::arg("seed"))
      .def("step", &Table::step, py::arg("action"),
           "Plays `action` for the seat to move: 0, 1 if a hand ended, 2 if the match did.")
      .def_property_readonly(
          "state", [](const Table& t) { return t.state(); }, "A copy of the true state.")
      .def_property_readonly("seat_to_move",
                             [](const Table& t) { return t.state().seat_to_move(); })
      .def("is_terminal", [](const Table& t) { return t.state().is_terminal(); })
      .def_property_readonly("scores", [](const Table& t) { return scores_of(t.state()); })
      .def_property_readonly("hand_index", [](const Table& t) { return t.state().hand_index(); })
      .def("action_mask", &Table::mask, py::arg("seat"),
           "bytes of NUM_ACTIONS: 1 for each legal action of `seat` (all 0 unless it is to move).")
      .def(
          "observation", [](const Table& t, int seat) { return to_array(t.observation(seat)); },
          py::arg("seat"))
      .def("view", &Table::view, py::arg("seat"))
      .def("knowledge", &Table::knowledge, py::arg("seat"))
      .def(
          "events", [](const Table& t) { return events_of(t.events()); },
          "Every event of the last step, the full truth (for logs, never for a seat).");
  add_fast_method(table, &kPlay);
  add_fast_method(table, &kObserve);
  add_fast_method(table, &kLegalActions);
}

}  // namespace allfives::python
