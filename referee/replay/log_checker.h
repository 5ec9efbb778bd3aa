// The check behind load_replay (replay.h): a log's records against the rules core, one record
// at a time. Internal to replay/: log_checker.cpp reads the header and the hands' starts,
// log_checker_moves.cpp the plays, draws and passes, log_checker_ends.cpp the hands' and the
// match's ends, the faults and the bots' output.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "allfives/core/state.h"
#include "allfives/v1/log.pb.h"
#include "replay/log_words.h"
#include "replay/replay.h"

namespace allfives::referee::log_check {

using namespace log_words;

// A log tile as a core tile: halves 0..6, the high half first.
bool tile_of(const v1::Tile& m, Tile& out);
// A log list of tiles as a set; false if a tile is malformed or listed twice.
bool set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet& out);
// The log's list holds exactly `expected`.
bool same_tiles(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet expected);

inline constexpr int kMaxHands = kMaxHandLimit;

class Checker {
 public:
  Checker(const std::string& file, Replay& out, LogError& error, const ReplayOptions& options)
      : file_(file),
        out_(out),
        error_(error),
        keep_steps_(options.keep_steps),
        keep_decisions_(options.keep_decisions),
        deals_from_seed_(options.deals_from_seed) {}

  // Checks one record; with keep_steps it is moved into a new step.
  bool record(int line, v1::LogRecord& r);
  bool finish(int last_line);

 private:
  enum class Phase { kHeader, kPlaying, kFaulted, kEnded };

  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = printable(message, 600);
    return false;
  }
  bool header(int line, const v1::LogHeader& h);
  bool hand_start(int line, const v1::LogHandStart& h);
  // Without deals_from_seed: the state restarted from the hand's logged deal, and the hand's
  // start as the core would report it for that deal (in logged_start_).
  bool take_logged_deal(int line, const v1::LogHandStart& h, const Event& rules);
  bool play(int line, const v1::LogPlay& p);
  // The decision fields of a play (log_version 2 on): the options against the rules core's
  // legal plays and points on `before`, the bank against the seat's clock, the comment's cap.
  bool decision(int line, const v1::LogPlay& p, const State& st);
  // The play as a timed decision of its seat (with keep_decisions).
  void keep_decision(const v1::LogPlay& p, int legal);
  bool draw(int line, const v1::LogDraw& d);
  bool pass(int line, const v1::LogPass& p);
  bool hand_end(int line, const v1::LogHandEnd& h);
  bool fault(int line, const v1::LogFault& f);
  bool match_end(int line, const v1::LogMatchEnd& m);
  bool bot_output(int line, const v1::LogBotOutput& b);

  // The next event the core reported that the log has not shown yet (match ends aside).
  const Event* peek() {
    while (next_ < pending_.size() && pending_[next_].kind == EventKind::kMatchEnd) ++next_;
    return next_ < pending_.size() ? &pending_[next_] : nullptr;
  }
  std::string expected() {
    if (const Event* e = peek()) return what(*e);
    if (state_->is_terminal()) return "the end of the match";
    return "a play by seat " + num(state_->seat_to_move());
  }
  // The next pending event, if it is of `kind`; else fails naming what the log has (words
  // built only then) and what the rules expect.
  template <class Words>
  const Event* take(int line, EventKind kind, const Words& log_words) {
    const Event* e = peek();
    if (!e || e->kind != kind) {
      fail(line, "the log has " + log_words() + " here; the rules expect " + expected());
      return nullptr;
    }
    ++next_;
    return e;
  }
  template <class Words>
  bool check_hand_index(int line, const Words& what, uint32_t log, int rules) {
    if (log == static_cast<uint32_t>(rules)) return true;
    return fail(line,
                what() + ": the log says hand " + num(log) + "; the rules say hand " + num(rules));
  }
  template <class Words>
  bool check_scores(int line, const Words& what,
                    const google::protobuf::RepeatedField<uint32_t>& log) {
    bool same = log.size() == sides_;
    for (int s = 0; same && s < sides_; ++s) same = log[s] == static_cast<uint32_t>(scores_[s]);
    if (same) return true;
    return fail(line, what() + ": the log says scores " + scores_words(log) +
                          "; the rules say scores " + scores_words(scores_, sides_));
  }

  const std::string& file_;
  Replay& out_;
  LogError& error_;
  const bool keep_steps_;
  const bool keep_decisions_;
  const bool deals_from_seed_;
  Event logged_start_{};

  Phase phase_ = Phase::kHeader;
  Config config_;
  int n_ = 0;
  int sides_ = 0;
  uint32_t log_version_ = 0;
  std::array<uint32_t, kMaxPlayers> move_ms_{}, bank_ms_{};  // per seat; bank_ms_ what is left
  uint64_t seed_ = 0;
  std::optional<State> state_;
  EventList pending_;
  int next_ = 0;
  std::array<int, kMaxPlayers> scores_{};
  ReplayTable table_;
  std::array<TileSet, kMaxPlayers> dealt_{};          // each seat's hand as dealt
  std::array<int, kMaxPlayers> decisions_in_hand_{};  // each seat's plays so far in the hand
  int hands_started_ = 0;
  Event last_hand_end_{};
  v1::LogRecord::KindCase last_kind_ = v1::LogRecord::KIND_NOT_SET;
  std::optional<v1::LogFault> fault_;
  int fault_line_ = 0;
  std::array<bool, kMaxPlayers> output_seen_{};
};

}  // namespace allfives::referee::log_check
