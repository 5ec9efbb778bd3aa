// The frames of a replay: what the table looked like after each record of a logged match, as
// everyone saw it or as one seat saw it, in words and numbers that the terminal view
// (terminal_view.h) and the HTML view (html_view.h) both draw.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/core/line.h"
#include "allfives/core/types.h"
#include "replay/replay.h"
#include "review/review_file.h"

namespace allfives::referee {

// One play a seat could have made at a decision, with what it would have scored.
struct DecisionOption {
  Play play;
  int count = 0;
  int points = 0;
  bool chosen = false;  // the play made
  int offered = 0;      // its index in the order offered (a review's options are in that order)
};

// What a play's record says of the decision behind it (LogPlay's decision fields, log_version
// 2 on; what the bot printed meanwhile, 3 on). A viewer sees the options, the comment and the
// output of its own seat's decisions only (they show, or may tell, the seat's tiles),
// everyone's without a viewer. A fault's frame has the faulting decision's output and the plays
// the seat had then (none chosen; the fault's record does not list them, so they come from the
// rules core's state there), and no time, bank or comment.
struct Decision {
  bool shown = false;                   // this viewer sees options, comment and output
  std::vector<DecisionOption> options;  // in the order offered; empty in version 1 logs
  std::string comment;                  // the bot's note, as logged
  uint32_t comment_dropped = 0;
  std::string output;           // what the bot printed while it was pending, as logged
  uint64_t output_dropped = 0;  // bytes of it the caps dropped (LogOutput.dropped_bytes)
  uint32_t decision_us = 0;
  int bank_left_ms = -1;  // -1: not logged (version 1)
  int best_points = 0;    // the most any option would have scored
  // The game review's valuation of this decision, where a current review lies beside the log
  // and the viewer sees the decision (attach_review).
  std::optional<v1::ReviewDecision> review;
  // A play that would have scored more than the one made was among the options.
  bool higher_existed() const;
  // The options from the most points down (the order offered among equals).
  std::vector<DecisionOption> ranked() const;
};

// Words of a frame with the runs that name a seat, or the points a play scored, marked as
// they are written, so that a view colours them from these values instead of searching the
// words (a bot's name or a fault's reason may read like either).
struct TextMark {
  size_t begin = 0;  // byte offset into the words
  size_t size = 0;
  int seat = -1;  // the seat this run names; -1: the run is the points a play scored
};
struct MarkedText {
  std::string words;
  std::vector<TextMark> marks;  // in order, none overlapping

  MarkedText() = default;
  // Plain words convert: most of a frame's text names nothing.
  MarkedText(std::string plain) : words(std::move(plain)) {}  // NOLINT(google-explicit-constructor)
  MarkedText(const char* plain) : words(plain) {}             // NOLINT(google-explicit-constructor)
  MarkedText& operator+=(std::string_view plain);
  MarkedText& add_seat(const std::string& label, int seat);
  MarkedText& add_points(const std::string& run);
};

// The table right after one step of a replay, as one viewer may see it.
struct Frame {
  int step = 0;      // index into Replay::steps
  int log_line = 0;  // the log line of the step's record
  v1::LogRecord::KindCase kind = v1::LogRecord::KIND_NOT_SET;
  int hand = 0;     // 0-based hand index
  int play = 0;     // plays made in this hand so far, this step's included
  int seat = -1;    // who acted: the player (play/draw/pass), the opener (hand_start), the seat
                    // that went out (hand_end, -1 for a block), the faulting seat (fault)
  Line line;        // the line after the step
  int placed = -1;  // index in line_layout(line) of the tile this step laid, -1 if none
  std::array<TileSet, kMaxPlayers> hands{};  // each hand, where the viewer may see it
  std::array<bool, kMaxPlayers> shown{};     // whether the viewer sees hands[seat]
  std::array<int, kMaxPlayers> hand_sizes{};
  int boneyard = 0;               // tiles left in the boneyard
  std::vector<int> scores;        // every side's score after the step
  int count = 0;                  // play: the end count it made
  int points = 0;                 // play / hand_end: the points it scored
  int side = -1;                  // play / hand_end: the side credited (-1: nobody)
  MarkedText text;                // what happened, in plain words
  std::vector<MarkedText> notes;  // further lines: a hand's scoring, the match result
  Decision decision;  // play, fault: the decision behind it, where the viewer may see it
};

// Every frame of `replay` in step order, as everyone sees them (viewer -1: all hands) or as
// seat `viewer` saw them at each moment (its own hand, the others' as counts, draws of
// others as counts; hands revealed at a hand's end are public).
std::vector<Frame> build_frames(const Replay& replay, int viewer);

// One tile of the line as laid, halves left to right (a double has left == right).
struct LaidTile {
  int left = 0;
  int right = 0;
};
// The line's tiles from its left end to its right end.
std::vector<LaidTile> line_layout(const Line& line);

// "seat 1 (random)" and "random" / "side 0 (a + c)" for partnerships.
std::string seat_label(const Replay& replay, int seat);
std::string side_label(const Replay& replay, int side);
// "2 players", "partnerships"...
std::string format_label(Format format);

// The frame index of hand `hand` (1-based) after its `play`-th play (0: the hand's start),
// or -1 with the reason in `error`.
int find_frame(const std::vector<Frame>& frames, int hand, int play, std::string* error);

// An option in words: "6-4 right", or "6-4" for an opening play (`opening`), whose end does
// not matter.
std::string option_text(const DecisionOption& o, bool opening);
// A decision time from the log: "0.84 ms", "12.3 ms", "1.25 s".
std::string decision_time_text(uint32_t us);

// Which frames `referee replay` and its pages show when asked for decisions only.
struct DecisionFilter {
  int seat = -1;             // only plays of this seat (-1: every seat's)
  bool higher_only = false;  // only decisions where a higher-scoring play existed
  bool marked_only = false;  // only decisions the review marked (inaccuracy and worse)
  bool active() const { return seat >= 0 || higher_only || marked_only; }
  bool keeps(const Frame& f) const;
};

// The review beside the log at `log_path` if it is of exactly `log_bytes` (a stale or broken
// one is passed over: it would value other plays), else nullopt.
std::optional<ReviewFile> current_review(const std::string& log_path, std::string_view log_bytes);
// Gives each play frame the review's valuation of its decision (matched by log line), where
// the frame shows the decision and the review offers the same number of options.
void attach_review(std::vector<Frame>& frames, const ReviewFile& review);
// The review's mark of a frame's decision (none without a review).
v1::ReviewMark review_mark(const Frame& frame);

// A hand from the heaviest tile down, as players sort them: "6-6 6-5 5-5 6-4".
std::string tiles_text(TileSet tiles);
// "1 hand", "3 hands".
std::string plural(int n, const char* one, const char* many);
// Every side's score after its label: "greedy 120 · random 85".
std::string scores_text(const Replay& replay, const std::vector<int>& scores);

}  // namespace allfives::referee
