// The bot pool keeps at most max_idle instances waiting between matches, stopping the least
// recently used one beyond that, so many bots do not mean many processes.
#include "bots/bot_pool.h"

#include <gtest/gtest.h>
#include <signal.h>

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

// Plays `bots` as one match would: acquires them together, then releases them healthy.
std::vector<int> use(BotPool& pool, const std::vector<int>& bots) {
  std::vector<std::string> errors;
  std::vector<std::unique_ptr<BotEndpoint>> held = pool.acquire(bots, &errors);
  std::vector<int> pids;
  for (size_t i = 0; i < bots.size(); ++i) {
    EXPECT_TRUE(held[i]) << errors[i];
    if (held[i] && held[i]->process()) pids.push_back(held[i]->process()->pid());
  }
  for (size_t i = 0; i < bots.size(); ++i) pool.release(bots[i], std::move(held[i]), true);
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

}  // namespace
}  // namespace allfives::referee
