// The engine (sdk/engine) for Python: every legal play of a decision valued by the strong bot's
// search, for researchers who want a reference evaluation or a strong opponent in Python.
#include <pybind11/pybind11.h>

#include <algorithm>

#include "allfives/engine/evaluate.h"
#include "bindings.h"

namespace allfives::python {

void bind_engine(py::module_& m) {
  m.def(
      "evaluate",
      [](const PyView& v, int worlds, uint64_t seed, int candidates, double model_beta,
         int epsilon_permille, int exact_tiles) {
        if (worlds < 1) throw py::value_error("worlds must be >= 1");
        if (candidates < 1) throw py::value_error("candidates must be >= 1");
        if (v.view.seat_to_move() != v.view.seat())
          throw py::value_error("the view is not at its seat's own decision");
        engine::EvalConfig config;
        config.worlds = worlds;
        config.seed = seed;
        config.candidates = candidates;
        config.model.beta = model_beta;
        config.epsilon_permille = std::clamp(epsilon_permille, 0, 1000);
        config.exact_tiles = std::max(0, exact_tiles);
        engine::Evaluation e;
        {
          py::gil_scoped_release unlocked;
          engine::HandSolver solver;
          engine::evaluate(v.view, v.knowledge ? &*v.knowledge : nullptr, config, solver, e);
        }
        py::list options;
        for (const engine::OptionValue& o : e.options) {
          py::dict d;
          d["play"] = V().play(o.play);
          d["points"] = o.points;
          d["points_se"] = o.points_se;
          d["win"] = o.win;
          d["win_se"] = o.win_se;
          options.append(d);
        }
        py::dict out;
        out["options"] = options;
        out["exact"] = e.exact;
        out["worlds"] = e.worlds;
        out["solved_worlds"] = e.solved_worlds;
        return out;
      },
      py::arg("view"), py::arg("worlds") = 400, py::arg("seed") = 0, py::arg("candidates") = 8,
      py::arg("model_beta") = 0.3, py::arg("epsilon_permille") = 100, py::arg("exact_tiles") = 8,
      "Values every legal play of `view` (at its own decision) as the strong bot's search "
      "does (allfives/engine/evaluate.h): `worlds` worlds sampled from what the seat has seen "
      "(its knowledge when the view carries it), each kept among `candidates` draws by the "
      "opponent model, rolled out or solved exactly late in the hand. Returns options (play, "
      "points, points_se, win, win_se per legal play, in legal order), exact, worlds and "
      "solved_worlds; the same for the same arguments.");
}

}  // namespace allfives::python
