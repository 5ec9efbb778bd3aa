#include "match/fake_bot.h"

#include <atomic>
#include <utility>

namespace allfives::referee::testing {

namespace {
std::atomic<int> next_id{0};
}  // namespace

Reply hello(uint32_t protocol, const std::string& name) {
  Reply r;
  v1::Hello* h = r.message.mutable_hello();
  h->set_name(name);
  h->set_version("1");
  h->set_protocol_version(protocol);
  return r;
}

Reply play_index(uint32_t index, const std::string& comment) {
  Reply r;
  r.message.mutable_play()->set_legal_play_index(index);
  r.message.mutable_play()->set_comment(comment);
  return r;
}

Reply first_legal(const v1::TurnRequest&) {
  return play_index(0);
}

std::function<Reply(const v1::RefereeMessage&, int)> honest_but(int turn, Reply r) {
  return [turn, r](const v1::RefereeMessage& m, int t) {
    if (m.has_match_start()) return turn < 0 ? r : hello();
    return t == turn ? r : first_legal(m.turn_request());
  };
}

// The stream as MatchStream behaves (match_stream.h), in memory: a message that arrived while
// nothing was asked is caught by its timing (check()) or by the nonce it carries when it is
// read as the answer to the next request (Hello's nonce is left to the match runner).
class FakeBot::Stream final : public BotStream {
 public:
  Stream(FakeBot& bot, const std::atomic<bool>* stop) : bot_(bot), stop_(stop) {}

  uint64_t new_nonce() override { return 0x5eed0000u + ++nonce_count_; }

  IoStatus exchange(const v1::RefereeMessage& m, Clock::time_point deadline,
                    const std::function<void()>& meanwhile, const Watch* watch) override {
    start_exchange(m);
    if (meanwhile) meanwhile();
    if (thinking_) {
      if (watch) watch->call();
      std::exchange(thinking_, nullptr)();
    }
    return wait_started(deadline);
  }
  const v1::BotMessage& answer() const override { return answer_; }
  IoStatus check() override {
    if (arrived_ && !unasked_) take_unasked(false);
    if (unasked_) return IoStatus::kUnasked;
    return broken_ ? IoStatus::kClosed : IoStatus::kOk;
  }
  const v1::BotMessage& unasked() const override { return unasked_message_; }
  bool unasked_by_nonce() const override { return by_nonce_; }
  int request_with_nonce(uint64_t nonce) const override {
    for (size_t i = 0; i < sent_.size(); ++i)
      if (sent_[i] == nonce) return static_cast<int>(i);
    return -1;
  }
  grpc::Status finish_status() override { return status_; }
  bool broken() const override { return broken_; }

  void start_exchange(const v1::RefereeMessage& m) override {
    if (broken_) return;
    if (arrived_) {
      // Read as this request's answer, it carries another request's nonce.
      take_unasked(arrived_->nonce() != m.nonce());
      return;
    }
    sent_.push_back(m.nonce());
    const Reply r = bot_.reply_to(m);
    bot_.output_ += r.printed;
    thinking_ = r.while_thinking;
    switch (r.kind) {
      case Reply::Kind::kAnswer:
        answer_ = r.message;
        answer_.set_nonce(r.nonce.value_or(m.nonce()));
        if (sent_.size() > 1 && answer_.nonce() != m.nonce()) {
          arrived_ = answer_;
          take_unasked(true);
          return;
        }
        if (r.unasked) {
          arrived_ = *r.unasked;
          if (!r.unasked->nonce()) arrived_->set_nonce(m.nonce());  // a second answer
        }
        result_ = IoStatus::kOk;
        return;
      case Reply::Kind::kTimeout:
        break_with(IoStatus::kTimeout, grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
        return;
      case Reply::Kind::kClose:
        break_with(IoStatus::kClosed, r.status);
        return;
      case Reply::Kind::kCrash:
        bot_.running_ = false;
        bot_.exit_ = r.exit;
        break_with(IoStatus::kClosed, grpc::Status(grpc::StatusCode::UNAVAILABLE, "Socket closed"));
        return;
    }
  }
  void start_close(const v1::RefereeMessage& last) override {
    if (broken_) return;
    if (arrived_) take_unasked(false);
    if (broken_) return;
    bot_.received_.push_back(last);
    bot_.closed_by_referee_ = true;
    result_ = IoStatus::kOk;
  }
  IoStatus wait_started(Clock::time_point) override {
    if (stop_ && stop_->load() && result_ == IoStatus::kOk && !broken_) {
      broken_ = true;
      return IoStatus::kStopped;
    }
    const IoStatus st = unasked_ ? IoStatus::kUnasked : result_;
    result_ = IoStatus::kOk;
    return st;
  }

 private:
  void take_unasked(bool by_nonce) {
    unasked_message_ = *arrived_;
    arrived_.reset();
    unasked_ = true;
    by_nonce_ = by_nonce;
    broken_ = true;
  }
  void break_with(IoStatus st, grpc::Status status) {
    result_ = st;
    status_ = std::move(status);
    broken_ = true;
  }

  FakeBot& bot_;
  const std::atomic<bool>* stop_;
  uint64_t nonce_count_ = 0;
  std::vector<uint64_t> sent_;
  v1::BotMessage answer_;
  std::optional<v1::BotMessage> arrived_;  // sent while nothing was asked, not yet seen
  std::function<void()> thinking_;         // the reply's while_thinking, until exchange() runs it
  v1::BotMessage unasked_message_;
  bool unasked_ = false;
  bool by_nonce_ = false;
  bool broken_ = false;
  IoStatus result_ = IoStatus::kOk;
  grpc::Status status_;
};

FakeBot::FakeBot(Script script, bool has_process)
    : script_(std::move(script)), has_process_(has_process), id_(++next_id) {}

FakeBot::~FakeBot() = default;

std::unique_ptr<BotStream> FakeBot::open_stream(const std::atomic<bool>* stop) {
  ++streams_opened_;
  return std::make_unique<Stream>(*this, stop);
}

Reply FakeBot::reply_to(const v1::RefereeMessage& m) {
  received_.push_back(m);
  const int turn = m.has_turn_request() ? turns_++ : turns_;
  if (script_) return script_(m, turn);
  return m.has_match_start() ? hello() : first_legal(m.turn_request());
}

CappedOutput::Taken FakeBot::take_output(size_t cap) {
  CappedOutput::Taken t;
  t.text = output_.substr(0, cap);
  t.kept = t.text.size();
  t.dropped = output_.size() - t.text.size();
  output_.clear();
  return t;
}

}  // namespace allfives::referee::testing
