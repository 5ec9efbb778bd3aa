// The connection to one bot: a gRPC channel of its own and the readiness probe (the standard
// health service) that waits until the bot serves. The match stream (match_stream.h) runs
// over the channel this gives.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace allfives::referee {

using Clock = std::chrono::steady_clock;

// A steady_clock deadline as gRPC's own monotonic clock (gRPC takes system_clock or
// gpr_timespec deadlines; ours are immune to changes of the wall clock).
gpr_timespec to_gpr(Clock::time_point t);

// The largest message a bot may send, as bot.proto states: a larger one fails the stream with
// RESOURCE_EXHAUSTED (gRPC's own default, set explicitly so it is one stated number).
constexpr int kMaxBotMessageBytes = 4 << 20;

// A channel to a bot, receiving at most kMaxBotMessageBytes per message.
std::shared_ptr<grpc::Channel> make_channel(const std::string& address);

// Waits until the Unix socket at `path` exists (checked every millisecond, while `alive`) or
// `deadline` passes, then opens it without following a symbolic link in its last part
// (O_PATH | O_NOFOLLOW) and checks that it is a socket. Returns that descriptor (the caller
// closes it), whose "unix:/proc/self/fd/N" reaches the socket the referee checked and no other,
// whatever the folder's owner puts at `path` later; or -1 and `error` says why. For a
// sandboxed bot's socket, whose folder the bot owns: a link there would otherwise be followed
// on the referee's side (an absolute link from the referee's root, not the sandbox's).
// `shown` names the socket in `error` as its owner knows it.
int open_unix_socket(const std::string& path, const std::string& shown, Clock::time_point deadline,
                     const std::function<bool()>& alive, std::string* error);

// Polls the standard health service at `address` until it answers SERVING or `deadline`
// passes (back-off: 5 ms doubling to 200 ms; for a Unix socket, only once its file exists),
// and returns the channel that got the answer.
// Each attempt uses a fresh channel: a channel whose first connection failed (the bot had not
// opened its socket yet) waits out gRPC's reconnect back-off, a second or more. `alive` is
// asked between attempts so a bot process that died is not waited for. On failure returns
// null and `error` says what was seen last.
std::shared_ptr<grpc::Channel> wait_until_serving(const std::string& address,
                                                  Clock::time_point deadline,
                                                  const std::function<bool()>& alive,
                                                  std::string* error);

}  // namespace allfives::referee
