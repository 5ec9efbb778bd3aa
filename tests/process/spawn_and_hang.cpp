// Test helper standing in for a referee that dies without cleaning up.
//
//   spawn_and_hang PIDFILE COUNT PROGRAM [ARGS...]
//
// Starts COUNT bots running PROGRAM ARGS with BotProcess, writes one line "PID PGID GUARDIAN"
// per bot to PIDFILE (atomically, via rename), then hangs until it is killed. It gives up after
// 60 s (stopping its bots properly), so a broken test cannot leave it behind for ever.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "process/bot_process.h"

int main(int argc, char** argv) {
  using allfives::referee::BotProcess;
  using allfives::referee::LaunchSpec;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s PIDFILE COUNT PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  const std::string pidfile = argv[1];
  const int count = std::atoi(argv[2]);
  LaunchSpec spec;
  spec.argv.assign(argv + 3, argv + argc);

  std::vector<std::unique_ptr<BotProcess>> bots;
  for (int i = 0; i < count; ++i) {
    std::string error;
    // Start each bot from its own short-lived thread, as a careless caller might: the bots must
    // still live on (and still die with this process).
    std::thread([&] { bots.push_back(BotProcess::start(spec, &error)); }).join();
    if (bots.back() == nullptr) {
      std::fprintf(stderr, "spawn_and_hang: %s\n", error.c_str());
      return 1;
    }
  }
  {
    std::ofstream out(pidfile + ".tmp");
    for (const auto& bot : bots) {
      out << bot->pid() << ' ' << ::getpgid(bot->pid()) << ' ' << bot->guardian_pid() << '\n';
    }
  }
  std::rename((pidfile + ".tmp").c_str(), pidfile.c_str());

  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fprintf(stderr, "spawn_and_hang: not killed within 60 s, stopping the bots\n");
  return 3;  // the bots' destructors stop them
}
