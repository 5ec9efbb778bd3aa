#include "match_stream.h"

#include <sys/stat.h>

#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"

namespace allfives::referee {
namespace {

// Waits are cut into slices so a raised stop flag is noticed quickly.
constexpr auto kSlice = std::chrono::milliseconds(50);

// Operations are tagged with small numbers; wait() takes a set of them as bits.
void* tag_of(int n) {
  return reinterpret_cast<void*>(static_cast<intptr_t>(n));
}
constexpr unsigned bit(int n) {
  return 1u << n;
}

// gRPC takes system_clock or gpr_timespec deadlines; ours are steady_clock (immune to clock
// changes), so they go over as gRPC's own monotonic clock.
gpr_timespec to_gpr(Clock::time_point t) {
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(t - Clock::now());
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_nanos(std::max<int64_t>(0, left.count()), GPR_TIMESPAN));
}

}  // namespace

std::shared_ptr<grpc::Channel> make_channel(const std::string& address) {
  grpc::ChannelArguments args;
  // One bot connection per channel: matches must not share a TCP connection with others.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
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
  auto backoff = std::chrono::milliseconds(5);
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
    last = st.ok() ? "health status " + std::to_string(resp.status()) : st.error_message();
    std::this_thread::sleep_until(std::min(deadline, Clock::now() + backoff));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
  }
  if (error) *error = "not serving before the start-up timeout (last: " + last + ")";
  return nullptr;
}

std::unique_ptr<MatchStream> MatchStream::start(grpc::Channel& channel,
                                                const std::atomic<bool>* stop) {
  std::unique_ptr<MatchStream> s(new MatchStream(stop));
  std::shared_ptr<grpc::Channel> ch(std::shared_ptr<grpc::Channel>{}, &channel);
  s->stub_ = v1::Bot::NewStub(ch);
  // Corked: the call's headers leave with the first message, so opening a stream costs no
  // round of its own (and StartCall has nothing to wait for).
  s->context_.set_initial_metadata_corked(true);
  s->stream_ = s->stub_->PrepareAsyncPlayMatch(&s->context_, &s->queue_);
  s->stream_->StartCall(nullptr);
  return s;
}

MatchStream::~MatchStream() {
  cancel_and_drain();
  queue_.Shutdown();
  void* tag;
  bool ok;
  while (queue_.Next(&tag, &ok)) {
  }
}

IoStatus MatchStream::wait(unsigned tags, Clock::time_point deadline) {
  while (tags != 0) {
    if (stop_ && stop_->load(std::memory_order_relaxed)) {
      broken_ = true;
      cancel_and_drain();
      return IoStatus::kStopped;
    }
    const auto slice_end = std::min(deadline, Clock::now() + kSlice);
    void* got = nullptr;
    bool ok = false;
    switch (queue_.AsyncNext(&got, &ok, to_gpr(slice_end))) {
      case grpc::CompletionQueue::GOT_EVENT: {
        --pending_;
        const auto n = reinterpret_cast<intptr_t>(got);
        if (n < 0 || n >= 32 || !(tags & bit(static_cast<int>(n))))
          continue;  // a late completion of an abandoned operation
        if (!ok) {
          broken_ = true;
          return IoStatus::kClosed;
        }
        tags &= ~bit(static_cast<int>(n));
        continue;
      }
      case grpc::CompletionQueue::TIMEOUT:
        if (Clock::now() >= deadline) {
          broken_ = true;
          cancel_and_drain();
          return IoStatus::kTimeout;
        }
        continue;
      case grpc::CompletionQueue::SHUTDOWN:
        broken_ = true;
        return IoStatus::kClosed;
    }
  }
  return IoStatus::kOk;
}

IoStatus MatchStream::wait_started(Clock::time_point deadline) {
  const unsigned tags = started_;
  started_ = 0;
  if (broken_) return IoStatus::kClosed;
  const IoStatus st = wait(tags, deadline);
  if (st == IoStatus::kOk && (tags & bit(5))) finished_ = true;
  return st;
}

void MatchStream::start_exchange(const v1::RefereeMessage& m, v1::BotMessage* answer) {
  if (broken_) return;
  stream_->Write(m, tag_of(2));
  stream_->Read(answer, tag_of(3));
  pending_ += 2;
  started_ |= bit(2) | bit(3);
}

void MatchStream::start_close(const v1::RefereeMessage& last) {
  if (broken_) return;
  stream_->WriteLast(last, grpc::WriteOptions(), tag_of(4));
  stream_->Finish(&status_, tag_of(5));
  finish_requested_ = true;
  pending_ += 2;
  started_ |= bit(4) | bit(5);
}

IoStatus MatchStream::exchange(const v1::RefereeMessage& m, v1::BotMessage* answer,
                               Clock::time_point deadline, const std::function<void()>& meanwhile) {
  start_exchange(m, answer);
  if (meanwhile) meanwhile();
  return wait_started(deadline);
}

std::string MatchStream::finish_status() {
  if (!finished_ && stream_) {
    // The peer ended the stream: Finish() reports its status without cancelling first.
    while (pending_ > 0) {
      void* got;
      bool ok;
      if (queue_.AsyncNext(&got, &ok, to_gpr(Clock::now() + std::chrono::seconds(1))) !=
          grpc::CompletionQueue::GOT_EVENT)
        break;
      --pending_;
    }
    if (pending_ == 0 && !finish_requested_) {
      stream_->Finish(&status_, tag_of(5));
      finish_requested_ = true;
      void* got;
      bool ok;
      if (queue_.AsyncNext(&got, &ok, to_gpr(Clock::now() + std::chrono::seconds(1))) ==
          grpc::CompletionQueue::GOT_EVENT)
        finished_ = true;
      else
        ++pending_;
    }
  }
  cancel_and_drain();
  if (status_.ok()) return "";
  return "status " + std::to_string(status_.error_code()) + ": " + status_.error_message();
}

// Ends the call for good and waits for every operation in flight, so nothing completes into
// a destroyed stream. Finish() after a cancel returns promptly with the final status.
void MatchStream::cancel_and_drain() {
  if (finished_ || !stream_) return;
  context_.TryCancel();
  while (pending_ > 0) {
    void* got;
    bool ok;
    if (!queue_.Next(&got, &ok)) return;
    --pending_;
  }
  if (!finish_requested_) {
    stream_->Finish(&status_, tag_of(6));
    finish_requested_ = true;
    void* got;
    bool ok;
    queue_.Next(&got, &ok);
  }
  finished_ = true;
}

}  // namespace allfives::referee
