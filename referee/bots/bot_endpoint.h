// A bot as the referee reaches it: a program it starts, or an address it connects to.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "allfives/v1/common.pb.h"
#include "allfives/v1/log.pb.h"
#include "bots/bot_spec.h"
#include "process/bot_process.h"

namespace allfives::referee {

// A bot ready to play: its channel and, for a started bot, its process.
class BotEndpoint {
 public:
  // Starts (or connects to) the bot and waits until its health service says SERVING:
  // launch() then wait_ready(). On failure returns nullptr and explains in `error`.
  static std::unique_ptr<BotEndpoint> start(const BotSpec& spec, const std::string& socket_dir,
                                            const std::string& socket_name,
                                            std::chrono::milliseconds startup_timeout,
                                            std::string* error);
  // Starts the program of a started bot or notes the address of a connected one, without
  // waiting, so that several bots start up together. A started bot listens on a Unix socket
  // named `socket_name` in a folder of its own, the only place it may write besides its /tmp:
  // sandboxed, a tmpfs of kSocketDirSizeMib at kSandboxSocketDir inside its sandbox; without
  // the sandbox, a folder made in `socket_dir`. It is confined as its spec's Confinement says.
  // Returns nullptr and says why if the program cannot be started.
  static std::unique_ptr<BotEndpoint> launch(const BotSpec& spec, const std::string& socket_dir,
                                             const std::string& socket_name, std::string* error);
  // Waits until the bot's health service says SERVING. On failure stops the bot and explains
  // in `error` (the bot's output is appended when there is some). `give_up` (may be empty) is
  // asked while waiting: once it says true, the wait fails at once (the caller no longer needs
  // the bot, through no fault of its own).
  bool wait_ready(std::chrono::steady_clock::time_point deadline, std::string* error,
                  const std::function<bool()>& give_up = {});
  // When launch() started it: each bot's start-up timeout counts from its own launch.
  std::chrono::steady_clock::time_point launched_at() const { return launched_at_; }
  ~BotEndpoint();

  const BotSpec& spec() const { return spec_; }
  // What the referee connects to: the address given, or a started bot's Unix socket (for a
  // sandboxed bot, through its sandbox's root: unix:/proc/<pid>/root/run/bot/NAME; empty until
  // wait_ready() has found it).
  const std::string& address() const { return address_; }
  grpc::Channel& channel() { return *channel_; }
  // Null for a bot the referee connected to.
  BotProcess* process() { return process_.get(); }
  // How the bot was confined, for the log header (empty for a bot reached at an address).
  v1::LogConfinement confinement_record() const;
  // For a started bot: whether its process still runs. Always true for a connected bot.
  bool alive();
  // Shuts a started bot down: SIGTERM to its group, then SIGKILL after `grace`.
  void stop(std::chrono::milliseconds grace);
  // Starts stop() without waiting: closes the connection and sends the SIGTERM.
  void request_stop();
  // Whether the CPU guard has seen this process use the CPU while the referee waited on
  // another bot (then it is frozen whenever it is not waited on, for the rest of its life).
  bool thinks_off_turn() const { return thinks_off_turn_; }
  void set_thinks_off_turn() { thinks_off_turn_ = true; }

 private:
  BotEndpoint() = default;
  BotSpec spec_;
  std::string address_;      // what the referee connects to (a sandboxed bot's: once ready)
  std::string listen_path_;  // a started bot's socket, as the bot sees it
  std::chrono::steady_clock::time_point launched_at_;
  // A sandboxed bot's socket, opened once it exists (open_unix_socket()); the channel goes
  // through it, so a link the bot puts in its folder later leads nowhere else.
  int socket_fd_ = -1;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<BotProcess> process_;
  bool thinks_off_turn_ = false;
};

// Stops every bot at once (all are told first, then each is waited for), so shutting down n
// bots takes about as long as the slowest rather than the sum. Null entries are skipped.
void stop_all(const std::vector<std::unique_ptr<BotEndpoint>>& bots,
              std::chrono::milliseconds grace);

// How a bot that was to sit at a seat would have been confined (its spec's Confinement), for
// the log of a match whose seat has no process to describe (its program could not be started).
// Empty for a bot reached at an address.
v1::LogConfinement planned_confinement(const BotSpec& spec);

// Waits until every bot marked in `waiting` is ready, so bots launched one after the other start
// up together (each launch() first, then this). They are awaited at once, each until its own
// deadline, `timeout` after its own launch: whatever one bot does (answering NOT_SERVING until
// the last moment, say), another is judged by its own start-up alone. An entry that is null
// (its launch failed; `errors` says why) or fails to become ready makes the match unplayable:
// every marked entry not yet ready is then stopped and left null without an error of its own,
// since only a bot that failed by itself is to blame. Entries not marked (an idle bot already
// serving) are left as they are. Once `stop` (may be null) is raised, the entries not yet ready
// are stopped with "the referee was stopped". Each entry stopped here leaves its confinement
// record in `confinements` (if not null; resized like `errors`). Returns false if any entry
// ends null.
bool wait_all_ready(std::vector<std::unique_ptr<BotEndpoint>>& bots,
                    const std::vector<bool>& waiting, std::chrono::milliseconds timeout,
                    std::vector<std::string>& errors, const std::atomic<bool>* stop = nullptr,
                    std::vector<v1::LogConfinement>* confinements = nullptr);

}  // namespace allfives::referee
