// The SPRTs of one tournament run as its results arrive and are committed (tournament_runner.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tournament/progress.h"
#include "tournament/sprt.h"
#include "tournament/statistics.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

// The tournament's SPRTs during a run (one per reference). Each test is followed twice over the
// same results in the same order (the index's): as results arrive, to stop handing out matches
// the moment a test is over, and as they are committed, for what is shown and reported (the
// progress line then counts the same matches as the standings). Both reach the same decision
// at the same pair.
class SprtRun {
 public:
  SprtRun(const TournamentDef& def, size_t pairings, size_t done, size_t total)
      : arrived_(make_sprt_monitors(def)),
        committed_(arrived_),
        pairings_(pairings),
        done_(done),
        total_(total) {}

  bool active() const { return !arrived_.empty(); }
  // Every test is over (false without an SPRT).
  bool over() const {
    return active() && std::all_of(arrived_.begin(), arrived_.end(),
                                   [](const SprtMonitor& m) { return m.over(); });
  }
  // A match of a pairing whose test is over.
  bool skips(const v1::ScheduledMatch& m) const {
    return std::any_of(arrived_.begin(), arrived_.end(),
                       [&](const SprtMonitor& t) { return t.over() && t.counts(m); });
  }
  // A result already in the index, one that arrived from a worker, one committed, and one of
  // another shard (ShardPeers), which is on disk already. A match counts once in each view,
  // wherever it comes from (a peer folder may hold a copy of one of ours).
  void add_earlier(const v1::IndexEntry& e) {
    add_arrived(e);
    add_to(committed_, committed_ids_, e);
  }
  void add_arrived(const v1::IndexEntry& e) { add_to(arrived_, arrived_ids_, e); }
  void add_committed(const v1::IndexEntry& e) {
    ++done_;
    add_to(committed_, committed_ids_, e);
  }
  void add_peer(const v1::IndexEntry& e) {
    add_arrived(e);
    add_to(committed_, committed_ids_, e);
  }
  // The committed tests on the progress line, and the matches they are expected to need.
  void show(Progress& progress) const {
    std::string status;
    int64_t pairs_left = 0;
    size_t over = 0;
    for (const SprtMonitor& m : committed_) {
      if (!status.empty()) status += "; ";
      if (committed_.size() > 1) status += "vs " + m.summary().against + ": ";
      status += m.status();
      if (m.over()) {
        ++over;
        continue;
      }
      const SprtSummary& s = m.summary();
      double left = sprt_expected_pairs_left(s.pairs, s.params, s.llr);
      if (s.max_pairs > 0)
        left = std::min(left, static_cast<double>(s.max_pairs) - static_cast<double>(m.pairs()));
      pairs_left = std::max(pairs_left, static_cast<int64_t>(std::ceil(std::max(left, 0.0))));
    }
    progress.set_status(status);
    // Deal-major: each deal, every pairing still playing plays a pair (two matches).
    const int64_t scheduled_left = static_cast<int64_t>(total_ - std::min(done_, total_));
    const int64_t playing = static_cast<int64_t>(pairings_ - std::min(over, pairings_));
    progress.set_expected_left(std::min(scheduled_left, 2 * pairs_left * playing));
  }
  std::vector<SprtSummary> summaries() const {
    std::vector<SprtSummary> out;
    for (const SprtMonitor& m : committed_) out.push_back(m.summary());
    return out;
  }

 private:
  void add_to(std::vector<SprtMonitor>& view, std::set<std::string>& ids, const v1::IndexEntry& e) {
    if (std::none_of(view.begin(), view.end(),
                     [&](const SprtMonitor& m) { return m.counts(e.match()); }))
      return;
    if (!ids.insert(e.match().match_id()).second) return;
    for (SprtMonitor& m : view) m.add(e);
  }
  std::vector<SprtMonitor> arrived_, committed_;
  std::set<std::string> arrived_ids_, committed_ids_;  // the matches each view counted
  size_t pairings_;
  size_t done_, total_;
};

}  // namespace allfives::referee
