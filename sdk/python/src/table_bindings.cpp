// The Table: a match with every seat's Knowledge kept up to date, stepped by actions: the engine
// of the in-process environment (allfives_bot/env.py). The calls the environment makes at
// every play (play, observe, legal_actions) are CPython METH_FASTCALL methods rather than
// pybind11 ones: a pybind11 call costs about 0.2 µs of dispatch, as much as the play itself,
// and a step-by-step loop makes three of them per play.
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

#include "bindings.h"

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

// --- the fast calls ---------------------------------------------------------------------------

// Runs `body` and turns a C++ exception into a Python one (nullptr), as pybind11 would.
template <class Body>
PyObject* guarded(Body&& body) {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

Table& table_of(PyObject* self) {
  return py::handle(self).cast<Table&>();
}

// One int argument, taken as int() takes it (numpy integers included). A number out of range
// becomes -1, which the callee rejects with its own message.
int int_arg(PyObject* const* args, Py_ssize_t nargs, const char* what) {
  if (nargs != 1) throw py::type_error(std::string("takes one argument: ") + what);
  py::object number = py::reinterpret_steal<py::object>(PyNumber_Long(args[0]));
  if (!number) throw py::error_already_set();
  const long v = PyLong_AsLong(number.ptr());
  if (v == -1 && PyErr_Occurred()) PyErr_Clear();
  return (v < INT32_MIN || v > INT32_MAX) ? -1 : static_cast<int>(v);
}

PyObject* table_play(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return guarded([&] {
    Table& t = table_of(self);
    return PyLong_FromLong(t.play(int_arg(args, nargs, "action")));
  });
}

PyObject* table_observe(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return guarded([&] {
    static PyObject* const observation_key = PyUnicode_InternFromString("observation");
    static PyObject* const mask_key = PyUnicode_InternFromString("action_mask");
    Table& t = table_of(self);
    const int seat = int_arg(args, nargs, "seat");
    py::object mask = t.mask(seat);
    py::object observation = to_array(t.observation(seat));
    py::dict out;
    if (PyDict_SetItem(out.ptr(), observation_key, observation.ptr()) != 0 ||
        PyDict_SetItem(out.ptr(), mask_key, mask.ptr()) != 0)
      throw py::error_already_set();
    return out.release().ptr();
  });
}

PyObject* table_legal_actions(PyObject* self, PyObject* const*, Py_ssize_t nargs) {
  return guarded([&] {
    if (nargs != 0) throw py::type_error("legal_actions() takes no arguments");
    return actions_of(table_of(self).state().legal_plays()).release().ptr();
  });
}

PyMethodDef kPlay = {
    "play", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_play)), METH_FASTCALL,
    "play(action): plays `action` for the seat to move. Returns the seat to move next, or -1 "
    "if the play ended the hand (the next hand is dealt), -2 if it ended the match."};
PyMethodDef kObserve = {
    "observe", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_observe)),
    METH_FASTCALL,
    "observe(seat): {\"observation\": observation(seat), \"action_mask\": action_mask(seat)}, "
    "in one call."};
PyMethodDef kLegalActions = {
    "legal_actions",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_legal_actions)), METH_FASTCALL,
    "legal_actions(): the seat to move's legal actions, in the referee's order."};

void add_fast_method(py::handle cls, PyMethodDef* def) {
  py::object method = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def));
  if (!method) throw py::error_already_set();
  py::setattr(cls, def->ml_name, method);
}

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
