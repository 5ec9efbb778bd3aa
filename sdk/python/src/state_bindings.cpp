// The State and the View, bound (core_module.cpp says what the module holds).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"

namespace allfives::python {

namespace {

// State.from_position: a state mid-hand from Python's sequences.
State state_from_position(py::handle config, int hand_index, py::sequence hands,
                          py::sequence boneyard, py::sequence line, py::sequence scores,
                          int seat_to_move, py::handle open_rule, uint64_t seed) {
  Position p;
  p.config = to_config(config);
  p.hand_index = hand_index;
  if (py::len(hands) > kMaxPlayers) throw py::value_error("too many hands");
  for (size_t s = 0; s < py::len(hands); ++s) p.hands[s] = V().to_tiles(hands[s]);
  if (py::len(boneyard) > kNumTiles || py::len(line) > kNumTiles || py::len(scores) > kMaxPlayers)
    throw py::value_error("boneyard, line or scores too long");
  for (py::handle t : boneyard) p.boneyard[p.boneyard_size++] = V().to_tile(t);
  for (py::handle lt : line) {
    py::sequence item = py::reinterpret_borrow<py::sequence>(lt);
    if (py::len(item) != 3) throw py::type_error("a line tile is (tile, seat, end)");
    p.line[p.line_size++] = LinePlay{
        V().to_tile(item[0]), static_cast<uint8_t>(item[1].cast<int>()), V().to_end(item[2])};
  }
  for (size_t i = 0; i < py::len(scores); ++i) p.scores[i] = scores[i].cast<int>();
  p.seat_to_move = seat_to_move;
  p.open_rule = V().to_open_rule(open_rule);
  State s = blank_state();
  std::string error;
  if (!State::from_position(p, seed, s, &error)) throw py::value_error(error);
  return s;
}

// How a state is made and copied.
void bind_state_making(py::class_<State>& state) {
  state
      .def_static(
          "new_match",
          [](py::handle config, uint64_t seed) {
            return State::new_match(to_config(config), seed);
          },
          py::arg("config"), py::arg("seed"),
          "Deals hand 0 of the match dealt from `seed` (the referee's deal for that seed) and "
          "stops at the opener's decision. `config` is a Config or a Format.")
      .def_static("from_position", &state_from_position, py::arg("config"), py::arg("hand_index"),
                  py::arg("hands"), py::arg("boneyard"), py::arg("line"), py::arg("scores"),
                  py::arg("seat_to_move"), py::arg("open_rule"), py::arg("seed") = 0,
                  "A state mid-hand: hands per seat, the boneyard in drawing order, the line as "
                  "(tile, seat, end) in play order; later hands are dealt from `seed`.")
      .def_static(
          "new_match_with_events",
          [](py::handle config, uint64_t seed) {
            EventList events;
            State s = State::new_match(to_config(config), seed, &events);
            return py::make_tuple(s, events_of(events));
          },
          py::arg("config"), py::arg("seed"), "new_match, and the events of the first deal.")
      .def(
          "copy", [](const State& s) { return s; }, "An independent copy (a memcpy).")
      .def("__copy__", [](const State& s) { return s; })
      .def("__deepcopy__", [](const State& s, py::handle) { return s; })
      .def(py::self == py::self);
}

// The truth a state holds.
void bind_state_table(py::class_<State>& state) {
  state.def_property_readonly("config", &State::config)
      .def_property_readonly("format", [](const State& s) { return V().format(s.format()); })
      .def("is_terminal", &State::is_terminal)
      .def_property_readonly("seat_to_move", &State::seat_to_move, "-1 once the match is over")
      .def_property_readonly("hand_index", &State::hand_index)
      .def("score", &State::score, py::arg("side"))
      .def_property_readonly("scores", &scores_of, "Every side's score.")
      .def(
          "hand",
          [](const State& s, int seat) {
            if (seat < 0 || seat >= num_players(s.format())) throw py::index_error("no such seat");
            return V().tiles(s.hand(seat));
          },
          py::arg("seat"))
      .def_property_readonly("boneyard_size", &State::boneyard_size)
      .def_property_readonly(
          "boneyard", [](const State& s) { return V().tiles(s.boneyard()); },
          "The tiles still to draw (not their order).")
      .def_property_readonly("line", [](const State& s) { return line_of(s.line()); })
      .def_property_readonly("left_end",
                             [](const State& s) { return end_of(s.line(), End::kLeft); })
      .def_property_readonly("right_end",
                             [](const State& s) { return end_of(s.line(), End::kRight); })
      .def_property_readonly("end_count", [](const State& s) { return s.line().count(); })
      .def_property_readonly("open_rule",
                             [](const State& s) { return V().open_rule(s.open_rule()); })
      .def_property_readonly(
          "winner_side",
          [](const State& s) -> py::object {
            if (!s.is_terminal()) return py::none();
            return py::int_(s.outcome().winner_side);
          },
          "Once over: the winning side, -1 for a draw; None before.")
      .def_property_readonly("end_reason",
                             [](const State& s) -> py::object {
                               if (!s.is_terminal()) return py::none();
                               return V().match_end_reason(s.outcome().reason);
                             })
      .def("__repr__", [](const State& s) {
        return "<State hand " + std::to_string(s.hand_index()) + ", seat to move " +
               std::to_string(s.seat_to_move()) + ", line " + std::to_string(s.line().size()) +
               " tiles>";
      });
}

// The plays, the views, and rollouts in C++.
void bind_state_plays(py::class_<State>& state) {
  state
      .def(
          "legal_plays", [](const State& s) { return plays_of(s.legal_plays()); },
          "The plays of the seat to move, in the referee's order.")
      .def(
          "legal_actions", [](const State& s) { return actions_of(s.legal_plays()); },
          "The same as actions (tile index * 2 + end), the fast path for search and learning.")
      .def(
          "action_mask", [](const State& s) { return mask_of(s.legal_plays()); },
          "bytes of NUM_ACTIONS: 1 for each legal action of the seat to move.")
      .def("is_legal",
           [](const State& s, py::handle play) {
             return s.check(V().to_play(play)) == PlayError::kNone;
           })
      .def(
          "apply", [](State& s, py::handle play) { apply_or_raise(s, V().to_play(play), nullptr); },
          py::arg("play"),
          "Plays `play` (a Play, or a (tile, end) pair) for the seat to move, then draws, "
          "passes, scores and deals until the next decision. Raises ValueError if illegal.")
      .def(
          "apply_action",
          [](State& s, int action) { apply_or_raise(s, play_of_action(action), nullptr); },
          py::arg("action"))
      .def(
          "apply_with_events",
          [](State& s, py::handle play) {
            EventList events;
            apply_or_raise(s, V().to_play(play), &events);
            return events_of(events);
          },
          py::arg("play"), "apply(), returning every event it caused (the full truth).")
      .def(
          "view",
          [](const State& s, int seat) {
            if (seat < 0 || seat >= num_players(s.format())) throw py::index_error("no such seat");
            return PyView{s.view(seat), s.knowledge(seat)};
          },
          py::arg("seat"),
          "What `seat` may see now, and nothing more, with its knowledge as a bot in that seat "
          "holds it (None for a state begun mid-hand from a position whose seats drew before "
          "it).")
      .def(
          "play_out",
          [](State& s, const std::string& policy, SplitMix64& rng, int epsilon_permille,
             bool whole_match) {
            return play_out(s, to_policy(policy), rng, epsilon_permille, whole_match);
          },
          py::arg("policy"), py::arg("rng"), py::arg("epsilon_permille") = 0,
          py::arg("whole_match") = false,
          "Plays on in C++ with a built-in policy (\"greedy\" or \"random\"; with "
          "epsilon_permille, that many plays per thousand at random) for every seat until the "
          "hand ends, or the match with whole_match. Returns the plays made.");
}

View view_from_observation(py::handle config, int seat, int hand_index, py::handle hand,
                           py::sequence line, py::sequence scores, py::sequence hand_sizes,
                           int boneyard_size, py::handle open_rule, py::sequence legal_plays,
                           std::optional<int> seat_to_move) {
  Observation o;
  o.config = to_config(config);
  o.seat = seat;
  o.seat_to_move = seat_to_move ? *seat_to_move : seat;
  o.hand_index = hand_index;
  o.hand = V().to_tiles(hand);
  if (py::len(line) > kNumTiles) throw py::value_error("line too long");
  for (py::handle lt : line) {
    py::sequence item = py::reinterpret_borrow<py::sequence>(lt);
    if (py::len(item) != 3) throw py::type_error("a line tile is (tile, seat, end)");
    const int who = item[1].cast<int>();
    if (who < 0 || who >= kMaxPlayers) throw py::value_error("a line tile's seat out of range");
    // The opening tile's end is irrelevant and recorded as LEFT.
    const End end = o.line_size == 0 ? End::kLeft : V().to_end(item[2]);
    o.line[o.line_size++] = LinePlay{V().to_tile(item[0]), static_cast<uint8_t>(who), end};
  }
  const int n = num_players(o.config.format);
  if (static_cast<int>(py::len(hand_sizes)) != n)
    throw py::value_error("hand_sizes must list every seat");
  for (int s = 0; s < n; ++s) o.hand_sizes[s] = hand_sizes[static_cast<size_t>(s)].cast<int>();
  if (static_cast<int>(py::len(scores)) != num_sides(o.config.format))
    throw py::value_error("scores must list every side");
  for (size_t s = 0; s < py::len(scores); ++s) o.scores[s] = scores[s].cast<int>();
  o.boneyard_size = boneyard_size;
  o.open_rule = V().to_open_rule(open_rule);
  if (py::len(legal_plays) > PlayList::kCapacity) throw py::value_error("too many legal plays");
  for (py::handle p : legal_plays) {
    Play play = V().to_play(p);
    if (o.line_size == 0) play.end = End::kLeft;
    o.legal_plays.push(play);
  }
  View v;
  std::string error;
  if (!View::from_observation(o, v, &error)) throw py::value_error(error);
  return v;
}

// What a seat sees of the match and its own hand and line, with the Python SDK's names.
void bind_view_position(py::class_<PyView>& view) {
  view.def_static(
          "from_observation",
          [](py::handle config, int seat, int hand_index, py::handle hand, py::sequence line,
             py::sequence scores, py::sequence hand_sizes, int boneyard_size, py::handle open_rule,
             py::sequence legal_plays, std::optional<int> seat_to_move,
             std::optional<Knowledge> knowledge) {
            return PyView{
                view_from_observation(config, seat, hand_index, hand, line, scores, hand_sizes,
                                      boneyard_size, open_rule, legal_plays, seat_to_move),
                knowledge};
          },
          py::arg("config"), py::arg("seat"), py::arg("hand_index"), py::arg("hand"),
          py::arg("line"), py::arg("scores"), py::arg("hand_sizes"), py::arg("boneyard_size"),
          py::arg("open_rule"), py::arg("legal_plays"), py::arg("seat_to_move") = py::none(),
          py::arg("knowledge") = py::none(),
          "Rebuilds a view from its facts; raises ValueError if they cannot belong together.")
      .def_property_readonly("config", [](const PyView& v) { return v.view.config(); })
      .def_property_readonly("format",
                             [](const PyView& v) { return V().format(v.view.config().format); })
      .def_property_readonly("seat", [](const PyView& v) { return v.view.seat(); })
      .def_property_readonly("side", [](const PyView& v) { return v.view.side(); })
      .def_property_readonly("partner", [](const PyView& v) { return v.view.partner(); })
      .def_property_readonly("num_players", [](const PyView& v) { return v.view.num_players(); })
      .def_property_readonly("num_sides",
                             [](const PyView& v) { return num_sides(v.view.config().format); })
      .def_property_readonly("target_score", [](const PyView& v) { return v.view.config().target; })
      .def_property_readonly("hand_index", [](const PyView& v) { return v.view.hand_index(); })
      .def_property_readonly("seat_to_move", [](const PyView& v) { return v.view.seat_to_move(); })
      .def_property_readonly("hand", [](const PyView& v) { return V().tiles(v.view.hand()); })
      .def_property_readonly("line", [](const PyView& v) { return line_of(v.view.line()); })
      .def_property_readonly("left_end",
                             [](const PyView& v) { return end_of(v.view.line(), End::kLeft); })
      .def_property_readonly("right_end",
                             [](const PyView& v) { return end_of(v.view.line(), End::kRight); })
      .def_property_readonly("ends",
                             [](const PyView& v) {
                               return py::make_tuple(end_of(v.view.line(), End::kLeft),
                                                     end_of(v.view.line(), End::kRight));
                             })
      .def("end",
           [](const PyView& v, py::handle e) { return end_of(v.view.line(), V().to_end(e)); })
      .def_property_readonly("end_count", [](const PyView& v) { return v.view.line().count(); });
}

// What a seat sees of the others and of its choices: sizes, scores, plays and their points.
void bind_view_counts(py::class_<PyView>& view) {
  view.def_property_readonly("hand_sizes",
                             [](const PyView& v) {
                               std::array<int, kMaxPlayers> h{};
                               for (int s = 0; s < v.view.num_players(); ++s)
                                 h[s] = v.view.hand_size(s);
                               return ints(h.data(), v.view.num_players());
                             })
      .def_property_readonly("boneyard_size",
                             [](const PyView& v) { return v.view.boneyard_size(); })
      .def_property_readonly("scores",
                             [](const PyView& v) {
                               std::array<int, kMaxPlayers> h{};
                               const int sides = num_sides(v.view.config().format);
                               for (int s = 0; s < sides; ++s) h[s] = v.view.score(s);
                               return ints(h.data(), sides);
                             })
      .def_property_readonly("open_rule",
                             [](const PyView& v) { return V().open_rule(v.view.open_rule()); })
      .def_property_readonly("legal_plays",
                             [](const PyView& v) { return plays_of(v.view.legal_plays()); })
      .def("legal_actions", [](const PyView& v) { return actions_of(v.view.legal_plays()); })
      .def(
          "ends_after",
          [](const PyView& v, py::handle play) {
            const Play p = V().to_play(play);
            check_fits(v.view.line(), p);
            const std::array<LineEnd, 2> ends = v.view.ends_after(p);
            return py::make_tuple(V().line_end(ends[0]), V().line_end(ends[1]));
          },
          py::arg("play"),
          "The open ends (left, right) as LineEnds if this seat made `play` now: a double "
          "lies crosswise where it is laid, and an opening double at both ends.")
      .def(
          "count_after",
          [](const PyView& v, py::handle play) {
            return checked_count_after(v.view.line(), V().to_play(play));
          },
          py::arg("play"),
          "The count of the open ends if this seat made `play` now (docs/RULES.md §7).")
      .def(
          "points_after",
          [](const PyView& v, py::handle play) {
            return points_for_count(checked_count_after(v.view.line(), V().to_play(play)));
          },
          py::arg("play"), "The points `play` would score now.")
      .def(
          "unseen", [](const PyView& v) { return V().tiles(v.view.unseen()); },
          "Every tile this seat cannot see: the other hands and the boneyard together.");
}

// What a search starts from: the seat's knowledge, worlds, the observation vector.
void bind_view_search(py::class_<PyView>& view) {
  view.def_property_readonly(
          "knowledge",
          [](const PyView& v) -> py::object {
            return v.knowledge ? py::cast(*v.knowledge) : py::none();
          },
          "What this seat knows of the other hands from the public history (None if not tracked).")
      .def(
          "with_knowledge",
          [](const PyView& v, std::optional<Knowledge> k) {
            return PyView{v.view, k};
          },
          py::arg("knowledge"), "The same view carrying `knowledge` (None: none).")
      .def(
          "sampler",
          [](const PyView& v) {
            return WorldSampler(v.view, v.knowledge ? &*v.knowledge : nullptr);
          },
          "A WorldSampler for this view and its knowledge, to draw many worlds.")
      .def(
          "sample_state",
          [](const PyView& v, SplitMix64& rng) {
            const WorldSampler sampler(v.view, v.knowledge ? &*v.knowledge : nullptr);
            return sample_or_raise(sampler, rng);
          },
          py::arg("rng"),
          "A full State this seat may be in, drawn uniformly among all that agree with what it "
          "has seen: the simulator for a search, in one call.")
      .def(
          "observation",
          [](const PyView& v) {
            return to_array(encode(v.view, v.knowledge ? &*v.knowledge : nullptr));
          },
          "This seat's observation: OBSERVATION_SIZE small integers, an array.array('h') "
          "(sdk/docs/environment.md has the layout).")
      .def("__eq__", [](const PyView& a, const PyView& b) { return a.view == b.view; })
      .def("__repr__", [](const PyView& v) {
        return "<View seat " + std::to_string(v.view.seat()) + ", hand " +
               std::to_string(v.view.hand_index()) + ", " + to_string(v.view.hand()) + ", line " +
               std::to_string(v.view.line().size()) + " tiles>";
      });
}

}  // namespace

void bind_state(py::module_& m) {
  py::class_<State> state(m, "State",
                          "The true state of a match (allfives/core/state.h): cheap to copy, "
                          "stops at each decision (drawing and passing are done for the "
                          "players).");
  bind_state_making(state);
  bind_state_table(state);
  bind_state_plays(state);
}

void bind_view(py::module_& m) {
  py::class_<PyView> view(m, "View",
                          "Everything one seat may see (docs/RULES.md §15): what choose_play "
                          "gets, and what State.view(seat) returns.");
  bind_view_position(view);
  bind_view_counts(view);
  bind_view_search(view);
}

}  // namespace allfives::python
