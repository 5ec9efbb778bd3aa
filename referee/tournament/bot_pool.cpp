#include "tournament/bot_pool.h"

#include <cstdio>

namespace allfives::referee {

BotPool::BotPool(std::vector<BotSpec> bots, std::string socket_dir,
                 std::chrono::milliseconds startup_timeout)
    : socket_dir_(std::move(socket_dir)), startup_timeout_(startup_timeout) {
  for (BotSpec& b : bots) slots_.push_back(Slot{std::move(b), {}, 0, 0});
}

BotPool::~BotPool() {
  shutdown();
}

std::unique_ptr<BotEndpoint> BotPool::acquire(int b, std::string* error) {
  std::string socket_name;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& s = slots_[static_cast<size_t>(b)];
    while (!s.idle.empty()) {
      std::unique_ptr<BotEndpoint> e = std::move(s.idle.back());
      s.idle.pop_back();
      if (e->alive()) return e;
      ++s.replaced;  // it died while idle
    }
    // snprintf, not string concatenation: GCC 12 warns falsely (-Wrestrict) on the latter here.
    char name[48];
    std::snprintf(name, sizeof name, "b%d-%d.sock", b, s.started++);
    socket_name = name;
  }
  // Starting takes time; other workers may use the pool meanwhile.
  return BotEndpoint::start(slots_[static_cast<size_t>(b)].spec, socket_dir_, socket_name,
                            startup_timeout_, error);
}

void BotPool::release(int b, std::unique_ptr<BotEndpoint> bot, bool healthy) {
  if (!bot) return;
  if (!healthy || !bot->alive()) {
    bot->stop(std::chrono::milliseconds(1000));
    std::lock_guard<std::mutex> lock(mutex_);
    ++slots_[static_cast<size_t>(b)].replaced;
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  slots_[static_cast<size_t>(b)].idle.push_back(std::move(bot));
}

int BotPool::replaced(int b) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slots_[static_cast<size_t>(b)].replaced;
}

void BotPool::shutdown() {
  std::vector<std::unique_ptr<BotEndpoint>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Slot& s : slots_)
      for (auto& e : s.idle) all.push_back(std::move(e));
    for (Slot& s : slots_) s.idle.clear();
  }
  stop_all(all, std::chrono::milliseconds(2000));
}

}  // namespace allfives::referee
