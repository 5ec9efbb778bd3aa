// Hand-made index entries for the tournament suites.
#pragma once

#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "common/temp_dir.h"

namespace allfives::referee::testing {

inline v1::IndexEntry entry(const std::string& id, v1::Format format,
                            const std::vector<std::string>& seat_bots,
                            const std::vector<uint32_t>& scores,
                            const std::vector<uint32_t>& placements, int fault_seat = -1,
                            v1::FaultKind fault_kind = v1::FAULT_KIND_UNSPECIFIED,
                            const std::string& hash = "hash-1") {
  v1::IndexEntry e;
  e.mutable_match()->set_match_id(id);
  for (const std::string& b : seat_bots) e.mutable_match()->add_seat_bots(b);
  e.set_format(format);
  e.set_reason(fault_seat >= 0 ? v1::MATCH_END_REASON_FAULT : v1::MATCH_END_REASON_TARGET);
  for (uint32_t s : scores) e.add_scores(s);
  int firsts = 0, winner = -1;
  for (size_t side = 0; side < placements.size(); ++side) {
    e.add_placements(placements[side]);
    if (placements[side] == 1) {
      ++firsts;
      winner = static_cast<int>(side);
    }
  }
  e.set_winner_side(firsts == 1 ? winner : -1);
  e.set_fault_seat(fault_seat);
  e.set_fault_kind(fault_kind);
  if (fault_seat >= 0) e.set_fault_reason("a test fault");
  e.set_log_file("logs/" + id + ".jsonl");
  e.set_tournament_hash(hash);
  e.set_tournament_name("test");
  return e;
}

// A 2-player match won by `winner` (0 or 1), or drawn (-1).
inline v1::IndexEntry two_player(const std::string& id, const std::string& a, const std::string& b,
                                 int winner, const std::string& hash = "hash-1") {
  if (winner == 0)
    return entry(id, v1::FORMAT_TWO_PLAYERS, {a, b}, {250, 120}, {1, 2}, -1,
                 v1::FAULT_KIND_UNSPECIFIED, hash);
  if (winner == 1)
    return entry(id, v1::FORMAT_TWO_PLAYERS, {a, b}, {120, 250}, {2, 1}, -1,
                 v1::FAULT_KIND_UNSPECIFIED, hash);
  v1::IndexEntry e = entry(id, v1::FORMAT_TWO_PLAYERS, {a, b}, {180, 180}, {1, 1}, -1,
                           v1::FAULT_KIND_UNSPECIFIED, hash);
  e.set_reason(v1::MATCH_END_REASON_HAND_LIMIT);
  return e;
}

// The tests' own folders (tests/common/temp_dir.h).
using allfives::testing::TempDir;

}  // namespace allfives::referee::testing
