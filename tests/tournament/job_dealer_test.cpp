// How a tournament's matches are dealt to its workers (JobDealer): each worker's share in
// order, the last jobs taken by a worker that has played its share, every job dealt once; and
// what the shares mean for the bot instances a tournament must start (no instance may play the
// same deals twice: bots/bot_pool.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "common/temp_dir.h"
#include "tournament/gauntlet.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"
#include "tournament/worker_processes.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

TEST(JobDealer, EachWorkerGetsItsShareInOrder) {
  JobDealer d(3, 9);
  for (size_t round = 0; round < 3; ++round)
    for (int w = 0; w < 3; ++w) EXPECT_EQ(d.next(w), std::optional<size_t>(round * 3 + w));
  for (int w = 0; w < 3; ++w) EXPECT_FALSE(d.next(w).has_value());
}

TEST(JobDealer, AWorkerDoneWithItsShareTakesTheLastJobsWhileEnoughAreLeft) {
  JobDealer d(2, 10);
  EXPECT_EQ(d.next(1), std::optional<size_t>(1));
  EXPECT_EQ(d.next(1), std::optional<size_t>(3));
  EXPECT_EQ(d.next(1), std::optional<size_t>(5));
  EXPECT_EQ(d.next(1), std::optional<size_t>(7));
  EXPECT_EQ(d.next(1), std::optional<size_t>(9));
  // Worker 1 has played its share; worker 0 has 0, 2, 4, 6, 8 left.
  EXPECT_EQ(d.next(1), std::optional<size_t>(8));
  EXPECT_EQ(d.next(0), std::optional<size_t>(0));
  EXPECT_EQ(d.next(1), std::optional<size_t>(6));
  EXPECT_EQ(d.next(1), std::optional<size_t>(4));
  // One left (2): its owner plays it.
  EXPECT_FALSE(d.next(1).has_value());
  EXPECT_EQ(d.next(0), std::optional<size_t>(2));
  EXPECT_FALSE(d.next(0).has_value());
}

// Lanes of period 6 (the demo's 3 pairings x 2 rotations), two workers: worker 0's lanes are 0,
// 2 and 4. Once worker 1 has played its share, it steals one lane at a time, back to front.
TEST(JobDealer, AThiefStealsOneLaneAtATime) {
  JobDealer d(2, 24, 6);
  EXPECT_EQ(d.next(0), std::optional<size_t>(0));
  EXPECT_EQ(d.next(0), std::optional<size_t>(2));
  for (size_t j = 1; j < 24; j += 2) EXPECT_EQ(d.next(1), std::optional<size_t>(j));
  for (size_t j : {22, 16, 10, 4, 20, 14, 8, 18, 12})
    EXPECT_EQ(d.next(1), std::optional<size_t>(j));
  EXPECT_FALSE(d.next(1).has_value());  // one left
  EXPECT_EQ(d.next(0), std::optional<size_t>(6));
  EXPECT_FALSE(d.next(0).has_value());
}

TEST(JobDealer, EveryJobIsDealtOnceWhateverTheOrderOfRequests) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int workers = 1 + static_cast<int>(rng() % 5);
    const size_t jobs = rng() % 40;
    const size_t period = static_cast<size_t>(workers) * (1 + rng() % 4);
    JobDealer d(workers, jobs, trial % 2 ? period : 0);
    std::vector<bool> done(static_cast<size_t>(workers), false);
    std::multiset<size_t> dealt;
    for (int left = workers; left > 0;) {
      const int w = static_cast<int>(rng() % static_cast<unsigned>(workers));
      if (done[static_cast<size_t>(w)]) continue;
      if (const auto j = d.next(w)) {
        dealt.insert(*j);
      } else {
        done[static_cast<size_t>(w)] = true;
        --left;
      }
    }
    ASSERT_EQ(dealt.size(), jobs);
    for (size_t j = 0; j < jobs; ++j) EXPECT_EQ(dealt.count(j), 1u) << j;
  }
}

TEST(JobDealer, ZeroJobsOrMoreWorkersThanJobs) {
  JobDealer none(2, 0);
  EXPECT_FALSE(none.next(0).has_value());
  JobDealer few(4, 2);
  EXPECT_EQ(few.next(3), std::optional<size_t>(1));  // its share is empty: it takes the last
  EXPECT_FALSE(few.next(2).has_value());             // one left: for its owner
  EXPECT_EQ(few.next(0), std::optional<size_t>(0));
}

// A tournament file of `n` bots in `format`.
TournamentDef def_of(const std::string& format, int n, int matches, bool gauntlet = false) {
  const testing::TempDir tmp("allfives-dealer");
  const fs::path dir = tmp.path();
  std::ofstream(dir / "bot.sh") << "#!/bin/sh\nexit 0\n";
  fs::permissions(dir / "bot.sh", fs::perms::owner_all);
  std::string text =
      "format: " + format + "\nmatches_per_pairing: " + std::to_string(matches) + "\nseed: 3\n";
  for (int i = 0; i < n; ++i)
    text += "bots { name: \"b" + std::to_string(i) + "\" command: \"./bot.sh\"" +
            (gauntlet && i == 0 ? " candidate: true" : "") + " }\n";
  std::ofstream(dir / "t.txtpb") << text;
  TournamentDef t;
  std::string error;
  EXPECT_TRUE(load_tournament((dir / "t.txtpb").string(), t, &error)) << error;
  fs::remove_all(dir);
  return t;
}

