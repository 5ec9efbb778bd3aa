#include "bots/bot_pool.h"

#include <cstdio>

namespace allfives::referee {

BotPool::BotPool(std::vector<BotSpec> bots, std::string socket_dir,
                 std::chrono::milliseconds startup_timeout, size_t max_idle)
    : socket_dir_(std::move(socket_dir)), startup_timeout_(startup_timeout), max_idle_(max_idle) {
  for (BotSpec& b : bots) slots_.push_back(Slot{std::move(b), {}, 0, 0});
}

BotPool::~BotPool() {
  shutdown();
}

std::unique_ptr<BotEndpoint> BotPool::take_idle(int b, std::string* socket_name) {
  Slot& s = slots_[static_cast<size_t>(b)];
  while (!s.idle.empty()) {
    std::unique_ptr<BotEndpoint> e = std::move(s.idle.back().bot);
    s.idle.pop_back();
    --idle_;
    if (e->alive()) return e;
    ++s.replaced;  // it died while idle
  }
  // snprintf, not string concatenation: GCC 12 warns falsely (-Wrestrict) on the latter here.
  char name[48];
  std::snprintf(name, sizeof name, "b%d-%d.sock", b, s.started++);
  *socket_name = name;
  return nullptr;
}

std::vector<std::unique_ptr<BotEndpoint>> BotPool::acquire(const std::vector<int>& bots,
                                                           std::vector<std::string>* errors) {
  const auto deadline = std::chrono::steady_clock::now() + startup_timeout_;
  std::vector<std::unique_ptr<BotEndpoint>> out(bots.size());
  std::vector<bool> launched(bots.size(), false);
  errors->assign(bots.size(), "");
  for (size_t i = 0; i < bots.size(); ++i) {
    std::string socket_name;
    out[i] = take_idle(bots[i], &socket_name);
    if (out[i]) continue;
    out[i] = BotEndpoint::launch(slots_[static_cast<size_t>(bots[i])].spec, socket_dir_,
                                 socket_name, &(*errors)[i]);
    launched[i] = out[i] != nullptr;
  }
  // Every new program was started before any is waited for: they start up together. Idle
  // instances stay held, to be released unharmed, if the match cannot be played.
  wait_all_ready(out, launched, deadline, *errors);
  return out;
}

void BotPool::release(int b, std::unique_ptr<BotEndpoint> bot, bool healthy) {
  if (!bot) return;
  if (!healthy || !bot->alive()) {
    bot->stop(kPromptStopGrace);
    ++slots_[static_cast<size_t>(b)].replaced;
    return;
  }
  std::vector<std::unique_ptr<BotEndpoint>> evicted;
  {
    slots_[static_cast<size_t>(b)].idle.push_back(Idle{std::move(bot), ++uses_});
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
  }
  stop_all(evicted, kPromptStopGrace);
}

int BotPool::started(int b) const {
  return slots_[static_cast<size_t>(b)].started;
}

size_t BotPool::idle_count() const {
  return idle_;
}

int BotPool::replaced(int b) const {
  return slots_[static_cast<size_t>(b)].replaced;
}

void BotPool::shutdown() {
  std::vector<std::unique_ptr<BotEndpoint>> all;
  {
    for (Slot& s : slots_)
      for (Idle& e : s.idle) all.push_back(std::move(e.bot));
    for (Slot& s : slots_) s.idle.clear();
    idle_ = 0;
  }
  stop_all(all, kStopGrace);
}

}  // namespace allfives::referee
