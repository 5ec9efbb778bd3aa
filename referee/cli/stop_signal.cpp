#include "cli/stop_signal.h"

#include <csignal>

namespace allfives::referee {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

void on_signal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

}  // namespace

const std::atomic<bool>& install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A bot that dies mid-write must not kill the referee.
  std::signal(SIGPIPE, SIG_IGN);
  return g_stop;
}

int stop_signal() {
  return g_signal.load();
}

}  // namespace allfives::referee
