// The CPU guard: a bot cannot slow its opponent by keeping threads busy while the opponent
// thinks (docs/SANDBOX.md, "CPU"). Freezing every bot but the one the referee waits on costs a
// freeze and a thaw per decision, each waking every thread of the bot (about 70 us on this
// project's VM, as much as a greedy bot's whole decision), so the guard freezes on evidence
// instead: it counts each bot's CPU time (its cgroup's) while the referee waits on another
// seat, and a bot that used more than kAllowance of it in one turn, or kMatchAllowance in the
// match (checked every kLookEvery during a turn and at its end), is frozen at once and, from
// then on, whenever the referee does not wait on it: for the rest of this match and every
// later match of its process. Honest bots never pay a freeze (the little an SDK does after
// sending its answer is far below the allowances); a thief steals at most the allowances plus a
// look's interval, once. Between matches every bot is frozen (end_of_match()), so an idle
// process steals from no one.
// A bot is watched when its process has a freezer cgroup (BotProcess::freezer_by()); one that
// may think on the opponent's time (Confinement::think_on_opponent_time) is only counted, never
// frozen (its CPU is bounded by its quota, ResourceLimits::cpu_percent). Bots without one
// (--no-cgroups, a machine without cgroups, a bot reached at an address) are not watched.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "bots/bot_endpoint.h"

namespace allfives::referee {

class CpuGuard {
 public:
  // CPU time a bot may use while the referee waits on another seat: in one turn, and in all
  // the turns of one match together. The turn's allowance is above 2 ms because a kernel that
  // does not account interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING off, as on this project's
  // VM) charges the task it interrupts with up to 2 ms of softirq work in one burst: an idle
  // bot's short tail after its answer could be charged that much by the machine's network and
  // disk work. The match's allowance still bounds what a thief can take.
  static constexpr std::chrono::microseconds kAllowance{3000};
  static constexpr std::chrono::microseconds kMatchAllowance{5000};
  // How often the other bots are looked at during a turn.
  static constexpr std::chrono::milliseconds kLookEvery{2};

  // `seats`: each seat's bot (null: none). A process sitting at several seats (one bot for both
  // seats of a side) counts once.
  explicit CpuGuard(const std::vector<BotEndpoint*>& seats);

  // Every bot thawed (MatchStart, MatchEnd: each must answer).
  void thaw_all();
  // A turn of `seat`: it is thawed and the others' CPU is counted from now.
  void before_turn(int seat);
  // During and at the end of the turn: an other bot over the allowance is frozen.
  void look();
  // The turn is over: a look, then the mover frozen if it was ever seen thinking off turn.
  void after_turn(int seat);
  // The match is over (the streams have ended): every bot frozen until its next match.
  void end_of_match();

  bool active() const { return active_; }
  // Per seat: CPU its bot used while the referee waited on another seat (up to its freezing),
  // in microseconds; and whether it was frozen off turn in this match.
  std::vector<uint64_t> off_turn_cpu_us() const;
  std::vector<bool> frozen_off_turn() const;

 private:
  struct Watched {
    BotEndpoint* bot = nullptr;
    BotProcess* process = nullptr;
    std::vector<int> seats;
    std::optional<uint64_t> base;  // its CPU time when the current turn began
    uint64_t off_turn_us = 0;
    bool frozen_in_match = false;
    bool may_ponder = false;  // counted, never frozen
  };
  // Looks at one bot off turn; returns the CPU time read, if one was.
  std::optional<uint64_t> check(Watched& w);
  std::vector<Watched> watched_;
  std::vector<int> seat_of_;  // seat -> index in watched_, -1 if none
  int mover_ = -1;            // index in watched_ of the bot waited on
  bool active_ = false;
  size_t seats_ = 0;
};

}  // namespace allfives::referee