// The bot instances `workers` workers must start to play `t` when each plays its JobDealer
// share and no instance plays a deal twice: an instance is free again after each match, so a
// worker needs, for each bot, as many as the most matches that bot plays on one deal in its
// share. And the fewest any dealing could need: the same count over the whole schedule. With
// `slow` > 1, worker 1 asks for a job only once every `slow` rounds (its CPU is busier).
std::pair<int, int> instances_needed(const TournamentDef& t, int workers, int slow = 1) {
  const Schedule s(t);
  JobDealer d(workers, s.size(), lane_period(s, 1, workers));
  std::map<std::tuple<int, std::string, uint32_t>, int> in_share;  // (worker, bot, deal)
  std::map<std::pair<std::string, uint32_t>, int> overall;         // (bot, deal)
  std::vector<bool> done(static_cast<size_t>(workers), false);
  for (int round = 0, left = workers; left > 0; ++round) {
    for (int w = 0; w < workers; ++w) {
      if (done[static_cast<size_t>(w)] || (w == 1 && round % slow != 0)) continue;
      const auto j = d.next(w);
      if (!j) {
        done[static_cast<size_t>(w)] = true;
        --left;
        continue;
      }
      if (!j) continue;
      const v1::ScheduledMatch m = s.at(*j);
      std::set<std::string> bots(m.seat_bots().begin(), m.seat_bots().end());
      for (const std::string& b : bots) {
        ++in_share[{w, b, m.deal()}];
        ++overall[{b, m.deal()}];
      }
    }
  }
  std::map<std::pair<int, std::string>, int> per_worker;
  for (const auto& [key, k] : in_share) {
    int& most = per_worker[{std::get<0>(key), std::get<1>(key)}];
    most = std::max(most, k);
  }
  std::map<std::string, int> per_bot;
  for (const auto& [key, k] : overall) per_bot[key.first] = std::max(per_bot[key.first], k);
  int needed = 0, fewest = 0;
  for (const auto& [key, k] : per_worker) needed += k;
  for (const auto& [bot, k] : per_bot) fewest += k;
  return {needed, fewest};
}

// The README's demo (3 bots, mirrored pairs) at -j 2: worker 0 plays rotation 0 of every
// pairing, worker 1 rotation 1, so each instance is reused on every deal and the 12 instances
// are the fewest possible (each bot plays 4 matches of every deal). Two bots under an SPRT at
// -j 2: one instance of each bot per worker. A gauntlet of one candidate and two baselines the
// same. With one worker three times slower than the other (a CPU shared with other work), the
// fast one steals a lane at a time, each for fresh instances of its two bots that are then
// reused on the lane's other deals: here all three of the slow worker's lanes, 6 more in all,
// which is also the most stealing can cost (the slow worker's own set).
TEST(JobDealer, TheSharesNeedTheFewestInstancesTheDealsAllow) {
  const TournamentDef demo = def_of("FORMAT_TWO_PLAYERS", 3, 40);
  {
    const Schedule s(demo);
    JobDealer d(2, s.size(), lane_period(s, 1, 2));
    for (int round = 0; round < 10; ++round)
      for (int w = 0; w < 2; ++w) EXPECT_EQ(s.at(*d.next(w)).rotation(), static_cast<uint32_t>(w));
  }
  EXPECT_EQ(instances_needed(demo, 2), std::make_pair(12, 12));
  EXPECT_EQ(instances_needed(demo, 1), std::make_pair(12, 12));
  EXPECT_EQ(instances_needed(def_of("FORMAT_TWO_PLAYERS", 2, 20), 2), std::make_pair(4, 4));
  EXPECT_EQ(instances_needed(def_of("FORMAT_TWO_PLAYERS", 3, 20, true), 2), std::make_pair(8, 8));
  EXPECT_EQ(instances_needed(demo, 2, 3), std::make_pair(18, 12));
  for (int slow = 2; slow <= 64; slow *= 2) EXPECT_LE(instances_needed(demo, 2, slow).first, 18);
}

// lane_period: in every shard, the i-th match and the (i + period)-th are of the same pairing
// and rotation, and the period is a multiple of the workers (so both go to the same worker).
TEST(JobDealer, TheLanePeriodKeepsEachLaneOnOneWorkerInEveryShard) {
  for (const auto& [format, bots] : std::vector<std::pair<std::string, int>>{
           {"FORMAT_TWO_PLAYERS", 3}, {"FORMAT_TWO_PLAYERS", 4}, {"FORMAT_FOUR_PLAYERS", 5}}) {
    const TournamentDef t = def_of(format, bots, 24);
    const Schedule s(t);
    for (int count : {1, 2, 3})
      for (int index = 0; index < count; ++index)
        for (int workers : {1, 2, 3}) {
          SCOPED_TRACE(format + " shard " + std::to_string(index) + "/" + std::to_string(count) +
                       " -j " + std::to_string(workers));
          const ShardSlice shard(s.size(), s.rotations(), index, count);
          const uint64_t period = lane_period(s, count, workers);
          EXPECT_EQ(period % static_cast<uint64_t>(workers), 0u);
          for (uint64_t i = 0; i + period < shard.size(); ++i) {
            const v1::ScheduledMatch a = s.at(shard.ordinal(i));
            const v1::ScheduledMatch b = s.at(shard.ordinal(i + period));
            ASSERT_EQ(a.pairing(), b.pairing()) << i;
            ASSERT_EQ(a.rotation(), b.rotation()) << i;
          }
        }
  }
}

}  // namespace
}  // namespace allfives::referee
