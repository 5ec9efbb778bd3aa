// Bot processes kept across a tournament's matches: started once, reused match after match,
// and replaced when one crashed or misbehaved. One instance plays one seat of one match at a
// time, so a bot never sees two matches interleaved on its process unless it is reached at an
// address (then its own server decides).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bots/bot_endpoint.h"

namespace allfives::referee {

class BotPool {
 public:
  BotPool(std::vector<BotSpec> bots, std::string socket_dir,
          std::chrono::milliseconds startup_timeout);
  ~BotPool();

  // For each bot index in `bots`, an idle instance or a new one; new ones start up together.
  // Entry i is null, with errors[i] saying why, if bot bots[i] could not start; once one could
  // not, new ones not yet ready are stopped and left null with no error (not their fault).
  std::vector<std::unique_ptr<BotEndpoint>> acquire(const std::vector<int>& bots,
                                                    std::vector<std::string>* errors);
  // Returns an instance after a match. A faulty or dead instance is stopped and will be
  // replaced by a fresh one at the next acquire().
  void release(int b, std::unique_ptr<BotEndpoint> bot, bool healthy);
  // Instances of bot `b` stopped because they were faulty or dead.
  int replaced(int b) const;
  // Stops every idle instance.
  void shutdown();

 private:
  struct Slot {
    BotSpec spec;
    std::vector<std::unique_ptr<BotEndpoint>> idle;
    int started = 0;
    int replaced = 0;
  };
  // An idle live instance of bot `b`; or null, and the socket name for a new instance.
  std::unique_ptr<BotEndpoint> take_idle(int b, std::string* socket_name);

  std::vector<Slot> slots_;
  std::string socket_dir_;
  std::chrono::milliseconds startup_timeout_;
  mutable std::mutex mutex_;
};

}  // namespace allfives::referee
