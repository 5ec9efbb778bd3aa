#include "tournament/pairs.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "allfives/core/types.h"
#include "allfives/wire/convert.h"
#include "match/match_result.h"

namespace allfives::referee {

std::map<std::string, double> two_side_scores(const v1::IndexEntry& e) {
  std::map<std::string, double> out;
  Format format;
  if (e.reason() == v1::MATCH_END_REASON_ABORTED) return out;
  if (!wire::from_proto(e.format(), format, nullptr) || num_sides(format) != 2) return out;
  const bool partners = partner_of(format, 0) >= 0;
  const auto& seats = e.match().seat_bots();
  if (seats.size() != num_players(format) || e.scores_size() != 2) return out;
  if (e.fault_seat() < -1 || e.fault_seat() >= seats.size()) return out;
  // The side of each seat is seat % 2; both seats of a side must be one bot, the sides two.
  if (partners && (seats[0] != seats[2] || seats[1] != seats[3])) return out;
  if (seats[0] == seats[1]) return out;
  const int faulting_side = e.fault_seat() >= 0 ? e.fault_seat() % 2 : -1;
  std::vector<int> place;
  if (e.placements_size() == 2) {
    place.assign(e.placements().begin(), e.placements().end());
  } else {
    place =
        placements({static_cast<int>(e.scores(0)), static_cast<int>(e.scores(1))}, faulting_side);
  }
  if (faulting_side >= 0) place[static_cast<size_t>(faulting_side)] = 3;  // a forfeit loses
  for (int side = 0; side < 2; ++side) {
    const int other = place[static_cast<size_t>(1 - side)];
    const int mine = place[static_cast<size_t>(side)];
    out[seats[side]] = mine < other ? 1.0 : mine > other ? 0.0 : 0.5;
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> PairBook::add(const v1::IndexEntry& e) {
  std::map<std::string, double> scores = two_side_scores(e);
  if (scores.size() != 2) return std::nullopt;
  const std::string& a = scores.begin()->first;
  const std::string& b = std::next(scores.begin())->first;
  // One deal sequence of one pairing of one tournament: both rotations share the seed.
  const std::string key = e.tournament_name() + '\n' + a + '\n' + b + '\n' +
                          std::to_string(e.match().deal()) + '\n' +
                          std::to_string(e.match().seed());
  const auto it = pending_.find(key);
  if (it == pending_.end() || it->second.rotation == e.match().rotation()) {
    // The first of its pair (a second copy of the same rotation replaces the first).
    pending_[key] = Half{e.match().rotation(), std::move(scores)};
    return std::nullopt;
  }
  const double pair_score = it->second.scores[a] + scores[a];  // 0, 0.5, ..., 2
  pending_.erase(it);
  const auto k = static_cast<size_t>(std::lround(pair_score * 2));
  std::pair<std::string, std::string> pairing{a, b};
  ++pairings_[pairing].n[std::min<size_t>(k, 4)];
  return pairing;
}

Pentanomial PairBook::of(const std::string& bot) const {
  Pentanomial total;
  for (const auto& [pairing, p] : pairings_) {
    if (pairing.first == bot) total += p;
    if (pairing.second == bot) total += p.mirrored();
  }
  return total;
}

}  // namespace allfives::referee
