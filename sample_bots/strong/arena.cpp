// strong_arena: plays the strong bot's search against greedy or random (or another setting of
// itself) in one process, without the referee, to compare ideas quickly. The referee's
// tournaments give the official figures; this tool only feeds the bots what the SDK would
// (the hand start with the seat's own tiles, public plays, draw counts, passes) and plays
// mirrored deals: deal sequence d is played twice, with the seats swapped.
//
//   strong_arena --a strong:sims=400 --b greedy --deals 100 -j 2
//
// A bot spec is greedy, random, heavy, or strong[:key=value,...] with keys sims, ms, eps,
// util (win|points), voids (0|1), threads, engine (v1|v2), k (opponent-model candidates),
// beta (its sharpness), exact (tiles in hands at which worlds are solved, 0: never).
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "allfives/core/greedy.h"
#include "allfives/core/rng.h"
#include "search.h"

namespace {

using namespace allfives;

class Greedy final : public bot::Bot {
 public:
  Play choose_play(const View& view, const bot::Clock&) override {
    return greedy_play(view.line(), view.legal_plays());
  }
};

class Heavy final : public bot::Bot {
 public:
  Play choose_play(const View& view, const bot::Clock&) override {
    const PlayList& legal = view.legal_plays();
    Play best = legal[0];
    for (int i = 1; i < legal.size(); ++i) {
      const Play p = legal[i];
      if (p.tile.pips() > best.tile.pips() ||
          (p.tile.pips() == best.tile.pips() &&
           points_after(view.line(), p) > points_after(view.line(), best)))
        best = p;
    }
    return best;
  }
};

class Random final : public bot::Bot {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}
  Play choose_play(const View& view, const bot::Clock&) override {
    const PlayList& legal = view.legal_plays();
    return legal[static_cast<int>(rng_.below(static_cast<uint32_t>(legal.size())))];
  }

 private:
  SplitMix64 rng_;
};

struct Spec {
  std::string kind;
  strong::SearchConfig config;
};

