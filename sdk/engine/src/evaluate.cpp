#include "allfives/engine/evaluate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/engine/policy.h"
#include "worlds.h"

namespace allfives::engine {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<double>& samples(const Evaluation& e, Utility u) {
  return u == Utility::kPoints ? e.points_by_world : e.win_by_world;
}

// Mean and standard error of f(world) over the worlds.
template <typename F>
void mean_se(int worlds, F f, double& mean, double& se) {
  double sum = 0;
  for (int w = 0; w < worlds; ++w) sum += f(w);
  mean = worlds > 0 ? sum / worlds : 0;
  if (worlds < 2) {
    se = kInf;
    return;
  }
  double squares = 0;
  for (int w = 0; w < worlds; ++w) squares += (f(w) - mean) * (f(w) - mean);
  se = std::sqrt(squares / (worlds - 1) / worlds);
}

}  // namespace

double Evaluation::mean(int option, Utility utility) const {
  const OptionValue& o = options[static_cast<size_t>(option)];
  return utility == Utility::kPoints ? o.points : o.win;
}

double Evaluation::se(int option, Utility utility) const {
  const OptionValue& o = options[static_cast<size_t>(option)];
  return utility == Utility::kPoints ? o.points_se : o.win_se;
}

double Evaluation::difference_se(int a, int b, Utility utility) const {
  if (exact) return 0;
  const std::vector<double>& v = samples(*this, utility);
  const size_t n = options.size();
  double mean = 0, se = 0;
  mean_se(
      worlds, [&](int w) { return v[w * n + a] - v[w * n + b]; }, mean, se);
  return se;
}

Evaluation evaluate(const View& view, const Knowledge* knowledge, const EvalConfig& config,
                    HandSolver& solver) {
  Evaluation out;
  evaluate(view, knowledge, config, solver, out);
  return out;
}

void evaluate(const View& view, const Knowledge* knowledge, const EvalConfig& config,
              HandSolver& solver, Evaluation& out, const StopAt& stop) {
  const PlayList& legal = view.legal_plays();
  const int n = legal.size();
  out.options.resize(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) out.options[c] = OptionValue{legal[c], 0, kInf, 0, kInf};
  out.exact = false;
  out.worlds = 0;
  out.solved_worlds = 0;
  out.knowledge_used = false;
  out.points_by_world.clear();
  out.win_by_world.clear();
  if (n == 0 || view.seat_to_move() != view.seat()) return;
  const WorldSampler sampler(view, knowledge);
  if (!sampler.ok()) return;
  out.knowledge_used = knowledge != nullptr && sampler.exact();

  const Format format = view.config().format;
  const bool two_sides = num_sides(format) == 2;
  int tiles_in_hands = 0;
  for (int seat = 0; seat < view.num_players(); ++seat) tiles_in_hands += view.hand_size(seat);
  // State has no public constructor: every world is sampled into this one.
  State world = State::new_match(view.config(), 0);
  std::vector<PlayValue> solved_points, solved_win;
  solved_points.reserve(PlayList::kCapacity);
  solved_win.reserve(PlayList::kCapacity);
  const auto solve_world = [&](int64_t budget) {
    return solver.solve(world, Utility::kPoints, budget, solved_points) &&
           solver.solve(world, Utility::kWin, budget, solved_win);
  };

  // The seat knows everything: one world, solved exactly for the seat itself.
  if (two_sides && sampler.count() == 1 && view.boneyard_size() == 0) {
    SplitMix64 rng(config.seed);
    if (sampler.sample(rng, world) && solve_world(config.exact_node_budget)) {
      out.exact = true;
      out.worlds = 1;
      out.solved_worlds = 1;
      for (int c = 0; c < n; ++c) {
        out.options[c] = OptionValue{legal[c], solved_points[c].value, 0, solved_win[c].value, 0};
        out.points_by_world.push_back(solved_points[c].value);
        out.win_by_world.push_back(solved_win[c].value);
      }
      return;
    }
  }

  const int worlds = std::max(1, config.worlds);
  const bool solve_worlds = two_sides && tiles_in_hands <= config.exact_tiles &&
                            view.boneyard_size() <= config.exact_boneyard;
  const Scorer scorer(view);
  WorldDraw draws(view, knowledge, sampler, config.candidates, config.model, world);
  for (int w = 0; w < worlds; ++w) {
    if (w > 0 && stop && stop(w)) break;
    SplitMix64 rng(derive_seed(config.seed, static_cast<uint64_t>(config.first_world + w)));
    if (!draws.draw(rng, world)) break;
    const uint64_t rollout_seed = rng.next();
    out.points_by_world.resize(static_cast<size_t>(w + 1) * n);
    out.win_by_world.resize(static_cast<size_t>(w + 1) * n);
    double* points = &out.points_by_world[static_cast<size_t>(w) * n];
    double* win = &out.win_by_world[static_cast<size_t>(w) * n];
    const bool solved =
        solve_worlds &&
        (config.solve_only
             ? solver.solve(world, *config.solve_only, config.world_node_budget,
                            *config.solve_only == Utility::kPoints ? solved_points : solved_win)
             : solve_world(config.world_node_budget));
    if (!solved || config.solve_only) {
      const int hand = world.hand_index();
      for (int c = 0; c < n; ++c) {
        SplitMix64 r(rollout_seed);  // the same rollout randomness for every option
        State s = world;
        s.apply(legal[c]);
        while (!s.is_terminal() && s.hand_index() == hand)
          s.apply(rollout_pick(s, r, config.epsilon_permille));
        points[c] = scorer.points(s);
        win[c] = scorer.win(s);
      }
    }
    if (solved) {
      const bool both = !config.solve_only;
      for (int c = 0; c < n; ++c) {
        if (both || *config.solve_only == Utility::kPoints) points[c] = solved_points[c].value;
        if (both || *config.solve_only == Utility::kWin) win[c] = solved_win[c].value;
      }
      ++out.solved_worlds;
    }
    ++out.worlds;
  }

  for (int c = 0; c < n; ++c) {
    OptionValue& o = out.options[c];
    const auto at = [&](const std::vector<double>& v) {
      return [&v, c, n](int w) { return v[static_cast<size_t>(w) * n + c]; };
    };
    mean_se(out.worlds, at(out.points_by_world), o.points, o.points_se);
    mean_se(out.worlds, at(out.win_by_world), o.win, o.win_se);
  }
}

}  // namespace allfives::engine
