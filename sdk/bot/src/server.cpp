#include "allfives/bot/server.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>

#include "allfives/core/rng.h"
#include "allfives/v1/bot.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "session.h"

namespace allfives::bot {

uint64_t match_seed(uint64_t base_seed, std::string_view match_id, int seat) {
  return allfives::match_seed(base_seed, match_id, seat);
}

namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// Runs tasks on as many threads as are busy at once, so a bot thinking in one match never
// delays another match; threads are kept for the next task and joined by stop().
class ElasticPool {
 public:
  ~ElasticPool() { stop(); }

  void submit(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    if (queue_.size() > idle_)
      threads_.emplace_back([this] { work(); });
    else
      wake_.notify_one();
  }
  // Runs what is queued, then joins every thread.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ++idle_;
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;  // stopping, nothing left
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;  // only touched under mu_, or by stop()
  size_t idle_ = 0;
  bool stopping_ = false;
};

// What a completion-queue tag points to: one call's state machine, advanced by each
// completion of its single operation in flight.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void proceed(bool ok) = 0;
};

}  // namespace

// The server runs on gRPC's asynchronous API with one thread that polls the completion queue
// and handles each message on the spot: the thread that reads a message from the socket
// also runs the bot and writes the answer. gRPC's synchronous server hands every message
// from a polling thread to a handler thread, and that wake-up cost more than everything
// else a trivial bot does (measured: bench_referee, bots' CPU per decision 90 -> 54 µs).
// While several matches run at once, their messages are handled on pool threads instead, so
// no match waits for another's bot to think. The price of the single poller: a call that
// arrives while a lone match's bot is thinking (a second match, a health probe) is read once
// that decision is made. A second polling thread would avoid it but costs a thread wake-up
// per message (gRPC hands the polling role from thread to thread), which doubled the bots'
// CPU. The referee's bot pool never runs two matches on one process, so only servers reached
// at an address by several concurrent matches can see this delay, of at most one decision.
struct BotServer::Impl {
  Impl(BotIdentity id, BotFactory f, uint64_t s)
      : identity(std::move(id)), factory(std::move(f)), seed(s) {}

  const BotIdentity identity;
  const BotFactory factory;
  const uint64_t seed;

  v1::Bot::AsyncService bot_service;
  grpc::health::v1::Health::AsyncService health_service;
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::unique_ptr<grpc::Server> server;
  std::thread poller;
  ElasticPool pool;
  int port = 0;

  std::mutex mu;  // guards the fields below
  std::condition_variable idle;
  int active = 0;              // matches accepted and not yet finished
  int live = 0;                // calls accepted and not yet released (matches and probes)
  bool draining = false;       // new matches are refused, health says NOT_SERVING
  bool shutting_down = false;  // no new requests may be queued
  bool stopped = false;        // shutdown() ran

  bool enter() {
    std::lock_guard<std::mutex> lock(mu);
    if (draining) return false;
    ++active;
    return true;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mu);
    if (--active == 0) idle.notify_all();
  }
  // Every accepted call is counted until released, so shutdown() can tell when no call will
  // start another operation (one started after the completion queue shut down would abort).
  void accepted() {
    std::lock_guard<std::mutex> lock(mu);
    ++live;
  }
  void released() {
    std::lock_guard<std::mutex> lock(mu);
    if (--live == 0) idle.notify_all();
  }
  bool alone() {
    std::lock_guard<std::mutex> lock(mu);
    return active <= 1;
  }
  bool serving() {
    std::lock_guard<std::mutex> lock(mu);
    return !draining;
  }
  // Queues a request for the next call unless the server is shutting down: a request queued
  // after the completion queue shut down would abort the process.
  template <typename Request>
  void unless_shutting_down(Request&& request) {
    std::lock_guard<std::mutex> lock(mu);
    if (!shutting_down) request();
  }
  void poll() {
    void* tag = nullptr;
    bool ok = false;
    while (cq->Next(&tag, &ok)) static_cast<Handler*>(tag)->proceed(ok);
  }
};

namespace {

using Impl = BotServer::Impl;

// One PlayMatch stream: one match with its own MatchSession and Bot, so concurrent matches
// share nothing but the (const) identity and factory. One operation is in flight at a time
// (read, then handle, then write the answer if there is one), so whichever thread advances
// the call owns it.
class MatchCall final : public Handler {
 public:
  explicit MatchCall(Impl& server) : server_(server) {
    server_.bot_service.RequestPlayMatch(&context_, &stream_, server_.cq.get(), server_.cq.get(),
                                         this);
  }

  void proceed(bool ok) override {
    switch (step_) {
      case Step::kRequested:
        if (!ok) return delete this;  // the server is shutting down
        server_.unless_shutting_down([&] { new MatchCall(server_); });
        server_.accepted();
        accepted_ = true;
        if (!server_.enter())
          return finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the bot is shutting down"));
        entered_ = true;
        session_.emplace(server_.identity, server_.factory, server_.seed);
        return read();
      case Step::kReading:
        if (!ok) {
          detail::log_line(session_->label() +
                           ": the referee closed or cancelled the stream before MatchEnd");
          return finish(grpc::Status::OK);
        }
        received_ = std::chrono::steady_clock::now();
        if (server_.alone()) return handle();
        return server_.pool.submit([this] { handle(); });
      case Step::kWriting:
        if (!ok) {
          detail::log_line(session_->label() + ": could not send the answer; the stream is closed");
          return finish(
              grpc::Status(grpc::StatusCode::UNAVAILABLE, "the stream closed before the answer"));
        }
        return session_->finished() ? finish(grpc::Status::OK) : read();
      case Step::kFinishing:
        if (entered_) server_.leave();
        if (accepted_) server_.released();
        return delete this;
    }
  }

