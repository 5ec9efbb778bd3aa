#include "bots/bot_pool.h"

#include <algorithm>
#include <cstdio>

namespace allfives::referee {

BotPool::BotPool(std::vector<BotSpec> bots, std::string socket_dir,
                 std::chrono::milliseconds startup_timeout, size_t max_idle)
    : socket_dir_(std::move(socket_dir)), startup_timeout_(startup_timeout), max_idle_(max_idle) {
  for (BotSpec& b : bots) {
    b.startup_timeout = startup_timeout;
    slots_.push_back(Slot{std::move(b), {}, 0, 0, 0});
  }
}

BotPool::~BotPool() {
  shutdown();
}

BotPool::Idle BotPool::take_idle(int b, uint64_t seed, std::string* socket_name) {
  Slot& s = slots_[static_cast<size_t>(b)];
  bool had_one = false;
  // The most recently released first: the others stay warm for the deals they have not seen.
  for (size_t i = s.idle.size(); i-- > 0;) {
    if (!s.idle[i].bot->alive()) {
      s.idle.erase(s.idle.begin() + static_cast<std::ptrdiff_t>(i));
      --idle_;
      ++s.replaced;  // it died while idle
      continue;
    }
    had_one = true;
    const std::vector<uint64_t>& seen = s.idle[i].seeds;
    if (std::find(seen.begin(), seen.end(), seed) != seen.end()) continue;
    Idle taken = std::move(s.idle[i]);
    s.idle.erase(s.idle.begin() + static_cast<std::ptrdiff_t>(i));
    --idle_;
    return taken;
  }
  if (had_one) ++s.for_new_deals;
  // snprintf, not string concatenation: GCC 12 warns falsely (-Wrestrict) on the latter here.
  char name[48];
  std::snprintf(name, sizeof name, "b%d-%d.sock", b, s.started++);
  *socket_name = name;
  return Idle{};
}

std::vector<std::unique_ptr<BotEndpoint>> BotPool::acquire(
    const std::vector<int>& bots, uint64_t deal_seed, std::vector<std::string>* errors,
    std::vector<v1::LogConfinement>* confinements) {
  std::vector<std::unique_ptr<BotEndpoint>> out(bots.size());
  std::vector<bool> launched(bots.size(), false);
  errors->assign(bots.size(), "");
  for (size_t i = 0; i < bots.size(); ++i) {
    std::string socket_name;
    Idle idle = take_idle(bots[i], deal_seed, &socket_name);
    std::vector<uint64_t> seeds = std::move(idle.seeds);
    out[i] = std::move(idle.bot);
    if (!out[i]) {
      out[i] = BotEndpoint::launch(slots_[static_cast<size_t>(bots[i])].spec, socket_dir_,
                                   socket_name, &(*errors)[i]);
      launched[i] = out[i] != nullptr;
    }
    if (!out[i]) continue;
    // Remembered now: even a match that cannot be played may have shown it something.
    seeds.push_back(deal_seed);
    lent_[out[i].get()] = std::move(seeds);
  }
  // Every new program was started before any is waited for: they start up together. Idle
  // instances stay held, to be released unharmed, if the match cannot be played.
  wait_all_ready(out, launched, startup_timeout_, *errors, nullptr, confinements);
  return out;
}

void BotPool::release(int b, std::unique_ptr<BotEndpoint> bot, Outcome outcome) {
  if (!bot) return;
  const auto lent = lent_.find(bot.get());
  std::vector<uint64_t> seeds;
  if (lent != lent_.end()) {
    seeds = std::move(lent->second);
    lent_.erase(lent);
  }
  if (outcome != Outcome::kPlayed || !bot->alive()) {
    if (outcome != Outcome::kAborted) ++slots_[static_cast<size_t>(b)].replaced;
    bot->stop(kPromptStopGrace);
    return;
  }
  std::vector<std::unique_ptr<BotEndpoint>> evicted;
  slots_[static_cast<size_t>(b)].idle.push_back(Idle{std::move(bot), std::move(seeds), ++uses_});
  ++idle_;
  // Over the limit: stop the least recently used (the oldest of the slots' first entries).
  while (idle_ > max_idle_) {
    Slot* oldest = nullptr;
    for (Slot& s : slots_)
      if (!s.idle.empty() && (!oldest || s.idle.front().released < oldest->idle.front().released))
        oldest = &s;
    evicted.push_back(std::move(oldest->idle.front().bot));
    oldest->idle.erase(oldest->idle.begin());
    --idle_;
  }
  stop_all(evicted, kPromptStopGrace);
}

int BotPool::started(int b) const {
  return slots_[static_cast<size_t>(b)].started;
}

int BotPool::started_for_new_deals(int b) const {
  return slots_[static_cast<size_t>(b)].for_new_deals;
}

size_t BotPool::idle_count() const {
  return idle_;
}

int BotPool::replaced(int b) const {
  return slots_[static_cast<size_t>(b)].replaced;
}

void BotPool::shutdown() {
  std::vector<std::unique_ptr<BotEndpoint>> all;
  for (Slot& s : slots_)
    for (Idle& e : s.idle) all.push_back(std::move(e.bot));
  for (Slot& s : slots_) s.idle.clear();
  idle_ = 0;
  stop_all(all, kStopGrace);
}

}  // namespace allfives::referee
