#include "search.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <thread>

namespace allfives::strong {

// ---------------------------------------------------------------------------------------------
// Search

namespace {

constexpr double kScale = 1e6;  // utilities are summed as integers in millionths

struct Totals {
  std::vector<int64_t> sums;
  int worlds = 0;
  int strict = 0;
};

class Searcher {
 public:
  Searcher(const View& view, const Knowledge* knowledge, const SearchConfig& config, uint64_t seed)
      : view_(view), sampler_(view, knowledge), config_(config), seed_(seed) {
    const Format f = view.config().format;
    side_ = view.side();
    sides_ = num_sides(f);
    if (config.utility == Utility::kWinProbability && sides_ == 2)
      table_ = &WinTable::for_config(view.config());
    for (int s = 0; s < sides_; ++s) root_scores_[s] = view.score(s);
  }

  // Plays world `index` for every candidate and adds the utilities to `totals`.
  void world(uint64_t index, Totals& totals) const {
    SplitMix64 rng(derive_seed(seed_, index));
    Position pos;
    if (!sampler_.sample(rng, pos)) return;
    State base = blank_;
    if (!State::from_position(pos, rng.next(), base, nullptr)) return;
    const uint64_t rollout_seed = rng.next();
    const PlayList& legal = view_.legal_plays();
    const int hand = base.hand_index();
    for (int c = 0; c < legal.size(); ++c) {
      SplitMix64 r(rollout_seed);  // the same rollout randomness for every candidate
      State s = base;
      s.apply(legal[c]);
      while (!s.is_terminal() && s.hand_index() == hand)
        s.apply(rollout_pick(s, r, config_.epsilon_permille));
      totals.sums[c] += std::llround(utility(s) * kScale);
    }
    ++totals.worlds;
    if (sampler_.exact()) ++totals.strict;
  }

 private:
  double utility(const State& s) const {
    if (s.is_terminal()) {
      const int w = s.outcome().winner_side;
      const double win = w == side_ ? 1.0 : w < 0 ? 0.5 : 0.0;
      if (config_.utility == Utility::kWinProbability) return win;
      return (win - 0.5) * 200.0 + points(s);
    }
    if (table_) return table_->p_win(s.score(side_), s.score(1 - side_));
    return points(s);
  }

  // My side's points since the root minus the other sides' mean.
  double points(const State& s) const {
    double others = 0;
    for (int side = 0; side < sides_; ++side)
      if (side != side_) others += s.score(side) - root_scores_[side];
    return (s.score(side_) - root_scores_[side_]) - others / (sides_ - 1);
  }

