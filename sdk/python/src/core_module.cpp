// allfives_bot._core: the rules core (sdk/core) bound to Python with pybind11, the very code
// the referee scores with. Python sees the SDK's own value types (Tile, Play, the enums from
// proto/; values.h), a copyable State, per-seat Views with the SDK's field names, what a seat
// knows (Knowledge) and the worlds it may be in (WorldSampler), built-in policies run in C++
// (State.play_out, play_matches) and the Table the in-process environment steps.
//
// Reference: the docstrings below and sdk/README.md ("Simulating in Python").
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "allfives/core/deal.h"
#include "allfives/core/greedy.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "observation.h"
#include "simulate.h"
#include "values.h"

namespace allfives::python {
namespace {

Values& V() {
  return Values::get();
}

// A view with the seat's knowledge of the hand when the SDK or the environment tracked it, so
// a bot can turn it into worlds to search in one call (sample_state).
struct PyView {
  View view;
  std::optional<Knowledge> knowledge;
};

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

int count_after(const Line& line, Play p) {
  if (!line.empty() && !line.fits(p.tile, p.end))
    throw py::value_error("the tile " + to_string(p.tile) + " does not fit the " +
                          std::string(to_string(p.end)) + " end");
  Line copy = line;
  copy.place(p.tile, p.end, 0);
  return copy.count();
}

// An observation as array.array("h") (int16, made by one copy; numpy.frombuffer reads it
// without another).
py::object to_array(const Features& o) {
  static py::object* array = new py::object(py::module_::import("array").attr("array"));
  return (*array)("h", py::bytes(reinterpret_cast<const char*>(o.data()), sizeof o));
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

void bind_values(py::module_& m) {
  m.def(
      "_register",
      [](py::object tile, py::object play, py::object line_tile, py::object line_end,
         py::object end, py::object format, py::object open_rule, py::object hand_end_kind,
         py::object match_end_reason) {
        V().set(tile, play, line_tile, line_end, end, format, open_rule, hand_end_kind,
                match_end_reason);
      },
      "Called once by allfives_bot.model with the SDK's value types.");
  m.attr("RULES_VERSION") = kRulesVersion;
  m.attr("NUM_TILES") = kNumTiles;
  m.attr("MAX_PIPS") = kMaxPips;
  m.attr("MAX_PLAYERS") = kMaxPlayers;
  m.attr("NUM_ACTIONS") = kNumActions;
  m.attr("DEFAULT_MAX_HANDS") = kDefaultMaxHands;
  m.attr("OBSERVATION_SIZE") = ObservationLayout::kSize;

  m.def(
      "num_players", [](py::handle f) { return num_players(V().to_format(f)); },
      "Seats at the table.");
  m.def(
      "num_sides", [](py::handle f) { return num_sides(V().to_format(f)); }, "Sides that score.");
  m.def(
      "hand_size", [](py::handle f) { return hand_size(V().to_format(f)); },
      "Tiles dealt to each seat (docs/RULES.md §3).");
  m.def(
      "standard_target", [](py::handle f) { return standard_target(V().to_format(f)); },
      "The score that wins (docs/RULES.md §12).");
  m.def("side_of", [](py::handle f, int seat) { return side_of(V().to_format(f), seat); });
  m.def(
      "partner_of", [](py::handle f, int seat) { return partner_of(V().to_format(f), seat); },
      "The partner's seat, -1 without partnerships.");
  m.def("points_for_count", &points_for_count,
        "The points a count scores: the count if a positive multiple of five, else 0.");
  m.def(
      "action_of", [](py::handle play) { return action_of(V().to_play(play)); },
      "A play as a number: tile index * 2 + end (0 left, 1 right).");
  m.def("play_of", [](int action) { return V().play(play_of_action(action)); });
  m.def(
      "tile_index", [](py::handle tile) { return V().to_tile(tile).index(); },
      "0..27 in the order 0-0, 1-0, ..., 6-0, 1-1, ...: the core's order of tiles.");
  m.def("tile_of", [](int index) {
    if (index < 0 || index >= kNumTiles) throw py::value_error("a tile index is 0..27");
    return V().tile(Tile::from_index(index));
  });
}

void bind_rng(py::module_& m) {
  py::class_<SplitMix64>(m, "SplitMix64",
                         "The project's random numbers (allfives/core/rng.h), bit for bit.")
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def("next", &SplitMix64::next, "The next 64-bit output.")
      .def(
          "below",
          [](SplitMix64& r, uint64_t bound) {
            if (bound == 0) throw py::value_error("below(bound) needs bound > 0");
            return bound <= UINT32_MAX ? uint64_t{r.below(static_cast<uint32_t>(bound))}
                                       : r.below64(bound);
          },
          py::arg("bound"), "Uniform in [0, bound), by rejection.")
      .def("__copy__", [](const SplitMix64& r) { return r; });
  m.def("derive_seed", &derive_seed, py::arg("seed"), py::arg("index"),
        "A seed for sub-stream `index` of `seed`.");
  m.def(
      "fnv1a64", [](const std::string& text) { return fnv1a64(text); },
      "FNV-1a, 64 bits, of the UTF-8 bytes of `text`.");
  m.def(
      "match_seed",
      [](uint64_t base, const std::string& match_id, int seat) {
        return match_seed(base, match_id, seat);
      },
      "MatchInfo.seed: a function of --seed, the match id and the seat only.");
  m.def(
      "deal_hand",
      [](py::handle format, uint64_t seed, int hand_index) {
        const Format f = V().to_format(format);
        const Deal d = deal_hand(f, seed, hand_index);
        py::tuple hands(static_cast<size_t>(num_players(f)));
        for (int s = 0; s < num_players(f); ++s)
          hands[static_cast<size_t>(s)] = V().tiles(d.hands[s]);
        py::tuple bone(d.boneyard_size);
        for (int i = 0; i < d.boneyard_size; ++i)
          bone[static_cast<size_t>(i)] = V().tile(d.boneyard[i]);
        return py::make_tuple(hands, bone);
      },
      py::arg("format"), py::arg("seed"), py::arg("hand_index"),
      "(hands per seat, boneyard in drawing order) of hand `hand_index` of the match dealt from "
      "`seed`: the referee's deal.");
}

void bind_config(py::module_& m) {
  py::class_<Config>(m, "Config", "A match's terms: format, target, hand limit.")
      .def(py::init([](py::handle format, std::optional<int> target, std::optional<int> max_hands) {
             Config c = Config::standard(V().to_format(format));
             if (target) c.target = *target;
             if (max_hands) c.max_hands = *max_hands;
             if (c.target <= 0 || c.target > kMaxTarget || c.max_hands <= 0 ||
                 c.max_hands > kMaxHandLimit)
               throw py::value_error("target must be 1.." + std::to_string(kMaxTarget) +
                                     " and max_hands 1.." + std::to_string(kMaxHandLimit));
             return c;
           }),
           py::arg("format"), py::arg("target") = py::none(), py::arg("max_hands") = py::none())
      .def_property_readonly("format", [](const Config& c) { return V().format(c.format); })
      .def_readonly("target", &Config::target)
      .def_readonly("max_hands", &Config::max_hands)
      .def(py::self == py::self)
      .def("__repr__", [](const Config& c) {
        return "Config(" + std::string(to_string(c.format)) +
               ", target=" + std::to_string(c.target) +
               ", max_hands=" + std::to_string(c.max_hands) + ")";
      });
}

void bind_event(py::module_& m) {
  py::class_<Event>(m, "Event",
                    "One event of a step, as the core reports it (allfives/core/events.h). "
                    "Which fields mean something depends on `kind`.")
      .def_property_readonly(
          "kind", [](const Event& e) { return std::string(to_string(e.kind)); },
          "hand_start, play, draw, pass, hand_end or match_end")
      .def_readonly("seat", &Event::seat,
                    "play/draw/pass: who; hand_start: the opener; hand_end: who went out (-1: "
                    "blocked)")
      .def_readonly("side", &Event::side,
                    "play: the actor's side; hand_end/match_end: the winner, -1 none")
      .def_readonly("hand_index", &Event::hand_index)
      .def_property_readonly("play",
                             [](const Event& e) -> py::object {
                               return e.kind == EventKind::kPlay ? V().play(e.play) : py::none();
                             })
      .def_readonly("count", &Event::count, "play: the count after it; draw: tiles drawn")
      .def_readonly("reason", &Event::reason,
                    "the core's code behind open_rule, hand_end_kind or match_end_reason")
      .def_readonly("points", &Event::points, "play/hand_end: points scored by it")
      .def_property_readonly(
          "tiles", [](const Event& e) { return V().tiles(e.tiles); },
          "draw: the tiles drawn (only in the drawer's eyes)")
      .def_property_readonly("open_rule",
                             [](const Event& e) -> py::object {
                               return e.kind == EventKind::kHandStart
                                          ? V().open_rule(static_cast<OpenRule>(e.reason))
                                          : py::none();
                             })
      .def_property_readonly("open_with",
                             [](const Event& e) -> py::object {
                               if (e.kind != EventKind::kHandStart ||
                                   static_cast<OpenRule>(e.reason) == OpenRule::kWinnerChooses)
                                 return py::none();
                               return V().tile(e.open_with);
                             })
      .def_property_readonly("hand_end_kind",
                             [](const Event& e) -> py::object {
                               return e.kind == EventKind::kHandEnd
                                          ? V().hand_end_kind(static_cast<HandEndKind>(e.reason))
                                          : py::none();
                             })
      .def_property_readonly(
          "match_end_reason",
          [](const Event& e) -> py::object {
            return e.kind == EventKind::kMatchEnd
                       ? V().match_end_reason(static_cast<MatchEndReason>(e.reason))
                       : py::none();
          })
      .def_property_readonly(
          "hands",
          [](const Event& e) {
            py::tuple out(kMaxPlayers);
            for (int s = 0; s < kMaxPlayers; ++s)
              out[static_cast<size_t>(s)] = V().tiles(e.hands[s]);
            return out;
          },
          "hand_start: the deal (in a seat's eyes, its own hand only); hand_end/match_end: every "
          "hand")
      .def_property_readonly(
          "values",
          [](const Event& e) {
            std::array<int, kMaxPlayers> v{};
            for (int s = 0; s < kMaxPlayers; ++s) v[s] = e.values[s];
            return ints(v.data(), kMaxPlayers);
          },
          "hand_end: pips left per seat; match_end: final score per side")
      .def("seen_by", &seen_by, py::arg("seat"), "The event as `seat` may see it.")
      .def("__repr__", [](const Event& e) {
        std::string r = "Event(" + std::string(to_string(e.kind)) + ", hand " +
                        std::to_string(e.hand_index) + ", seat " + std::to_string(e.seat);
        if (e.kind == EventKind::kPlay)
          r += ", " + to_string(e.play) + ", count " + std::to_string(e.count) + ", points " +
               std::to_string(e.points);
        if (e.kind == EventKind::kDraw) r += ", " + std::to_string(e.count) + " tiles";
        return r + ")";
      });
}

void bind_state(py::module_& m) {
  py::class_<State>(m, "State",
                    "The true state of a match (allfives/core/state.h): cheap to copy, stops "
                    "at each decision (drawing and passing are done for the players).")
      .def_static(
          "new_match",
          [](py::handle config, uint64_t seed) {
            return State::new_match(to_config(config), seed);
          },
          py::arg("config"), py::arg("seed"),
          "Deals hand 0 of the match dealt from `seed` (the referee's deal for that seed) and "
          "stops at the opener's decision. `config` is a Config or a Format.")
      .def_static(
          "from_position",
          [](py::handle config, int hand_index, py::sequence hands, py::sequence boneyard,
             py::sequence line, py::sequence scores, int seat_to_move, py::handle open_rule,
             uint64_t seed) {
            Position p;
            p.config = to_config(config);
            p.hand_index = hand_index;
            if (py::len(hands) > kMaxPlayers) throw py::value_error("too many hands");
            for (size_t s = 0; s < py::len(hands); ++s) p.hands[s] = V().to_tiles(hands[s]);
            if (py::len(boneyard) > kNumTiles || py::len(line) > kNumTiles ||
                py::len(scores) > kMaxPlayers)
              throw py::value_error("boneyard, line or scores too long");
            for (py::handle t : boneyard) p.boneyard[p.boneyard_size++] = V().to_tile(t);
            for (py::handle lt : line) {
              py::sequence item = py::reinterpret_borrow<py::sequence>(lt);
              if (py::len(item) != 3) throw py::type_error("a line tile is (tile, seat, end)");
              p.line[p.line_size++] =
                  LinePlay{V().to_tile(item[0]), static_cast<uint8_t>(item[1].cast<int>()),
                           V().to_end(item[2])};
            }
            for (size_t i = 0; i < py::len(scores); ++i) p.scores[i] = scores[i].cast<int>();
            p.seat_to_move = seat_to_move;
            p.open_rule = V().to_open_rule(open_rule);
            State s = blank_state();
            std::string error;
            if (!State::from_position(p, seed, s, &error)) throw py::value_error(error);
            return s;
          },
          py::arg("config"), py::arg("hand_index"), py::arg("hands"), py::arg("boneyard"),
          py::arg("line"), py::arg("scores"), py::arg("seat_to_move"), py::arg("open_rule"),
          py::arg("seed") = 0,
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
      .def(py::self == py::self)
      .def_property_readonly("config", &State::config)
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
            return PyView{s.view(seat), std::nullopt};
          },
          py::arg("seat"), "What `seat` may see now, and nothing more.")
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
          "hand ends, or the match with whole_match. Returns the plays made.")
      .def("__repr__", [](const State& s) {
        return "<State hand " + std::to_string(s.hand_index()) + ", seat to move " +
               std::to_string(s.seat_to_move()) + ", line " + std::to_string(s.line().size()) +
               " tiles>";
      });
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

void bind_view(py::module_& m) {
  py::class_<PyView>(m, "View",
                     "Everything one seat may see (docs/RULES.md §15): what choose_play gets, "
                     "and what State.view(seat) returns.")
      .def_static(
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
      .def_property_readonly("end_count", [](const PyView& v) { return v.view.line().count(); })
      .def_property_readonly("hand_sizes",
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
          "count_after",
          [](const PyView& v, py::handle play) {
            return count_after(v.view.line(), V().to_play(play));
          },
          py::arg("play"),
          "The count of the open ends if this seat made `play` now (docs/RULES.md §7).")
      .def(
          "points_after",
          [](const PyView& v, py::handle play) {
            return points_for_count(count_after(v.view.line(), V().to_play(play)));
          },
          py::arg("play"), "The points `play` would score now.")
      .def(
          "unseen", [](const PyView& v) { return V().tiles(v.view.unseen()); },
          "Every tile this seat cannot see: the other hands and the boneyard together.")
      .def_property_readonly(
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
          "(sdk/README.md has the layout).")
      .def("__eq__", [](const PyView& a, const PyView& b) { return a.view == b.view; })
      .def("__repr__", [](const PyView& v) {
        return "<View seat " + std::to_string(v.view.seat()) + ", hand " +
               std::to_string(v.view.hand_index()) + ", " + to_string(v.view.hand()) + ", line " +
               std::to_string(v.view.line().size()) + " tiles>";
      });
}

Event simple_event(EventKind kind, int seat) {
  Event e;
  e.kind = kind;
  e.seat = static_cast<int8_t>(seat);
  return e;
}

void bind_knowledge(py::module_& m) {
  py::class_<Knowledge>(m, "Knowledge",
                        "What one seat knows of the other hands from the public history "
                        "(allfives/core/knowledge.h). Feed it every event as the seat sees it.")
      .def(py::init(
               [](py::handle format, int seat) { return Knowledge(V().to_format(format), seat); }),
           py::arg("format"), py::arg("seat"))
      .def("observe", &Knowledge::observe, py::arg("event"), "A core Event as this seat saw it.")
      .def(
          "start_hand",
          [](Knowledge& k, int hand_index, py::handle rule, py::handle open_with) {
            const OpenRule r = V().to_open_rule(rule);
            k.start_hand(hand_index, r,
                         r == OpenRule::kWinnerChooses ? Tile{} : V().to_tile(open_with));
          },
          py::arg("hand_index"), py::arg("open_rule"), py::arg("open_with") = py::none())
      .def(
          "observe_play",
          [](Knowledge& k, int seat, py::handle play) {
            Event e = simple_event(EventKind::kPlay, seat);
            e.play = V().to_play(play);
            k.observe(e);
          },
          py::arg("seat"), py::arg("play"))
      .def(
          "observe_draw",
          [](Knowledge& k, int seat, int count) {
            Event e = simple_event(EventKind::kDraw, seat);
            e.count = static_cast<int16_t>(count);
            k.observe(e);
          },
          py::arg("seat"), py::arg("count"))
      .def(
          "observe_pass",
          [](Knowledge& k, int seat) { k.observe(simple_event(EventKind::kPass, seat)); },
          py::arg("seat"))
      .def_property_readonly("seat", &Knowledge::seat)
      .def_property_readonly("hand_index", &Knowledge::hand_index)
      .def("tracked_size", &Knowledge::tracked_size, py::arg("seat"))
      .def(
          "forbidden_for_all",
          [](const Knowledge& k, int seat) { return V().tiles(k.forbidden_for_all(seat)); },
          py::arg("seat"), "Tiles none of `seat`'s tiles can be.")
      .def(
          "groups",
          [](const Knowledge& k, int seat) {
            py::list out;
            for (int i = 0; i < k.num_groups(seat); ++i)
              out.append(
                  py::make_tuple(k.group(seat, i).count, V().tiles(k.group(seat, i).forbidden)));
            return out;
          },
          py::arg("seat"), "(count, forbidden tiles) per group of `seat`'s hand, oldest first.")
      .def("copy", [](const Knowledge& k) { return k; })
      .def("__copy__", [](const Knowledge& k) { return k; })
      .def(py::self == py::self);

  py::class_<WorldSampler>(m, "WorldSampler",
                           "Full states drawn uniformly among those consistent with a seat's "
                           "view and knowledge (allfives/core/resample.h).")
      .def(py::init([](const PyView& v, const Knowledge* k) { return WorldSampler(v.view, k); }),
           py::arg("view"), py::arg("knowledge") = nullptr)
      .def_property_readonly("ok", &WorldSampler::ok)
      .def_property_readonly("exact", &WorldSampler::exact)
      .def_property_readonly("count", &WorldSampler::count)
      .def(
          "sample", [](const WorldSampler& w, SplitMix64& rng) { return sample_or_raise(w, rng); },
          py::arg("rng"));
}

// A match with every seat's Knowledge kept up to date: what the environment (env.py) steps.
class Table {
 public:
  Table(const Config& config, uint64_t seed) : state_(blank_state()) { reset(config, seed); }

  void reset(const Config& config, uint64_t seed) {
    events_.clear();
    state_ = State::new_match(config, seed, &events_);
    for (int s = 0; s < num_players(config.format); ++s)
      knowledge_[s] = Knowledge(config.format, s);
    feed();
  }

  // Plays `action` for the seat to move. Returns 0, or 1 if a hand ended, 2 if the match did.
  int step(int action) {
    const int hand = state_.hand_index();
    events_.clear();
    apply_or_raise(state_, play_of_action(action), &events_);
    feed();
    if (state_.is_terminal()) return 2;
    return state_.hand_index() != hand ? 1 : 0;
  }

  const State& state() const { return state_; }
  const EventList& events() const { return events_; }
  const Knowledge& knowledge(int seat) const { return knowledge_[check(seat)]; }
  PyView view(int seat) const { return PyView{state_.view(check(seat)), knowledge_[seat]}; }
  Features observation(int seat) const {
    return encode(state_.view(check(seat)), &knowledge_[seat]);
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
};

void bind_table(py::module_& m) {
  py::class_<Table>(m, "Table",
                    "A match and every seat's knowledge of it, stepped by actions: the engine "
                    "of allfives_bot.env.")
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
      .def("legal_actions", [](const Table& t) { return actions_of(t.state().legal_plays()); })
      .def(
          "action_mask",
          [](const Table& t, int seat) {
            return mask_of(seat == t.state().seat_to_move() ? t.state().legal_plays() : PlayList{});
          },
          py::arg("seat"),
          "bytes of NUM_ACTIONS: 1 for each legal action of `seat` (all 0 unless it is to move).")
      .def(
          "observation", [](const Table& t, int seat) { return to_array(t.observation(seat)); },
          py::arg("seat"))
      .def("view", &Table::view, py::arg("seat"))
      .def("knowledge", &Table::knowledge, py::arg("seat"))
      .def(
          "events", [](const Table& t) { return events_of(t.events()); },
          "Every event of the last step, the full truth (for logs, never for a seat).");
}

void bind_batch(py::module_& m) {
  m.def(
      "play_matches",
      [](py::handle config, std::vector<std::string> policies, int64_t count, uint64_t seed,
         int threads, int epsilon_permille) {
        const Config c = to_config(config);
        if (static_cast<int>(policies.size()) != num_players(c.format))
          throw py::value_error("one policy per seat: " + std::to_string(num_players(c.format)));
        std::vector<Policy> ps;
        for (const std::string& p : policies) ps.push_back(to_policy(p));
        if (count < 0) throw py::value_error("count must be >= 0");
        BatchResult r;
        {
          py::gil_scoped_release unlocked;
          r = play_matches(c, ps, count, seed, threads, epsilon_permille);
        }
        const int sides = num_sides(c.format);
        py::dict out;
        out["matches"] = r.matches;
        out["plays"] = r.plays;
        out["hands"] = r.hands;
        out["draws"] = r.draws;
        py::list wins, points;
        for (int s = 0; s < sides; ++s) {
          wins.append(r.wins[s]);
          points.append(r.points[s]);
        }
        out["wins"] = wins;
        out["points"] = points;
        return out;
      },
      py::arg("config"), py::arg("policies"), py::arg("count"), py::arg("seed") = 0,
      py::arg("threads") = 1, py::arg("epsilon_permille") = 0,
      "Plays `count` matches in C++, seat s playing policies[s] (\"greedy\" or \"random\"), "
      "match i dealt from derive_seed(seed, i). Returns matches, plays, hands, draws, and wins "
      "and summed final points per side; the same for any `threads`.");
}

}  // namespace
}  // namespace allfives::python

PYBIND11_MODULE(_core, m) {
  using namespace allfives::python;
  m.doc() =
      "The All Fives rules core (sdk/core), the referee's own code, bound for Python. Use it "
      "through allfives_bot.core; import allfives_bot first.";
  bind_values(m);
  bind_rng(m);
  bind_config(m);
  bind_event(m);
  bind_knowledge(m);
  bind_view(m);
  bind_state(m);
  bind_table(m);
  bind_batch(m);
}
