// The bot pool keeps at most max_idle instances waiting between matches, stopping the least
// recently used one beyond that, so many bots do not mean many processes.
#include "bots/bot_pool.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <optional>
#include <set>

#include "process/private_dir.h"

namespace allfives::referee {
namespace {

std::vector<BotSpec> random_bots(int n) {
  std::vector<BotSpec> out;
  for (int i = 0; i < n; ++i) {
    BotSpec b;
    b.display_name = std::string("r").append(std::to_string(i));
    b.command = {ALLFIVES_RANDOM_BOT};
    out.push_back(b);
  }
  return out;
}

// Plays `bots` as one match dealt from `seed` would: acquires them together, then releases them
// healthy. Without a seed, each use has deals of its own.
std::vector<int> use(BotPool& pool, const std::vector<int>& bots,
                     std::optional<uint64_t> seed = std::nullopt) {
  static uint64_t next_seed = 1000;
  std::vector<std::string> errors;
  std::vector<std::unique_ptr<BotEndpoint>> held =
      pool.acquire(bots, seed.value_or(next_seed++), &errors);
  std::vector<int> pids;
  for (size_t i = 0; i < bots.size(); ++i) {
    EXPECT_TRUE(held[i]) << errors[i];
    if (held[i] && held[i]->process()) pids.push_back(held[i]->process()->pid());
  }
  for (size_t i = 0; i < bots.size(); ++i)
    pool.release(bots[i], std::move(held[i]), BotPool::Outcome::kPlayed);
  return pids;
}

TEST(BotPool, IdleInstancesBeyondTheLimitAreStoppedLeastRecentlyUsedFirst) {
  std::string error;
  auto dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir) << error;
  BotPool pool(random_bots(12), dir->path(), std::chrono::seconds(20), /*max_idle=*/3);
  std::set<int> pids;
  // Every bot plays against the next: 12 bots, never more than 3 waiting.
  for (int i = 0; i < 12; ++i) {
    for (int pid : use(pool, {i, (i + 1) % 12})) pids.insert(pid);
    EXPECT_LE(pool.idle_count(), 3u);
    int alive = 0;
    for (int pid : pids) alive += ::kill(pid, 0) == 0;
    EXPECT_LE(alive, 3) << "stopped instances must be gone, not only forgotten";
  }
  // The most recently used bots are still warm: 0 and 11 played last, 10 just before.
  const int started_before = pool.started(0) + pool.started(11) + pool.started(10);
  use(pool, {0, 11});
  use(pool, {10, 0});
  EXPECT_EQ(pool.started(0) + pool.started(11) + pool.started(10), started_before);
  // Bot 5 was evicted long ago: using it again starts a new instance.
  const int started_5 = pool.started(5);
  use(pool, {5, 0});
  EXPECT_EQ(pool.started(5), started_5 + 1);
  pool.shutdown();
  EXPECT_EQ(pool.idle_count(), 0u);
}

// No instance is handed the same deals twice: the other rotation of a mirrored pair, or the
// same deals against another opponent, gets a fresh instance or one that has not seen them.
TEST(BotPool, AnInstanceIsNeverHandedTheSameDealsTwice) {
  std::string error;
  auto dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir) << error;
  BotPool pool(random_bots(3), dir->path(), std::chrono::seconds(20), /*max_idle=*/16);
  std::map<int, std::set<uint64_t>> seen;  // pid -> seeds it was handed
  // Deal-major, as the schedule: every pairing, both rotations, of deals 1, 2, 3.
  for (uint64_t seed : {1, 2, 3})
    for (const std::vector<int>& seats :
         std::vector<std::vector<int>>{{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}})
      for (int pid : use(pool, seats, seed))
        EXPECT_TRUE(seen[pid].insert(seed).second)
            << "pid " << pid << " got seed " << seed << " twice";
  // Four instances a bot (two opponents, two rotations), each reused for every deal.
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(pool.started(b), 4) << b;
    EXPECT_EQ(pool.started_for_new_deals(b), 3) << b;
  }
  EXPECT_EQ(seen.size(), 12u);
  pool.shutdown();
}

}  // namespace
}  // namespace allfives::referee
