#include "transport/bot_channel.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "transport/match_stream.h"

namespace allfives::referee {

// gRPC takes system_clock or gpr_timespec deadlines; ours are steady_clock (immune to clock
// changes), so they go over as gRPC's own monotonic clock.
gpr_timespec to_gpr(Clock::time_point t) {
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(t - Clock::now());
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_nanos(std::max<int64_t>(0, left.count()), GPR_TIMESPAN));
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& address) {
  grpc::ChannelArguments args;
  // One bot connection per channel: matches must not share a TCP connection with others.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(kMaxBotMessageBytes);
  // No compressed message from a bot: gRPC 1.51 checks the size limit against the compressed
  // message and inflates it whole, so 1 MiB of gzip became 1 GiB in the referee's memory. With
  // only "identity" enabled, the referee tells bots it accepts nothing else, and a stream whose
  // answers are compressed anyway fails when its headers arrive, before anything is inflated.
  args.SetInt(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET, 1u << GRPC_COMPRESS_NONE);
  // No bandwidth probes: their pings (about five a match, each answered) wake the bot for
  // nothing, and the window they tune matters only for bulk transfers, not a bot's answers.
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  // No channelz statistics (counters updated on every message): nothing here serves them.
  args.SetInt(GRPC_ARG_ENABLE_CHANNELZ, 0);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

int open_unix_socket(const std::string& path, const std::string& shown, Clock::time_point deadline,
                     const std::function<bool()>& alive, std::string* error) {
  struct stat st {};
  while (::lstat(path.c_str(), &st) != 0 && Clock::now() < deadline && (!alive || alive()))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const int fd = ::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (error) {
      *error = alive && !alive() ? "the bot process exited before it was ready"
                                 : "not serving before the start-up timeout: the socket " + shown +
                                       " was never created (" + strerrordesc_np(errno) + ")";
    }
    return -1;
  }
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    ::close(fd);
    if (error)
      *error = "its socket " + shown + " is not a socket but " +
               (S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
    return -1;
  }
  return fd;
}

std::shared_ptr<grpc::Channel> wait_until_serving(const std::string& address,
                                                  Clock::time_point deadline,
                                                  const std::function<bool()>& alive,
                                                  std::string* error) {
  // A Unix socket's file appears when the server starts listening: watching for it every
  // millisecond finds that moment far sooner than health checks that back off (a bot takes
  // about 10-15 ms to start here; the checks at 0, 5, 15 and 35 ms often found it at 35).
  std::string last = "no answer";
  if (address.rfind("unix:", 0) == 0) {
    const std::string path = address.substr(5);
    struct stat st {};
    while (::stat(path.c_str(), &st) != 0 && Clock::now() < deadline && (!alive || alive()))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (::stat(path.c_str(), &st) != 0) last = "the socket " + path + " was never created";
  }
  // The socket's file exists from bind(), a moment before listen(): a check refused then is
  // retried after 1 ms, then 2, 4... (starting at 5 ms cost such a start 5 ms).
  auto backoff = std::chrono::milliseconds(1);
  while (Clock::now() < deadline) {
    if (alive && !alive()) {
      if (error) *error = "the bot process exited before it was ready";
      return nullptr;
    }
    std::shared_ptr<grpc::Channel> channel = make_channel(address);
    auto stub = grpc::health::v1::Health::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(to_gpr(std::min(deadline, Clock::now() + std::chrono::milliseconds(500))));
    grpc::health::v1::HealthCheckRequest req;
    grpc::health::v1::HealthCheckResponse resp;
    const grpc::Status st = stub->Check(&ctx, req, &resp);
    if (st.ok() && resp.status() == grpc::health::v1::HealthCheckResponse::SERVING) return channel;
    last = st.ok() ? "health status " + std::to_string(resp.status()) : describe(st);
    std::this_thread::sleep_until(std::min(deadline, Clock::now() + backoff));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
  }
  if (error) *error = "not serving before the start-up timeout (last: " + last + ")";
  return nullptr;
}

}  // namespace allfives::referee
