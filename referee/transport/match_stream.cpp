#include "match_stream.h"

#include <sys/stat.h>

#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "process/utf8_text.h"

namespace allfives::referee {
namespace {

// Waits are cut into slices so a raised stop flag is noticed quickly.
constexpr auto kSlice = std::chrono::milliseconds(50);

// Operations are tagged with small numbers; wait() takes a set of them as bits.
constexpr int kWrite = 2, kRead = 3, kWriteLast = 4, kFinish = 5, kFinishAfterCancel = 6;
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

const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN_CODE";
  }
}

}  // namespace

std::string describe(const grpc::Status& status) {
  std::string out = "gRPC status ";
  out += code_name(status.error_code());
  out += " (" + std::to_string(static_cast<int>(status.error_code())) + ")";
  if (!status.error_message().empty()) out += ": " + valid_utf8(status.error_message());
  return out;
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& address) {
  grpc::ChannelArguments args;
  // One bot connection per channel: matches must not share a TCP connection with others.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(kMaxBotMessageBytes);
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

void MatchStream::start_read() {
  stream_->Read(&incoming_[1 - answer_], tag_of(kRead));
  reading_ = true;
  ++pending_;
}

void MatchStream::on_event(void* tag, bool ok) {
  --pending_;
  const auto n = static_cast<int>(reinterpret_cast<intptr_t>(tag));
  if (n == kRead) {
    reading_ = false;
    if (!ok) {
      // The bot's side of the stream is over: expected after the last message, else a break.
      if (!closing_) broken_ = true;
      return;
    }
    if (closing_ || cancelled_) return;  // after the match, or abandoned: ignored
    if (!asked_) {
      unasked_ = true;
      broken_ = true;
      return;
    }
    asked_ = false;
    answer_ = 1 - answer_;
    done_ |= bit(kRead);
    return;
  }
  if (!ok) {
    broken_ = true;
    return;
  }
  if (n >= 0 && n < 32) done_ |= bit(n);
}

void MatchStream::poll() {
  void* got = nullptr;
  bool ok = false;
  // A deadline in the past still lets gRPC read what the socket holds once.
  while (pending_ > 0 && queue_.AsyncNext(&got, &ok, gpr_inf_past(GPR_CLOCK_MONOTONIC)) ==
                             grpc::CompletionQueue::GOT_EVENT)
    on_event(got, ok);
}

void MatchStream::look() {
  if (broken_ || closing_ || !opened_) return;
  if (!reading_) start_read();
  poll();
}

IoStatus MatchStream::check() {
  look();
  if (unasked_) return IoStatus::kUnasked;
  return broken_ ? IoStatus::kClosed : IoStatus::kOk;
}

IoStatus MatchStream::wait(unsigned tags, Clock::time_point deadline) {
  for (;;) {
    if (unasked_) return IoStatus::kUnasked;
    if (broken_) return IoStatus::kClosed;
    if ((tags & ~done_) == 0) return IoStatus::kOk;
    if (stop_ && stop_->load(std::memory_order_relaxed)) {
      broken_ = true;
      cancel_and_drain();
      return IoStatus::kStopped;
    }
    const auto slice_end = std::min(deadline, Clock::now() + kSlice);
    void* got = nullptr;
    bool ok = false;
    switch (queue_.AsyncNext(&got, &ok, to_gpr(slice_end))) {
      case grpc::CompletionQueue::GOT_EVENT:
        on_event(got, ok);
        continue;
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
}

IoStatus MatchStream::wait_started(Clock::time_point deadline) {
  const unsigned tags = started_;
  started_ = 0;
  const IoStatus st = wait(tags, deadline);
  done_ &= ~tags;
  if (st == IoStatus::kOk && (tags & bit(kFinish))) finished_ = true;
  return st;
}

void MatchStream::start_exchange(const v1::RefereeMessage& m) {
  if (broken_) return;
  // A message already here was sent before this request: unasked.
  look();
  if (broken_) return;
  asked_ = true;
  done_ &= ~(bit(kWrite) | bit(kRead));
  stream_->Write(m, tag_of(kWrite));
  ++pending_;
  // The first request's Read follows its Write (a corked call starts with its first message).
  if (!opened_) start_read();
  opened_ = true;
  started_ |= bit(kWrite) | bit(kRead);
}

void MatchStream::start_close(const v1::RefereeMessage& last) {
  if (broken_) return;
  look();
  if (broken_) return;
  closing_ = true;
  done_ &= ~(bit(kWriteLast) | bit(kFinish));
  stream_->WriteLast(last, grpc::WriteOptions(), tag_of(kWriteLast));
  stream_->Finish(&status_, tag_of(kFinish));
  finish_requested_ = true;
  pending_ += 2;
  started_ |= bit(kWriteLast) | bit(kFinish);
}

IoStatus MatchStream::exchange(const v1::RefereeMessage& m, Clock::time_point deadline,
                               const std::function<void()>& meanwhile) {
  start_exchange(m);
  if (meanwhile) meanwhile();
  return wait_started(deadline);
}

grpc::Status MatchStream::finish_status() {
  if (!finished_ && stream_) {
    // The bot ended the stream or the connection broke: Finish() gets the status the bot (or
    // gRPC) ended it with, without cancelling first; it comes at once if the call is over.
    if (!finish_requested_) {
      stream_->Finish(&status_, tag_of(kFinish));
      finish_requested_ = true;
      ++pending_;
    }
    const auto until = Clock::now() + std::chrono::seconds(1);
    while (pending_ > 0) {
      void* got;
      bool ok;
      if (queue_.AsyncNext(&got, &ok, to_gpr(until)) != grpc::CompletionQueue::GOT_EVENT) break;
      on_event(got, ok);
    }
    if (pending_ == 0) finished_ = true;
  }
  cancel_and_drain();
  return status_;
}

// Ends the call for good and waits for every operation in flight, so nothing completes into
// a destroyed stream. Finish() after a cancel returns promptly with the final status.
void MatchStream::cancel_and_drain() {
  if (finished_ || !stream_) return;
  cancelled_ = true;
  context_.TryCancel();
  while (pending_ > 0) {
    void* got;
    bool ok;
    if (!queue_.Next(&got, &ok)) return;
    on_event(got, ok);
  }
  if (!finish_requested_) {
    stream_->Finish(&status_, tag_of(kFinishAfterCancel));
    finish_requested_ = true;
    void* got;
    bool ok;
    queue_.Next(&got, &ok);
  }
  finished_ = true;
}

}  // namespace allfives::referee