  const View& view_;
  // State has no public constructor: worlds are built by from_position into a copy of this.
  const State blank_ = State::new_match(Config::standard(Format::kTwoPlayers), 0);
  const WorldSampler sampler_;  // built once per decision, sampled once per world
  const SearchConfig& config_;
  uint64_t seed_;
  int side_ = 0;
  int sides_ = 2;
  const WinTable* table_ = nullptr;
  std::array<int, kMaxPlayers> root_scores_{};
};

engine::OpponentModel model_of(const SearchConfig& config) {
  engine::OpponentModel m;
  m.beta = config.model_beta;
  m.count_deals = config.count_deals;
  return m;
}

engine::StopAt stop_at(std::chrono::steady_clock::time_point end) {
  return [end](int) { return std::chrono::steady_clock::now() >= end; };
}

engine::EvalConfig eval_config(const SearchConfig& config, uint64_t seed) {
  engine::EvalConfig e;
  e.seed = seed;
  e.epsilon_permille = config.epsilon_permille;
  e.exact_tiles = config.exact_tiles;
  // A seat that knows everything is solved within a bounded effort; past it, sampled worlds.
  e.exact_node_budget = 300000;
  e.candidates = config.candidates;
  e.solve_only =
      config.utility == Utility::kWinProbability ? engine::Utility::kWin : engine::Utility::kPoints;
  e.model = model_of(config);
  return e;
}

// v2: the engine's evaluation, its worlds split between the threads by index, so with a fixed
// count the worlds (and the choice) do not depend on the thread count.
void search_v2(const View& view, const Knowledge* knowledge, const SearchConfig& config,
               uint64_t seed, std::chrono::steady_clock::time_point end, Workspace& ws,
               SearchResult& result) {
  const int threads = std::max(1, config.threads);
  if (ws.solvers.size() < static_cast<size_t>(threads)) ws.solvers.resize(threads);
  ws.evaluations.resize(static_cast<size_t>(threads));
  const bool fixed = config.simulations > 0;
  const auto run = [&](int t) {
    engine::EvalConfig e = eval_config(config, seed);
    const int per = fixed ? config.simulations / threads : 1 << 30;
    e.first_world = fixed ? t * per : t << 24;
    e.worlds = fixed && t == threads - 1 ? config.simulations - t * per : per;
    engine::evaluate(view, knowledge, e, ws.solvers[t], ws.evaluations[t], stop_at(end));
  };
  {
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(run, t);
    run(0);
  }
  const bool win = config.utility == Utility::kWinProbability;
  const engine::Utility u = win ? engine::Utility::kWin : engine::Utility::kPoints;
  const int n = view.legal_plays().size();
  std::vector<double> sums(static_cast<size_t>(n), 0.0);
  // Summed world by world in world order, so the thread count changes no bit of the means.
  for (const engine::Evaluation& ev : ws.evaluations) {
    const std::vector<double>& v =
        u == engine::Utility::kWin ? ev.win_by_world : ev.points_by_world;
    for (int w = 0; w < ev.worlds; ++w)
      for (int c = 0; c < n; ++c) sums[c] += v[static_cast<size_t>(w) * n + c];
    result.worlds += ev.worlds;
    if (ev.knowledge_used) result.strict_worlds += ev.worlds;
    if (ev.exact) break;  // every thread solved the same one world
  }
  if (result.worlds == 0) return;
  int best = 0;
  for (int c = 0; c < n; ++c) {
    result.means[c] = sums[c] / result.worlds;
    if (result.means[c] > result.means[best]) best = c;
  }
  result.play = view.legal_plays()[best];
}

// Whether the engine solves this decision's worlds exactly (then the flat evaluation decides).
bool late(const View& view, const SearchConfig& config) {
  int tiles = 0;
  for (int seat = 0; seat < view.num_players(); ++seat) tiles += view.hand_size(seat);
  return num_sides(view.config().format) != 2 ||
         (tiles <= config.exact_tiles &&
          view.boneyard_size() <= engine::EvalConfig{}.exact_boneyard);
}

// v2 with a tree: information-set MCTS, one thread.
void tree_v2(const View& view, const Knowledge* knowledge, const SearchConfig& config,
             uint64_t seed, std::chrono::steady_clock::time_point end, SearchResult& result) {
  engine::TreeConfig t;
  t.seed = seed;
  t.iterations = config.simulations > 0 ? config.simulations : 1 << 30;
  t.exploration = config.exploration;
  t.epsilon_permille = config.epsilon_permille;
  t.candidates = config.candidates;
  t.model = model_of(config);
  const engine::TreeResult r = engine::tree_search(view, knowledge, t, stop_at(end));
  if (!r.ok) return;
  result.worlds = r.iterations;
  result.means = r.means;
  result.play = view.legal_plays()[r.best];
}

}  // namespace

SearchResult search(const View& view, const Knowledge* knowledge, const SearchConfig& config,
                    uint64_t seed, std::chrono::steady_clock::time_point stop,
                    std::chrono::steady_clock::time_point hard_stop, Workspace* workspace) {
  using Clock = std::chrono::steady_clock;
  SearchResult result;
  const PlayList& legal = view.legal_plays();
  const int n = legal.size();
  result.play = legal[0];
  result.means.assign(static_cast<size_t>(n), 0.0);
  if (n == 1) return result;
  if (Clock::now() >= hard_stop) {
    result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }

  const bool fixed = config.simulations > 0;
  if (config.engine == Engine::kV2 && config.tree && !late(view, config)) {
    tree_v2(view, config.use_knowledge ? knowledge : nullptr, config, seed,
            fixed ? hard_stop : std::min(stop, hard_stop), result);
    if (result.worlds == 0) result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }
  if (config.engine == Engine::kV2) {
    Workspace local;
    search_v2(view, config.use_knowledge ? knowledge : nullptr, config, seed,
              fixed ? hard_stop : std::min(stop, hard_stop), workspace ? *workspace : local,
              result);
    if (result.worlds == 0) result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }
  const Searcher searcher(view, config.use_knowledge ? knowledge : nullptr, config, seed);
  const uint64_t limit = fixed ? static_cast<uint64_t>(config.simulations) : (1ull << 40);
  const Clock::time_point end = fixed ? hard_stop : std::min(stop, hard_stop);
  std::atomic<uint64_t> next{0};
  const auto work = [&](Totals& totals) {
    totals.sums.assign(static_cast<size_t>(n), 0);
    while (true) {
      const uint64_t i = next.fetch_add(1);
      if (i >= limit) break;
      // The first world is always searched (unless the hard stop passed), so an answer
      // never rests on nothing.
      if (i > 0 && Clock::now() >= end) break;
      searcher.world(i, totals);
    }
  };
  const int threads = std::max(1, config.threads);
  std::vector<Totals> totals(static_cast<size_t>(threads));
  {
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back([&, t] { work(totals[t]); });
    work(totals[0]);
  }
  std::vector<int64_t> sums(static_cast<size_t>(n), 0);
  for (const Totals& t : totals) {
    for (int c = 0; c < n; ++c) sums[c] += t.sums[c];
    result.worlds += t.worlds;
    result.strict_worlds += t.strict;
  }
  if (result.worlds == 0) {
    result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }
  int best = 0;
  for (int c = 0; c < n; ++c) {
    result.means[c] = static_cast<double>(sums[c]) / kScale / result.worlds;
    if (sums[c] > sums[best]) best = c;
  }
  result.play = legal[best];
  return result;
}

// ---------------------------------------------------------------------------------------------
// The bot

namespace {

// `value` rounded and clamped into lo..hi.
int rounded(double value, int lo, int hi) {
  return static_cast<int>(
      std::llround(std::clamp(value, static_cast<double>(lo), static_cast<double>(hi))));
}

SearchConfig config_for_match(const bot::MatchInfo& info, const SearchConfig& config) {
  std::vector<std::string> unknown;
  SearchConfig c = with_params(config, info.params, &unknown);
  if (!unknown.empty()) {
    std::string line =
        std::string("strong: match ") + info.match_id + ": ignoring parameters it does not read:";
    for (const std::string& name : unknown) line.append(" ").append(name);
    line.append(
        " (it reads epsilon, exploration, model_beta, candidates, exact_tiles, "
        "simulations, budget_ms)\n");
    std::fputs(line.c_str(), stderr);
  }
  return c;
}

}  // namespace

SearchConfig with_params(SearchConfig config, const std::map<std::string, double>& params,
                         std::vector<std::string>* unknown) {
  for (const auto& [name, v] : params) {
    if (!std::isfinite(v)) {
      if (unknown) unknown->push_back(name);
    } else if (name == "epsilon") {
      config.epsilon_permille = rounded(v * 1000.0, 0, 1000);
    } else if (name == "exploration") {
      config.exploration = std::clamp(v, 0.0, 10.0);
    } else if (name == "model_beta") {
      config.model_beta = std::clamp(v, 0.0, 10.0);
    } else if (name == "candidates") {
      config.candidates = rounded(v, 1, 256);
    } else if (name == "exact_tiles") {
      config.exact_tiles = rounded(v, 0, 28);
    } else if (name == "simulations") {
      config.simulations = rounded(v, 0, 10000000);
    } else if (name == "budget_ms") {
      config.budget = std::chrono::milliseconds(rounded(v, 1, 600000));
    } else if (unknown) {
      unknown->push_back(name);
    }
  }
  return config;
}

StrongBot::StrongBot(const bot::MatchInfo& info, const SearchConfig& config)
    : config_(config_for_match(info, config)), seed_(info.seed) {
  knowledge_ = Knowledge(info.config.format, info.seat);
  // Build the win table now (tens of milliseconds, once per process), not on the clock of the
  // first decision.
  if (config_.utility == Utility::kWinProbability && num_sides(info.config.format) == 2)
    WinTable::for_config(info.config);
}

Play StrongBot::choose_play(const View& view, const bot::Clock& clock) {
  using namespace std::chrono;
  const uint64_t seed = derive_seed(seed_, decisions_++);
  // The answer is late after hard_deadline(); keep a margin for the transport and for a busy
  // machine. Without any limit from the referee, the budget alone decides.
  const milliseconds allowed = clock.move_time + clock.bank_left;
  steady_clock::time_point hard_stop;
  steady_clock::time_point stop = clock.received + config_.budget;
  if (allowed > milliseconds(0)) {
    const milliseconds margin = std::max(milliseconds(30), clock.move_time / 10);
    hard_stop = clock.hard_deadline() - margin;
    // The budget, but never past the move time: the bank is for emergencies only.
    if (clock.move_time > milliseconds(0))
      stop = std::min(stop, clock.received + clock.move_time - margin);
  } else {
    hard_stop = clock.received + 4 * config_.budget + seconds(1);
  }
  last_ = search(view, &knowledge_, config_, seed, stop, hard_stop, &workspace_);
  return last_.play;
}

}  // namespace allfives::strong
