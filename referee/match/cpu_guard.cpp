#include "match/cpu_guard.h"

#include <algorithm>

namespace allfives::referee {

CpuGuard::CpuGuard(const std::vector<BotEndpoint*>& seats)
    : seat_of_(seats.size(), -1), seats_(seats.size()) {
  for (size_t seat = 0; seat < seats.size(); ++seat) {
    BotProcess* p = seats[seat] ? seats[seat]->process() : nullptr;
    if (!p || p->freezer_by() == LimitMechanism::kNone) continue;
    auto it = std::find_if(watched_.begin(), watched_.end(),
                           [&](const Watched& w) { return w.process == p; });
    if (it == watched_.end()) {
      Watched w;
      w.bot = seats[seat];
      w.process = p;
      w.may_ponder = w.bot->spec().confinement.think_on_opponent_time;
      it = watched_.insert(watched_.end(), std::move(w));
    }
    it->seats.push_back(static_cast<int>(seat));
    seat_of_[seat] = static_cast<int>(it - watched_.begin());
  }
  active_ = !watched_.empty();
}

void CpuGuard::thaw_all() {
  for (Watched& w : watched_) w.process->set_frozen(false);
  mover_ = -1;
}

void CpuGuard::before_turn(int seat) {
  if (!active_) return;
  mover_ = seat_of_[static_cast<size_t>(seat)];
  for (size_t i = 0; i < watched_.size(); ++i) {
    Watched& w = watched_[i];
    if (static_cast<int>(i) == mover_) {
      w.process->set_frozen(false);
      w.base.reset();
    } else if (!w.bot->thinks_off_turn()) {
      w.base = w.process->cpu_time_us();
    } else if (!w.may_ponder) {
      // A known thief, thawed for MatchStart: frozen before the mover is asked, not after its
      // own next turn; and still counted (what a frozen process uses is what it stole).
      w.process->set_frozen(true);
      w.frozen_in_match = true;
      w.base = w.process->cpu_time_us();
    }
  }
}

std::optional<uint64_t> CpuGuard::check(Watched& w) {
  if (!w.base || w.bot->thinks_off_turn()) return std::nullopt;
  const std::optional<uint64_t> now = w.process->cpu_time_us();
  if (!now) return now;
  const uint64_t used = *now > *w.base ? *now - *w.base : 0;
  if (used <= static_cast<uint64_t>(kAllowance.count()) &&
      w.off_turn_us + used <= static_cast<uint64_t>(kMatchAllowance.count()))
    return now;
  if (w.may_ponder) return now;  // counted at the turn's end
  // Seen thinking while another seat thinks: frozen now, and whenever not waited on.
  w.off_turn_us += used;
  w.base.reset();
  w.bot->set_thinks_off_turn();
  w.process->set_frozen(true);
  w.frozen_in_match = true;
  return now;
}

void CpuGuard::look() {
  for (size_t i = 0; i < watched_.size(); ++i)
    if (static_cast<int>(i) != mover_) check(watched_[i]);
}

void CpuGuard::after_turn(int seat) {
  if (!active_) return;
  for (size_t i = 0; i < watched_.size(); ++i) {
    Watched& w = watched_[i];
    if (static_cast<int>(i) == mover_) continue;
    // The turn's last look; what it used under the allowance counts too (for the log), from
    // the same reading (each costs a cgroup statistics flush in the kernel).
    std::optional<uint64_t> now = check(w);
    if (w.base) {
      if (!now) now = w.process->cpu_time_us();  // not looked at: a known thief, frozen
      if (now && *now > *w.base) w.off_turn_us += *now - *w.base;
      w.base.reset();
    }
  }
  const int mover = seat_of_[static_cast<size_t>(seat)];
  if (mover >= 0 && watched_[static_cast<size_t>(mover)].bot->thinks_off_turn()) {
    watched_[static_cast<size_t>(mover)].process->set_frozen(true);
    watched_[static_cast<size_t>(mover)].frozen_in_match = true;
  }
  mover_ = -1;
}

void CpuGuard::end_of_match() {
  for (Watched& w : watched_)
    if (!w.may_ponder) w.process->set_frozen(true);
}

std::vector<uint64_t> CpuGuard::off_turn_cpu_us() const {
  std::vector<uint64_t> out(seats_, 0);
  for (const Watched& w : watched_)
    for (int seat : w.seats) out[static_cast<size_t>(seat)] = w.off_turn_us;
  return out;
}

std::vector<bool> CpuGuard::frozen_off_turn() const {
  std::vector<bool> out(seats_, false);
  for (const Watched& w : watched_)
    for (int seat : w.seats) out[static_cast<size_t>(seat)] = w.frozen_in_match;
  return out;
}

}  // namespace allfives::referee
