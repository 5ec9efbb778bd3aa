#include "transport/match_stream.h"

#include <algorithm>

namespace allfives::referee {
namespace {

// Waits are cut into slices so a raised stop flag is noticed quickly.
constexpr auto kSlice = std::chrono::milliseconds(50);

// The operations a stream starts. Each is its own completion-queue tag, and a set of them is a
// bit mask, so one wait can collect a write and a read together.
enum class Op : intptr_t {
  kStart = 0,          // StartCall: the null tag; nothing waits for it
  kWrite,              // a message to the bot
  kRead,               // the bot's answer
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

}  // namespace

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

IoStatus MatchStream::wait(unsigned ops, Clock::time_point deadline) {
  while (ops != 0) {
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
        if (n < 0 || n >= kNumOps || !(ops & bit(static_cast<Op>(n))))
          continue;  // a late completion of an abandoned operation
        if (!ok) {
          broken_ = true;
          return IoStatus::kClosed;
        }
        ops &= ~bit(static_cast<Op>(n));
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
  const unsigned ops = started_;
  started_ = 0;
  if (broken_) return IoStatus::kClosed;
  const IoStatus st = wait(ops, deadline);
  if (st == IoStatus::kOk && (ops & bit(Op::kFinish))) finished_ = true;
  return st;
}

void MatchStream::start_exchange(const v1::RefereeMessage& m, v1::BotMessage* answer) {
  if (broken_) return;
  stream_->Write(m, tag_of(Op::kWrite));
  stream_->Read(answer, tag_of(Op::kRead));
  pending_ += 2;
  started_ |= bit(Op::kWrite) | bit(Op::kRead);
}

void MatchStream::start_close(const v1::RefereeMessage& last) {
  if (broken_) return;
  stream_->WriteLast(last, grpc::WriteOptions(), tag_of(Op::kWriteLast));
  stream_->Finish(&status_, tag_of(Op::kFinish));
  finish_requested_ = true;
  pending_ += 2;
  started_ |= bit(Op::kWriteLast) | bit(Op::kFinish);
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
      stream_->Finish(&status_, tag_of(Op::kFinish));
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
    stream_->Finish(&status_, tag_of(Op::kFinishAfterCancel));
    finish_requested_ = true;
    void* got;
    bool ok;
    queue_.Next(&got, &ok);
  }
  finished_ = true;
}

}  // namespace allfives::referee
