// allfives_bot._core: the rules core (sdk/core) bound to Python with pybind11, the very code
// the referee scores with. Python sees the SDK's own value types (Tile, Play, the enums from
// proto/; values.h), a copyable State, per-seat Views with the SDK's field names, what a seat
// knows (Knowledge) and the worlds it may be in (WorldSampler), built-in policies run in C++
// (State.play_out, play_matches) and the Table the in-process environment steps.
//
// Reference: the docstrings below and sdk/docs/rules-core.md.
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <span>
#include <string>

#include "allfives/core/deal.h"
#include "allfives/core/greedy.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"
#include "bindings.h"
#include "fast_call.h"
#include "observation.h"
#include "simulate.h"
#include "values.h"

namespace allfives::python {
namespace {

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

// SplitMix64.below(bound), a fast call (fast_call.h): a search or a learner draws at every play.
PyObject* rng_below(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return guarded([&] {
    py::object bound =
        py::reinterpret_steal<py::object>(PyNumber_Index(only_arg(args, nargs, kw, "bound")));
    if (!bound) throw py::error_already_set();
    const unsigned long long b = PyLong_AsUnsignedLongLong(bound.ptr());
    if (b == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("below(bound) needs 0 < bound < 2**64");
    }
    if (b == 0) throw py::value_error("below(bound) needs bound > 0");
    SplitMix64& r = self_of<SplitMix64>(self);
    return PyLong_FromUnsignedLongLong(b <= UINT32_MAX ? r.below(static_cast<uint32_t>(b))
                                                       : r.below64(b));
  });
}

PyMethodDef kBelow = {"below", as_cfunction(rng_below), METH_FASTCALL | METH_KEYWORDS,
                      "below(bound): uniform in [0, bound), by rejection."};

void bind_rng(py::module_& m) {
  py::class_<SplitMix64> rng(m, "SplitMix64",
                             "The project's random numbers (allfives/core/rng.h), bit for bit.");
  rng.def(py::init<uint64_t>(), py::arg("seed"))
      .def("next", &SplitMix64::next, "The next 64-bit output.")
      .def("__copy__", [](const SplitMix64& r) { return r; });
  add_fast_method(rng, &kBelow);
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

// An event's fields that say why and with what: the opening rule, the ends' reasons, the hands
// and the values of a hand's or the match's end.
void bind_event_outcomes(py::class_<Event>& event) {
  event
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
          "hand_end: pips left per seat; match_end: final score per side");
}

void bind_event(py::module_& m) {
  py::class_<Event> event(m, "Event",
                          "One event of a step, as the core reports it (allfives/core/events.h). "
                          "Which fields mean something depends on `kind`.");
  bind_event_outcomes(event);
  event
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
      .def_property_readonly(
          "drawn",
          [](const Event& e) -> py::object {
            if (e.kind != EventKind::kDraw) return py::none();
            // Another seat's eyes (seen_by) hold no tiles, only the count.
            if (e.tiles.empty()) return py::tuple();
            const std::span<const Tile> order = e.drawn_in_order();
            py::tuple out(order.size());
            for (size_t i = 0; i < order.size(); ++i) out[i] = V().tile(order[i]);
            return out;
          },
          "draw: the tiles drawn in drawing order (only in the drawer's eyes, else ())")
      .def_property_readonly(
          "ends",
          [](const Event& e) -> py::object {
            if (e.kind != EventKind::kPlay) return py::none();
            return py::make_tuple(V().line_end(e.ends[0]), V().line_end(e.ends[1]));
          },
          "play: the line's open ends (left, right) right after it, even when it ended the hand")
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
  bind_engine(m);
}
