// What each record of the match log holds (proto/allfives/v1/log.proto), built from the rules
// core's events and the match's terms. The match runner decides when a record is written; these
// functions say what goes in it, and queue it on the log (MatchLog::add).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/core/events.h"
#include "allfives/core/line.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"
#include "allfives/v1/log.pb.h"
#include "ending/match_ending.h"
#include "log/match_log.h"
#include "process/resource_limits.h"

namespace allfives::referee {

// The header's match part: versions, match id, terms, seed and the start time. The seats are
// added with add_log_bot.
v1::LogHeader& add_log_header(MatchLog& log, const std::string& match_id, const Config& config,
                              uint64_t seed, std::chrono::milliseconds move_time,
                              std::chrono::milliseconds time_bank);

// One seat of the header: who sat there and under which time control.
struct LogSeat {
  std::string display_name;
  std::string name, version;  // from its Hello
  std::string command;        // how it was started; empty for a bot reached at an address
  std::string address;
  std::chrono::milliseconds move_time{0}, time_bank{0};
  uint32_t protocol_version = 0;  // the one its Hello said it speaks; 0 without a Hello
};
v1::LogBot& add_log_bot(v1::LogHeader& header, Format format, int seat, const LogSeat& s);

// The records of a hand as the core reports it. `scores` are every side's scores once the
// event is done; `line` is the line after a play.
void log_hand_start(MatchLog& log, const Event& e, Format format, std::span<const int> scores);
// What a bot printed in one window of its capture (LogOutput), already made valid UTF-8
// (`invalid_utf8_bytes` replaced), with what the caps dropped.
struct LogPrinted {
  std::string text;
  uint64_t dropped_bytes = 0;
  uint64_t invalid_utf8_bytes = 0;
  bool empty() const { return text.empty() && dropped_bytes == 0; }
};
// The caps on what a bot printed (log.proto, LogOutput): per decision, and per process and
// match over all its records together.
inline constexpr size_t kMaxDecisionOutputBytes = 8 * 1024;
inline constexpr size_t kMaxMatchOutputBytes = 128 * 1024;

// The decision a play answered: the plays offered on the line before it, the time it took,
// the bank left after it, the bot's comment and what it printed meanwhile (LogPlay's decision
// fields).
struct LogDecision {
  uint32_t decision_us = 0;
  PlayList offered;
  Line before;
  std::chrono::milliseconds bank_left{0};
  std::string comment;  // at most wire::kMaxCommentBytes, whole characters
  uint32_t comment_dropped = 0;
  LogPrinted output;  // empty: nothing printed while the decision was pending
};
void log_play(MatchLog& log, const Event& e, int side_score, const LogDecision& decision);
// `comment` cut to at most `max_bytes` at a character boundary; `dropped` gets the rest's size.
std::string capped_comment(std::string_view comment, size_t max_bytes, uint32_t* dropped);
// The tiles drawn, in the boneyard's order (Event::drawn).
void log_draw(MatchLog& log, const Event& e);
void log_pass(MatchLog& log, const Event& e);
void log_hand_end(MatchLog& log, const Event& e, Format format, std::span<const int> scores);

// The fault that ended the match, in hand `hand_index`, with what the seat's bot printed while
// the decision that ended in it was pending (empty for none).
void log_fault(MatchLog& log, Format format, int seat, v1::FaultKind kind,
               const std::string& reason, int hand_index, const LogPrinted& output = {});

// How the match ended, and per seat what the CPU guard measured of it off its turn (both empty
// when no seat was guarded).
void log_match_end(MatchLog& log, const MatchEnding& end,
                   std::span<const uint64_t> off_turn_cpu_us = {},
                   const std::vector<bool>& frozen_off_turn = {});

// A bot process's standard error, already made valid UTF-8 (`invalid_utf8_bytes` replaced),
// with what the capture dropped.
void log_bot_output(MatchLog& log, int seat, std::string text, uint64_t dropped_bytes,
                    uint64_t invalid_utf8_bytes);

// How a started bot was confined, as its process reports it (bot_process.h), for its seat's
// LogConfinement in the header; or, for a bot whose program could not be started, how it was
// to be (its spec's Confinement: what no process reports stays at its default).
struct LogConfinementFacts {
  bool sandboxed = false;
  std::string sandbox_version;              // bubblewrap's --version; empty if unknown
  std::vector<std::string> read_only_dirs;  // sandboxed: the folders it may read
  bool user_namespaces_disabled = false;    // sandboxed: it cannot make user namespaces
  bool connect_refused = false;             // sandboxed: its seccomp filter refuses connect
  std::string socket_path;                  // its socket, as the bot sees it
  uint64_t socket_dir_tmpfs_mib = 0;        // sandboxed: the size of its socket folder's tmpfs
  uint32_t uid = 0;
  ResourceLimits limits;  // cpu_percent 0 where nothing enforces a CPU share
  LimitMechanism memory_limit_by = LimitMechanism::kNone;
  LimitMechanism processes_limit_by = LimitMechanism::kNone;
  LimitMechanism cpu_limit_by = LimitMechanism::kNone;
  LimitMechanism cpu_watched_by = LimitMechanism::kNone;  // the freezer of the CPU guard
  bool think_on_opponent_time = false;
  std::vector<std::string> cgroups;  // the cgroup folders made for it
};
v1::LogConfinement log_confinement(const LogConfinementFacts& f);

}  // namespace allfives::referee
