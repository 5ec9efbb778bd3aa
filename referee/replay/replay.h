// A logged match read back and re-played with the rules core: the one model behind
// `referee verify`, `referee replay` (terminal) and `referee replay --html`.
//
// Reading never trusts the file: any byte sequence gives either a Replay or an error naming
// the file, the line, what the log says and what the rules say. Nothing here crashes, hangs
// or allocates without bound on hostile input.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/core/state.h"
#include "allfives/v1/log.pb.h"
#include "log/log_reader.h"
#include "replay/timing_signal.h"

namespace allfives::referee {

// Why a log is not a correct account of a match.
struct LogError {
  std::string file;
  int line = 0;         // 1-based line of the record at fault (0: the file as a whole)
  std::string message;  // "the log says X, the rules say Y"
  // Every record read agreed with the rules; the log only stops before its match_end (a match
  // still being played, a referee that was stopped, a last line cut short).
  bool unfinished = false;
  std::string describe() const;  // "FILE:LINE: message"
};

// The table exactly as it stands right after a record: what a viewer draws. The core's State
// exists only where the core stops (a seat must decide, or the match is over), so for a record
// in the middle of one of the core's steps (a play followed by draws or the end of the hand, a
// draw that ends in a pass, a pass, a hand end) ReplayStep::state is already the state at the
// next stop, while this is the picture right after the record itself.
struct ReplayTable {
  int hand_index = 0;
  std::array<TileSet, kMaxPlayers> hands{};  // every seat's tiles (unused seats empty)
  Line line;                                 // the line of the hand so far
  int boneyard_size = 0;                     // tiles still face down
  int seat_to_move = -1;                     // the seat that must decide now, -1 if none
};

// One moment of the match, after a record was applied.
struct ReplayStep {
  int line = 0;          // the log line it comes from
  v1::LogRecord record;  // that record (a hand_start, play, draw, pass, hand_end, fault, match_end)
  State state;           // the true state right after it (hidden tiles included);
                         // mid-step records: at the core's next stop (see ReplayTable)
  std::vector<int> scores;  // every side's score after it
  ReplayTable table;        // the exact table after it (see ReplayTable)
};

struct Replay {
  std::string file;
  v1::LogHeader header;
  Config config;
  std::vector<ReplayStep> steps;  // in log order; steps[0] is the first hand_start
  v1::LogMatchEnd match_end;      // absent (default) if the match did not finish
  bool finished = false;          // the log has its match_end
  std::vector<v1::LogBotOutput> bot_output;
  int hands = 0;  // hands started
  int plays = 0;
  // Index of the first step of each hand in `steps`.
  std::vector<int> hand_starts;
  // Every play of each seat as a timed decision, in log order (with keep_decisions).
  std::array<std::vector<TimedDecision>, kMaxPlayers> decisions;
};

// Reads `text` (the contents of a log named `file`) and re-plays it from its header's seed
// with the rules core, checking every deal, play, draw, pass, score, hand end and the
// result. Returns false with the first disagreement in `error`; `out` then holds what was
// read before it (the steps up to the last good record), so an unfinished match can be shown.
bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error);
// The same from a file on disk, read as a stream one line at a time (at most kMaxLogFileBytes;
// a FIFO, device or folder is refused at once).
bool load_replay_file(const std::string& path, Replay& out, LogError& error);

// What to keep while reading a log.
struct ReplayOptions {
  // false: check only (`referee verify`); `steps` and `hand_starts` stay empty, everything else
  // is filled. Faster, and memory stays small on long logs.
  bool keep_steps = true;
  // true: `decisions` is filled, for the timing test of `referee verify` (timing_signal.h).
  bool keep_decisions = false;
  // false: each hand is re-played from the deal its hand_start record logs instead of the one
  // the header's seed deals (`referee review`, which judges the match the log tells; `verify`
  // keeps the seed's). Every play, draw, pass, score and opener is still checked against it.
  bool deals_from_seed = true;
};
bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error,
                 const ReplayOptions& options);
bool load_replay_file(const std::string& path, Replay& out, LogError& error,
                      const ReplayOptions& options);

}  // namespace allfives::referee
