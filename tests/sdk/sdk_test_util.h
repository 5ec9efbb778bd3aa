// Shared pieces of the SDK suites: temporary directories and an in-process SDK server.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "allfives/bot/server.h"
#include "mini_referee.h"

namespace allfives::testing {

// A fresh directory under the system's temp dir, removed with everything in it. Unix socket
// paths must stay short (108 bytes), so the name is short too.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "afsdk.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string socket(const std::string& name) const { return "unix:" + (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The SDK's server in this process, on a unix socket of its own, with a client stub.
struct TestServer {
  TempDir dir;
  std::string address;
  std::unique_ptr<bot::BotServer> server;
  std::unique_ptr<v1::Bot::Stub> stub;

  TestServer(bot::BotFactory factory, uint64_t seed = 0,
             bot::BotIdentity identity = {"test-bot", "0.1"}) {
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
