// Bot processes kept across a tournament's matches: started once, reused match after match,
// and replaced when one crashed or misbehaved. One instance plays one seat of one match at a
// time, so a bot never sees two matches interleaved on its process unless it is reached at an
// address (then its own server decides). At most max_idle instances wait between matches: beyond
// that the least recently used one is stopped, so a tournament of any number of bots keeps a
// bounded number of processes per worker (the seats of the match being played plus max_idle).
//
// No instance plays the same deals twice. Every match is dealt from a seed, and the matches of
// one deal sequence share it: the other seat rotations of a mirrored pair, and the same deal
// sequence in the bot's other pairings (schedule.h). An instance that played one of them and
// remembered the hands would know its opponents' hands in the next. So each instance remembers
// the seeds it was handed, and acquire() gives a bot an idle instance that has not played the
// match's seed, or a fresh one (a new process, a new sandbox: nothing it wrote survives).
// Keeping instances by seat or rotation instead would not do: deal d of every pairing has one
// seed, so an instance that sat in seat 0 of A-B on deal d would know, in seat 0 of A-C on deal
// d, its own hand again and every tile B played from the hand C now holds. What keeps the
// fresh instances few is the dealing (worker_processes.h: each worker plays the matches of a
// few (pairing, rotation) lanes, deal after deal): a worker needs, per bot, as many instances
// as that bot has matches of one deal in its share, each then reused on every deal.
//
// Each tournament worker process owns one pool and plays one match at a time, so the pool is
// used from one thread only and has no lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bots/bot_endpoint.h"

namespace allfives::referee {

class BotPool {
 public:
  // Enough to keep every bot of the sample tournaments warm (a worker's matches of 3-5 bots,
  // at most one instance per seat rotation and opponent: see above); `referee tournament
  // --idle-bots` sets it.
  static constexpr size_t kDefaultMaxIdle = 16;

  BotPool(std::vector<BotSpec> bots, std::string socket_dir,
          std::chrono::milliseconds startup_timeout, size_t max_idle = kDefaultMaxIdle);
  ~BotPool();

  // For each bot index in `bots`, an idle instance that has never been handed `deal_seed`, or a
  // new one; new ones start up together, each judged by its own start-up timeout. Entry i is
  // null, with errors[i] saying why, if bot bots[i] could not start; once one could not, new
  // ones not yet ready are stopped and left null with no error (not their fault). The
  // instances handed out remember `deal_seed` for good. An entry stopped for not starting
  // leaves its confinement record in `confinements` (if not null).
  std::vector<std::unique_ptr<BotEndpoint>> acquire(
      const std::vector<int>& bots, uint64_t deal_seed, std::vector<std::string>* errors,
      std::vector<v1::LogConfinement>* confinements = nullptr);
  // How a match ended for an instance handed back.
  enum class Outcome {
    kPlayed,   // to the end: it is kept if alive
    kFaulted,  // it faulted: stopped, and counted as replaced
    kAborted,  // the run was stopped: stopped, not its fault
  };
  // Returns an instance after a match. A faulty or dead instance is stopped and will be
  // replaced by a fresh one at the next acquire().
  void release(int b, std::unique_ptr<BotEndpoint> bot, Outcome outcome);
  // Instances of bot `b` stopped because they faulted or died (not for a stopped run).
  int replaced(int b) const;
  // Instances of bot `b` started so far, and idle instances of all bots now.
  int started(int b) const;
  // Of those, the ones started because every idle instance of `b` had played the match's
  // deals (the price of the rule above).
  int started_for_new_deals(int b) const;
  size_t idle_count() const;
  // Stops every idle instance.
  void shutdown();

 private:
  struct Idle {
    std::unique_ptr<BotEndpoint> bot;
    std::vector<uint64_t> seeds;  // the deal seeds it has been handed
    uint64_t released = 0;        // when it was last released, on the pool's use counter
  };
  struct Slot {
    BotSpec spec;
    std::vector<Idle> idle;  // the most recently released last
    int started = 0;
    int replaced = 0;
    int for_new_deals = 0;
  };
  // An idle live instance of bot `b` that has not played `seed`, with the seeds it has; or
  // null, and the socket name for a new instance.
  Idle take_idle(int b, uint64_t seed, std::string* socket_name);

  std::vector<Slot> slots_;
  // The seeds each instance out for a match has been handed, until it comes back.
  std::map<const BotEndpoint*, std::vector<uint64_t>> lent_;
  std::string socket_dir_;
  std::chrono::milliseconds startup_timeout_;
  size_t max_idle_;
  size_t idle_ = 0;    // idle instances in all slots
  uint64_t uses_ = 0;  // releases so far: the clock of least recent use
};

}  // namespace allfives::referee
