#include "allfives/bot/server.h"
#include "allfives/bot/health_service.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "allfives/core/rng.h"
#include "allfives/v1/bot.grpc.pb.h"
#include "session.h"

namespace allfives::bot {

uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ull;  // the FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x00000100000001B3ull;  // the FNV 64-bit prime
  }
  return h;
}

uint64_t match_seed(uint64_t base_seed, std::string_view match_id, int seat) {
  return derive_seed(derive_seed(base_seed, fnv1a64(match_id)), static_cast<uint64_t>(seat));
}

namespace {

// allfives.v1.Bot: every PlayMatch stream is one match with its own MatchSession and Bot, on
// the gRPC thread that serves the stream, so concurrent matches share nothing but the
// (const) identity and factory.
class BotService final : public v1::Bot::Service {
 public:
  BotService(BotIdentity identity, BotFactory factory, uint64_t seed)
      : identity_(std::move(identity)), factory_(std::move(factory)), seed_(seed) {}

  grpc::Status PlayMatch(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    if (!enter()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the bot is shutting down");
    struct Leave {
      BotService* self;
      ~Leave() { self->leave(); }
    } leave{this};
    detail::MatchSession session(identity_, factory_, seed_);
    v1::RefereeMessage in;
    v1::BotMessage out;
    while (stream->Read(&in)) {
      const auto received = std::chrono::steady_clock::now();
      bool has_answer = false;
      grpc::Status status = session.handle(in, received, &out, &has_answer);
      if (!status.ok()) {
        detail::log_line(session.label() + ": ending the stream: " + status.error_message());
        return status;
      }
      if (has_answer && !stream->Write(out)) {
        detail::log_line(session.label() + ": could not send the answer; the stream is closed");
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the stream closed before the answer");
      }
      if (session.finished()) return grpc::Status::OK;
    }
    if (context->IsCancelled()) {
      detail::log_line(session.label() + ": the stream was cancelled before MatchEnd");
      return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled before MatchEnd");
    }
    detail::log_line(session.label() + ": the referee closed the stream before MatchEnd");
    return grpc::Status::OK;
  }

  // Refuses new matches from now on.
  void start_draining() {
    std::lock_guard<std::mutex> lock(mu_);
    draining_ = true;
  }
  // Waits until no match is running or `deadline` passes; true if none is running.
  bool wait_idle(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return idle_.wait_until(lock, deadline, [&] { return active_ == 0; });
  }

 private:
  bool enter() {
    std::lock_guard<std::mutex> lock(mu_);
    if (draining_) return false;
    ++active_;
    return true;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--active_ == 0) idle_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable idle_;
  int active_ = 0;
  bool draining_ = false;
  const BotIdentity identity_;
  const BotFactory factory_;
  const uint64_t seed_;
};

}  // namespace

struct BotServer::Impl {
  std::unique_ptr<BotService> service;
  HealthService health;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::mutex mu;
  bool stopped = false;
};

BotServer::BotServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BotServer::~BotServer() {
  shutdown(std::chrono::milliseconds(500));
}

std::unique_ptr<BotServer> BotServer::start(const ServerOptions& options, BotIdentity identity,
                                            BotFactory factory, std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return std::unique_ptr<BotServer>();
  };
  if (options.listen.empty()) return fail("no address to listen on");
  if (!factory) return fail("no bot factory");

  auto impl = std::make_unique<Impl>();
  impl->service =
      std::make_unique<BotService>(std::move(identity), std::move(factory), options.seed);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(impl->service.get());
  builder.RegisterService(&impl->health);
  impl->server = builder.BuildAndStart();
  if (!impl->server) return fail("cannot listen on " + options.listen + " (gRPC says why above)");
  const bool is_unix = options.listen.rfind("unix", 0) == 0;
  if (!is_unix && port == 0) {
    impl->server->Shutdown();
    return fail("cannot listen on " + options.listen);
  }
  impl->port = is_unix ? 0 : port;
  return std::unique_ptr<BotServer>(new BotServer(std::move(impl)));
}

int BotServer::port() const {
  return impl_->port;
}

void BotServer::shutdown(std::chrono::milliseconds grace) {
  if (!impl_) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  // Drain first: refuse new matches, report NOT_SERVING, give running matches the grace
  // period. Then shut down at once: gRPC's own Shutdown(deadline) would also wait out the
  // deadline for idle client connections (a referee keeps its channel open), even when no
  // match is running.
  impl_->service->start_draining();
  impl_->health.set_serving(false);
  if (!impl_->service->wait_idle(std::chrono::steady_clock::now() + grace))
    detail::log_line("matches still running after the shutdown grace period are cancelled");
  impl_->server->Shutdown(std::chrono::system_clock::now());
  impl_->server->Wait();
}

}  // namespace allfives::bot
