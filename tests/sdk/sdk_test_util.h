// Shared pieces of the SDK suites: an in-process SDK server in a temporary folder.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "allfives/bot/server.h"
#include "common/temp_dir.h"
#include "mini_referee.h"

namespace allfives::testing {

// The SDK's server in this process, on a unix socket of its own, with a client stub.
// `folder_prefix` names its folder (tests/common/temp_dir.h).
struct TestServer {
  TempDir dir;
  std::string address;
  std::unique_ptr<bot::BotServer> server;
  std::unique_ptr<v1::Bot::Stub> stub;

  TestServer(bot::BotFactory factory, uint64_t seed = 0,
             bot::BotIdentity identity = {"test-bot", "0.1"},
             const std::string& folder_prefix = "allfives-sdk")
      : dir(folder_prefix) {
    address = dir.socket("bot.sock");
    std::string error;
    server =
        bot::BotServer::start({address, seed}, std::move(identity), std::move(factory), &error);
    if (!server) throw std::runtime_error("the SDK server did not start: " + error);
    stub = v1::Bot::NewStub(connect(address));
  }
  ~TestServer() {
    if (server) server->shutdown(std::chrono::milliseconds(500));
  }
};

}  // namespace allfives::testing