 private:
  enum class Step { kRequested, kReading, kWriting, kFinishing };

  void read() {
    step_ = Step::kReading;
    // The previous message and answer are done with (handled, and written if there was one).
    arena_.Reset();
    in_ = google::protobuf::Arena::CreateMessage<v1::RefereeMessage>(&arena_);
    out_ = google::protobuf::Arena::CreateMessage<v1::BotMessage>(&arena_);
    stream_.Read(in_, this);
  }
  void handle() {
    bool has_answer = false;
    const grpc::Status status = session_->handle(*in_, received_, out_, &has_answer);
    if (!status.ok()) {
      detail::log_line(session_->label() + ": ending the stream: " + status.error_message());
      return finish(status);
    }
    if (has_answer) {
      step_ = Step::kWriting;
      return stream_.Write(*out_, this);
    }
    if (session_->finished()) return finish(grpc::Status::OK);
    read();
  }
  void finish(const grpc::Status& status) {
    step_ = Step::kFinishing;
    stream_.Finish(status, this);
  }

  Impl& server_;
  grpc::ServerContext context_;
  grpc::ServerAsyncReaderWriter<v1::BotMessage, v1::RefereeMessage> stream_{&context_};
  Step step_ = Step::kRequested;
  bool accepted_ = false;  // counted in Impl::live
  bool entered_ = false;   // counted in Impl::active
  std::optional<detail::MatchSession> session_;
  // Each message and its answer live in an arena with a first block of its own, so a turn
  // costs no heap allocation for them.
  alignas(8) char first_block_[8 * 1024];
  google::protobuf::Arena arena_{first_block_, sizeof first_block_};
  v1::RefereeMessage* in_ = nullptr;
  v1::BotMessage* out_ = nullptr;
  std::chrono::steady_clock::time_point received_;
};

// grpc.health.v1.Health/Check: SERVING until the server starts draining.
class HealthCheckCall final : public Handler {
 public:
  explicit HealthCheckCall(Impl& server) : server_(server) {
    server_.health_service.RequestCheck(&context_, &request_, &responder_, server_.cq.get(),
                                        server_.cq.get(), this);
  }
  void proceed(bool ok) override {
    if (answered_) server_.released();
    if (!ok || answered_) return delete this;
    server_.unless_shutting_down([&] { new HealthCheckCall(server_); });
    server_.accepted();
    answered_ = true;
    HealthCheckResponse response;
    response.set_status(server_.serving() ? HealthCheckResponse::SERVING
                                          : HealthCheckResponse::NOT_SERVING);
    responder_.Finish(response, grpc::Status::OK, this);
  }

 private:
  Impl& server_;
  grpc::ServerContext context_;
  HealthCheckRequest request_;
  grpc::ServerAsyncResponseWriter<HealthCheckResponse> responder_{&context_};
  bool answered_ = false;
};

}  // namespace

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

  auto impl = std::make_unique<Impl>(std::move(identity), std::move(factory), options.seed);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  // No bandwidth probes: their pings wake the referee for nothing, and the window they tune
  // matters only for bulk transfers, not for messages of a few hundred bytes.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  // No channelz statistics (counted on every message): a bot serves no channelz service.
  builder.AddChannelArgument(GRPC_ARG_ENABLE_CHANNELZ, 0);
  builder.RegisterService(&impl->bot_service);
  builder.RegisterService(&impl->health_service);
  impl->cq = builder.AddCompletionQueue();
  impl->server = builder.BuildAndStart();
  if (!impl->server) return fail("cannot listen on " + options.listen + " (gRPC says why above)");
  const bool is_unix = options.listen.rfind("unix", 0) == 0;
  impl->port = is_unix ? 0 : port;
  // Requests are queued before the check below so that shutdown() finds a normal server.
  new MatchCall(*impl);
  new HealthCheckCall(*impl);
  Impl* raw = impl.get();
  impl->poller = std::thread([raw] { raw->poll(); });
  std::unique_ptr<BotServer> server(new BotServer(std::move(impl)));
  if (!is_unix && port == 0) {
    server->shutdown(std::chrono::milliseconds(0));
    return fail("cannot listen on " + options.listen);
  }
  return server;
}

int BotServer::port() const {
  return impl_->port;
}

void BotServer::shutdown(std::chrono::milliseconds grace) {
  if (!impl_) return;
  Impl& s = *impl_;
  {
    // Drain first: refuse new matches, report NOT_SERVING, give running matches the grace
    // period. Then shut down at once: gRPC's own Shutdown(deadline) would also wait out the
    // deadline for idle client connections (a referee keeps its channel open), even when no
    // match is running.
    std::unique_lock<std::mutex> lock(s.mu);
    if (s.stopped) return;
    s.stopped = true;
    s.draining = true;
    if (!s.idle.wait_for(lock, grace, [&] { return s.active == 0; }))
      detail::log_line("matches still running after the shutdown grace period are cancelled");
    s.shutting_down = true;
  }
  // Cancels the running calls; the poller thread then finishes and releases them as their
  // operations fail (a pool thread still running a bot finishes its move first). Only then
  // may the completion queue shut down.
  s.server->Shutdown(std::chrono::system_clock::now());
  {
    std::unique_lock<std::mutex> lock(s.mu);
    s.idle.wait(lock, [&] { return s.live == 0; });
  }
  s.cq->Shutdown();
  s.poller.join();
  s.pool.stop();
}

}  // namespace allfives::bot