Spec parse_spec(const std::string& text) {
  Spec spec;
  const size_t colon = text.find(':');
  spec.kind = text.substr(0, colon);
  if (spec.kind != "strong" && spec.kind != "greedy" && spec.kind != "random" &&
      spec.kind != "heavy")
    throw CLI::ValidationError("bot spec", "unknown bot " + spec.kind);
  spec.config.simulations = 200;
  if (colon == std::string::npos) return spec;
  std::stringstream rest(text.substr(colon + 1));
  std::string item;
  while (std::getline(rest, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw CLI::ValidationError("bot spec", "expected key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "sims") {
      spec.config.simulations = std::stoi(value);
    } else if (key == "ms") {
      spec.config.simulations = 0;
      spec.config.budget = std::chrono::milliseconds(std::stoi(value));
    } else if (key == "eps") {
      spec.config.epsilon_permille = std::stoi(value);
    } else if (key == "util") {
      spec.config.utility =
          value == "points" ? strong::Utility::kPoints : strong::Utility::kWinProbability;
    } else if (key == "voids") {
      spec.config.use_knowledge = value != "0";
    } else if (key == "engine") {
      spec.config.engine = value == "v1" ? strong::Engine::kV1 : strong::Engine::kV2;
    } else if (key == "k") {
      spec.config.candidates = std::stoi(value);
    } else if (key == "beta") {
      spec.config.model_beta = std::stod(value);
    } else if (key == "deals") {
      spec.config.count_deals = value != "0";
    } else if (key == "tree") {
      spec.config.tree = value != "0";
    } else if (key == "c") {
      spec.config.exploration = std::stod(value);
    } else if (key == "exact") {
      spec.config.exact_tiles = std::stoi(value);
    } else if (key == "threads") {
      spec.config.threads = std::stoi(value);
    } else {
      throw CLI::ValidationError("bot spec", "unknown key " + key);
    }
  }
  return spec;
}

std::unique_ptr<bot::Bot> make_bot(const Spec& spec, const bot::MatchInfo& info) {
  if (spec.kind == "greedy") return std::make_unique<Greedy>();
  if (spec.kind == "heavy") return std::make_unique<Heavy>();
  if (spec.kind == "random") return std::make_unique<Random>(info.seed);
  return std::make_unique<strong::StrongBot>(info, spec.config);
}

struct MatchResult {
  int winner_seat = -1;
  int decisions_a = 0;
  double seconds_a = 0;
};

// Seat `a_seat` plays spec a, the other seat spec b (2 players).
MatchResult play_match(const Spec& a, const Spec& b, int a_seat, uint64_t match_seed,
                       uint64_t bot_seed) {
  const Config config = Config::standard(Format::kTwoPlayers);
  std::vector<std::unique_ptr<bot::Bot>> bots;
  for (int seat = 0; seat < 2; ++seat) {
    bot::MatchInfo info;
    info.match_id = std::to_string(match_seed);
    info.config = config;
    info.seat = seat;
    info.side = seat;
    info.num_players = 2;
    info.num_sides = 2;
    info.move_time = std::chrono::milliseconds(1000);
    info.time_bank = std::chrono::milliseconds(5000);
    info.seed = derive_seed(bot_seed, match_seed * 2 + static_cast<uint64_t>(seat));
    bots.push_back(make_bot(seat == a_seat ? a : b, info));
    bots.back()->on_match_start(info);
  }
  EventList events;
  const auto deliver = [&] {
    for (const Event& e : events) {
      for (int seat = 0; seat < 2; ++seat) {
        if (e.kind == EventKind::kHandStart) {
          bots[seat]->on_hand_start(bot::hand_start_info(e, seat));
        } else if (e.kind == EventKind::kPlay || e.kind == EventKind::kDraw ||
                   e.kind == EventKind::kPass) {
          bots[seat]->on_event(seen_by(e, seat));
        }
      }
    }
    events.clear();
  };
  State state = State::new_match(config, match_seed, &events);
  deliver();
  MatchResult result;
  while (!state.is_terminal()) {
    const int seat = state.seat_to_move();
    const View view = state.view(seat);
    const auto start = std::chrono::steady_clock::now();
    const bot::Clock clock{start, std::chrono::milliseconds(1000), std::chrono::milliseconds(5000)};
    const Play play = bots[seat]->choose_play(view, clock);
    if (seat == a_seat) {
      ++result.decisions_a;
      result.seconds_a +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (state.apply(play, &events) != PlayError::kNone) {
      std::fprintf(stderr, "illegal play %s by seat %d\n", to_string(play).c_str(), seat);
      result.winner_seat = 1 - seat;
      return result;
    }
    deliver();
  }
  result.winner_seat = state.outcome().winner_side;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("strong_arena: the strong bot's search against another bot, in one process");
  std::string a_text = "strong", b_text = "greedy";
  int deals = 50, jobs = 2;
  uint64_t seed = 1;
  app.add_option("--a", a_text, "The bot measured (greedy, random, heavy, strong[:k=v,...])");
  app.add_option("--b", b_text, "Its opponent");
  app.add_option("--deals", deals, "Deal sequences; each is played twice, seats swapped");
  app.add_option("-j", jobs, "Matches at once");
  app.add_option("--seed", seed, "Base seed of the deals and the bots");
  CLI11_PARSE(app, argc, argv);
  Spec a, b;
  try {
    a = parse_spec(a_text);
    b = parse_spec(b_text);
  } catch (const CLI::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }

  std::atomic<int> next{0};
  std::mutex mutex;
  int wins = 0, losses = 0, draws = 0, decisions = 0;
  double seconds = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto worker = [&] {
    while (true) {
      const int m = next.fetch_add(1);
      if (m >= 2 * deals) return;
      const uint64_t match_seed = derive_seed(seed, static_cast<uint64_t>(m / 2));
      const int a_seat = m % 2;
      const MatchResult r = play_match(a, b, a_seat, match_seed, seed);
      std::lock_guard<std::mutex> lock(mutex);
      if (r.winner_seat == a_seat)
        ++wins;
      else if (r.winner_seat < 0)
        ++draws;
      else
        ++losses;
      decisions += r.decisions_a;
      seconds += r.seconds_a;
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int j = 0; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  }
  const int n = wins + losses + draws;
  const double p = (wins + 0.5 * draws) / n;
  // Wilson score interval, 95%.
  const double z = 1.96, denom = 1 + z * z / n;
  const double centre = (p + z * z / (2 * n)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / denom;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%s vs %s: %d matches, W %d L %d D %d, score %.1f%% [%.1f%%, %.1f%%], "
      "%.1f ms/decision of A, %.0f s\n",
      a_text.c_str(), b_text.c_str(), n, wins, losses, draws, 100 * p, 100 * (centre - half),
      100 * (centre + half), decisions ? 1000 * seconds / decisions : 0.0, wall);
  return 0;
}
