#include "transport/match_stream.h"

#include <algorithm>

#include "text/utf8_text.h"

namespace allfives::referee {
namespace {

// Waits are cut into slices so a raised stop flag is noticed quickly.
constexpr auto kSlice = std::chrono::milliseconds(50);

// The operations a stream starts. Each is its own completion-queue tag, and a set of them is a
// bit mask, so one wait can collect a write and a read together.
enum class Op : intptr_t {
  kStart = 0,          // StartCall: the null tag; nothing waits for it
  kWrite,              // a message to the bot
  kRead,               // the bot's answer (or a message nobody asked for)
  kWriteLast,          // the final message
  kFinish,             // the bot's end of the stream
  kFinishAfterCancel,  // the end of the stream after a cancel
};
constexpr int kNumOps = static_cast<int>(Op::kFinishAfterCancel) + 1;

void* tag_of(Op op) {
  return reinterpret_cast<void*>(static_cast<intptr_t>(op));
}
constexpr unsigned bit(Op op) {
  return 1u << static_cast<int>(op);
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

std::unique_ptr<MatchStream> MatchStream::start(grpc::Channel& channel,
                                                const std::atomic<bool>* stop) {
  std::unique_ptr<MatchStream> s(new MatchStream(stop));
  std::shared_ptr<grpc::Channel> ch(std::shared_ptr<grpc::Channel>{}, &channel);
  s->stub_ = v1::Bot::NewStub(ch);
  // Corked: the call's headers leave with the first message, so opening a stream costs no
  // round of its own (and StartCall has nothing to wait for).
  s->context_.set_initial_metadata_corked(true);
  s->stream_ = s->stub_->PrepareAsyncPlayMatch(&s->context_, &s->queue_);
  s->stream_->StartCall(tag_of(Op::kStart));
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
  stream_->Read(&incoming_[1 - answer_], tag_of(Op::kRead));
  reading_ = true;
  ++pending_;
}

void MatchStream::on_event(void* tag, bool ok) {
  --pending_;
  const auto n = reinterpret_cast<intptr_t>(tag);
  if (n < 0 || n >= kNumOps) return;
  const auto op = static_cast<Op>(n);
  if (op == Op::kRead) {
    reading_ = false;
    if (!ok) {
      // The bot's side of the stream is over: expected after the last message, else a break.
      if (!closing_) broken_ = true;
      return;
    }
    if (closing_ || cancelled_) return;  // after the match, or abandoned: ignored
    // Hello's nonce is judged by the match runner after its protocol version, so a bot of
    // another version hears that rather than of a nonce.
    const bool wrong_nonce =
        asked_ && sent_nonces_.size() > 1 && incoming_[1 - answer_].nonce() != expected_nonce_;
    if (!asked_ || wrong_nonce) {
      unasked_ = true;
      unasked_by_nonce_ = wrong_nonce;
      broken_ = true;
      return;
    }
    asked_ = false;
    answer_ = 1 - answer_;
    done_ |= bit(Op::kRead);
    return;
  }
  if (!ok) {
    broken_ = true;
    return;
  }
  done_ |= bit(op);
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

IoStatus MatchStream::wait(unsigned ops, Clock::time_point deadline, const Watch* watch) {
  for (;;) {
    if (unasked_) return IoStatus::kUnasked;
    if (broken_) return IoStatus::kClosed;
    if ((ops & ~done_) == 0) return IoStatus::kOk;
    if (stop_ && stop_->load(std::memory_order_relaxed)) {
      broken_ = true;
      cancel_and_drain();
      return IoStatus::kStopped;
    }
    const auto slice_end =
        std::min(deadline, Clock::now() + (watch ? std::min(watch->every, kSlice) : kSlice));
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
        if (watch) watch->call();
        continue;
      case grpc::CompletionQueue::SHUTDOWN:
        broken_ = true;
        return IoStatus::kClosed;
    }
  }
}

IoStatus MatchStream::wait_started(Clock::time_point deadline) {
  const unsigned ops = started_;
  started_ = 0;
  const IoStatus st = wait(ops, deadline);
  done_ &= ~ops;
  if (st == IoStatus::kOk && (ops & bit(Op::kFinish))) finished_ = true;
  return st;
}

void MatchStream::start_exchange(const v1::RefereeMessage& m) {
  if (broken_) return;
  // No look first: a message sent before this request carries another request's nonce.
  asked_ = true;
  expected_nonce_ = m.nonce();
  sent_nonces_.push_back(m.nonce());
  done_ &= ~(bit(Op::kWrite) | bit(Op::kRead));
  stream_->Write(m, tag_of(Op::kWrite));
  ++pending_;
  // The Read follows the Write (the first request's must: a corked call starts with its first
  // message); check() may have opened it already.
  if (!reading_) start_read();
  opened_ = true;
  started_ |= bit(Op::kWrite) | bit(Op::kRead);
}

void MatchStream::start_close(const v1::RefereeMessage& last) {
  if (broken_) return;
  look();
  if (broken_) return;
  closing_ = true;
  done_ &= ~(bit(Op::kWriteLast) | bit(Op::kFinish));
  stream_->WriteLast(last, grpc::WriteOptions(), tag_of(Op::kWriteLast));
  stream_->Finish(&status_, tag_of(Op::kFinish));
  finish_requested_ = true;
  pending_ += 2;
  started_ |= bit(Op::kWriteLast) | bit(Op::kFinish);
}

IoStatus MatchStream::exchange(const v1::RefereeMessage& m, Clock::time_point deadline,
                               const std::function<void()>& meanwhile, const Watch* watch) {
  start_exchange(m);
  if (meanwhile) meanwhile();
  const unsigned ops = started_;
  started_ = 0;
  const IoStatus st = wait(ops, deadline, watch);
  done_ &= ~ops;
  return st;
}

int MatchStream::request_with_nonce(uint64_t nonce) const {
  for (size_t i = 0; i < sent_nonces_.size(); ++i)
    if (sent_nonces_[i] == nonce) return static_cast<int>(i);
  return -1;
}

grpc::Status MatchStream::finish_status() {
  if (!finished_ && stream_) {
    // The bot ended the stream or the connection broke: Finish() gets the status the bot (or
    // gRPC) ended it with, without cancelling first; it comes at once if the call is over.
    if (!finish_requested_) {
      stream_->Finish(&status_, tag_of(Op::kFinish));
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
    stream_->Finish(&status_, tag_of(Op::kFinishAfterCancel));
    finish_requested_ = true;
    void* got;
    bool ok;
    queue_.Next(&got, &ok);
  }
  finished_ = true;
}

}  // namespace allfives::referee
