// The SDK's gRPC server without the command line and the signals: what run() uses, exposed
// for tests and for programs that embed a bot in a larger process. Most bots call run(); one
// that embeds the server chooses gRPC's polling engine itself (run() picks "poll", bot.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "allfives/bot/bot.h"

namespace allfives::bot {

// MatchInfo::seed: derived from the bot's --seed, the match id and the seat only, so a bot's
// randomness in a match does not depend on which matches it played before or alongside it.
// It is the core's allfives::match_seed (allfives/core/rng.h), which the Python SDK binds.
uint64_t match_seed(uint64_t base_seed, std::string_view match_id, int seat);

struct ServerOptions {
  std::string listen;  // unix:/path/to.sock or host:port (port 0 picks a free port)
  uint64_t seed = 0;   // base of MatchInfo::seed
};

// A running gRPC server that serves allfives.v1.Bot (one Bot object per PlayMatch stream,
// streams served concurrently) and the standard health service (Check), which reports
// SERVING until shutdown() starts. A lone match runs on the server's polling thread; while
// several run at once, their bots run on separate threads.
class BotServer {
 public:
  // Starts serving. Returns null and says why in `error` if the address cannot be used.
  // `factory` may be called from several threads at once.
  static std::unique_ptr<BotServer> start(const ServerOptions& options, BotIdentity identity,
                                          BotFactory factory, std::string* error);
  // Shuts down with a short grace period if shutdown() was not called.
  ~BotServer();
  BotServer(const BotServer&) = delete;
  BotServer& operator=(const BotServer&) = delete;

  // The TCP port bound (useful with host:0); 0 for unix sockets.
  int port() const;
  // Stops accepting matches, lets running streams finish for up to `grace`, then cancels
  // them, and returns once every handler has returned. Safe to call more than once.
  void shutdown(std::chrono::milliseconds grace);

  struct Impl;  // the implementation (server.cpp); public only so its helpers can name it

 private:
  explicit BotServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace allfives::bot
