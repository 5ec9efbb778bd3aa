// Finished matches of a two-side format (two players, partnerships) grouped into mirrored
// pairs: the two matches of one deal sequence of one pairing, in seat rotations 0 and 1 (see
// schedule.h). A pair's score from each bot's side goes into that pairing's pentanomial counts
// (statistics.h). Memory grows with the pairings and the pairs still waiting for their second
// match, not with the matches.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "allfives/v1/tournament.pb.h"
#include "tournament/statistics.h"

namespace allfives::referee {

// Each bot's score in a two-side match: 1 for a win, 1/2 for a draw, 0 for a loss (a forfeit
// loses). Empty if the entry has no result or is not a two-side match of exactly two bots.
std::map<std::string, double> two_side_scores(const v1::IndexEntry& e);

class PairBook {
 public:
  // Adds a finished match. Returns the pairing (two bot names, in name order) if the match
  // completed a pair, nothing otherwise (first of its pair, or not a two-side match).
  std::optional<std::pair<std::string, std::string>> add(const v1::IndexEntry& e);

  // Per pairing (names in order), the pair scores from the first bot's side.
  const std::map<std::pair<std::string, std::string>, Pentanomial>& pairings() const {
    return pairings_;
  }
  // The pairs of `bot` against every opponent it met, from its side.
  Pentanomial of(const std::string& bot) const;
  // Matches whose mirrored partner has not (yet) been added.
  size_t unpaired() const { return pending_.size(); }

 private:
  struct Half {
    uint32_t rotation = 0;
    std::map<std::string, double> scores;
  };
  std::map<std::string, Half> pending_;  // by pair key (see pairs.cpp)
  std::map<std::pair<std::string, std::string>, Pentanomial> pairings_;
};

}  // namespace allfives::referee
