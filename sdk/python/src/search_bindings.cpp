// What a search or a learner needs besides a state: Knowledge, WorldSampler and play_matches
// (table_bindings.cpp has the Table the environment steps).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"

namespace allfives::python {

namespace {

Event simple_event(EventKind kind, int seat) {
  Event e;
  e.kind = kind;
  e.seat = static_cast<int8_t>(seat);
  return e;
}

}  // namespace

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

}  // namespace allfives::python
