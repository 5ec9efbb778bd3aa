#include "ladder/matchmaking.h"

#include <algorithm>
#include <cmath>

namespace allfives::referee {
namespace {

std::pair<int64_t, int64_t> pair_of(int64_t a, int64_t b) {
  return {std::min(a, b), std::max(a, b)};
}

double difference_variance(const MatchmakingInput& in, const LadderEntrant& a,
                           const LadderEntrant& b) {
  if (a.index < 0 || b.index < 0) return kUnratedVariance;
  const auto i = static_cast<size_t>(a.index), j = static_cast<size_t>(b.index);
  const auto& c = in.covariance;
  if (i >= c.size() || j >= c.size()) return kUnratedVariance;
  return std::max(0.0, c[i][i] + c[j][j] - 2 * c[i][j]);
}

// Opponents at evenly spaced ranks among `others` (sorted by rating, best first).
std::vector<int64_t> spread(std::vector<LadderEntrant> others, size_t want) {
  std::stable_sort(others.begin(), others.end(),
                   [](const LadderEntrant& a, const LadderEntrant& b) { return a.elo > b.elo; });
  std::vector<int64_t> out;
  if (others.size() <= want) {
    for (const LadderEntrant& e : others) out.push_back(e.id);
    return out;
  }
  for (size_t k = 0; k < want; ++k)
    out.push_back(others[(2 * k + 1) * others.size() / (2 * want)].id);
  return out;
}

}  // namespace

double information_score(double variance, double elo_difference) {
  const double p = 1.0 / (1.0 + std::pow(10.0, -elo_difference / 400.0));
  return variance * p * (1.0 - p);
}

std::optional<RoundChoice> choose_round(const MatchmakingInput& in) {
  const size_t need = static_cast<size_t>(std::max(in.seats, 2));
  if (in.active.size() < need) return std::nullopt;
  // At least one pairing's worth of opponents.
  const size_t min_opponents = need - 1;
  RoundChoice choice;
  const LadderEntrant* me = nullptr;
  for (const LadderEntrant& e : in.active)
    if (!e.placed && (!me || e.id < me->id)) me = &e;
  choice.placement = me != nullptr;
  if (!me) {
    for (const LadderEntrant& e : in.active)
      if (!me || e.matches < me->matches || (e.matches == me->matches && e.id < me->id)) me = &e;
  }
  choice.version = me->id;
  std::vector<LadderEntrant> fresh, repeated;
  for (const LadderEntrant& e : in.active) {
    if (e.id == me->id) continue;
    (in.last_pairs.count(pair_of(e.id, me->id)) ? repeated : fresh).push_back(e);
  }
  // Pairs of the last round come back only when the others are too few.
  while (fresh.size() < min_opponents && !repeated.empty()) {
    fresh.push_back(repeated.back());
    repeated.pop_back();
  }
  if (choice.placement) {
    choice.opponents =
        spread(fresh, std::max<size_t>(static_cast<size_t>(in.placement_opponents), min_opponents));
    return choice;
  }
  const size_t want = std::max<size_t>(static_cast<size_t>(in.round_opponents), min_opponents);
  std::vector<std::pair<double, const LadderEntrant*>> scored;
  for (const LadderEntrant& e : fresh)
    scored.emplace_back(information_score(difference_variance(in, *me, e), me->elo - e.elo), &e);
  // Highest score first; ties to the opponent with fewer matches, then the older.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    if (a.second->matches != b.second->matches) return a.second->matches < b.second->matches;
    return a.second->id < b.second->id;
  });
  for (size_t k = 0; k < scored.size() && k < want; ++k)
    choice.opponents.push_back(scored[k].second->id);
  return choice;
}

}  // namespace allfives::referee
