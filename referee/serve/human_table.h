// What a person's seat knows of its match (exactly what a bot at that seat is told, plus the
// other seats' display names from the match log's header), the same in words ("you" for the
// seat, the bots by name), the end of the match explained in a sentence, and the JSON its page
// receives. Values only: the seat's server and its terminal (human_seat.cpp) fill the table.
#pragma once

#include <array>
#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "allfives/core/line.h"
#include "allfives/core/state.h"
#include "allfives/core/types.h"
#include "allfives/v1/common.pb.h"
#include "ending/match_ending.h"

namespace allfives::referee::serve {

// One hand as the summary lists it.
struct HandSummary {
  int hand = 0;             // 0-based
  std::string how;          // "greedy went out", "blocked"
  int points = 0;           // scored for the hand's end
  int side = -1;            // who scored them (-1: nobody)
  std::vector<int> scores;  // every side's score after the hand
};

// The latest play on the line.
struct LastPlay {
  int seat = -1;  // -1: no play in this hand yet
  Tile tile;
  End end = End::kLeft;
  bool opened = false;  // the hand's first tile
  int count = 0;
  int points = 0;
};

struct HumanTable {
  int seat = 0;
  Config config;
  std::vector<std::string> names;  // per seat
  bool names_from_log = false;     // the log's header gave the bots' own names
  int match_number = 1;            // 2 after "play again", ...
  int hand_index = -1;
  TileSet hand;
  Line line;
  std::array<int, kMaxPlayers> sizes{};
  int boneyard = 0;
  std::vector<int> scores;
  int to_move = -1;  // whose turn it is, as far as the seat can tell (-1: between hands)
  PlayList legal;    // non-empty only while it is the seat's turn
  std::array<TileSet, kMaxPlayers> revealed{};  // at a hand's end, every hand is public
  bool show_revealed = false;
  LastPlay last;
  std::vector<HandSummary> hands;
  std::deque<std::string> events;  // the latest things that happened, in words
  // Time: per move, and the bank as left after the last decision.
  std::chrono::milliseconds move_time{0};
  std::chrono::milliseconds bank{0};
  std::chrono::milliseconds bank_at_decision{0};  // the bank when the latest decision began
  bool over = false;
  std::string outcome;   // "won", "lost", "draw", "stopped"
  std::string headline;  // "You won!", "You win: greedy forfeited"
  std::string detail;    // a sentence or two: why
  bool replay = false;   // the finished match's replay can be opened
  bool rematch = false;  // "play again" is offered
  int pace_ms = 0;       // the page shows one seat's play at least this long after the last
  bool hint_on = false;  // the person asked for the strong search's suggestion on their turns
  int hint = -1;         // its choice: an index into legal, -1 while none
  // This session's finished matches, "play again" after "play again": won, lost, drawn.
  std::array<int, 3> tally{};
  // Every side's score at the match's start and after each play that scored or hand that
  // ended, with the hand it was in: the page's chart.
  struct ScorePoint {
    int hand = 0;
    std::vector<int> scores;
  };
  std::vector<ScorePoint> timeline;
};

// "you", or the seat's name ("greedy"; "seat 2" without one).
std::string name_of(const HumanTable& t, int seat);
// "you", "greedy", "you and greedy" (partners), "greedy and random".
std::string side_words(const HumanTable& t, int side);

// The table's words for what happened, kept in t.events (the latest 14).
void note(HumanTable& t, std::string text);
// "You played 6-4 on the right: count 10, +10".
std::string play_words(const HumanTable& t, int seat, Tile tile, End end, bool opened, int count,
                       int points);

// The end of the match in words: sets over, outcome, headline and detail. `end` as the seat
// hears it from the referee (MatchEnd, where a fault's kind is not told: UNSPECIFIED) or, more
// precisely, the result of the match (MatchResult) once the match command has it.
void explain_end(HumanTable& t, const MatchEnding& end);

// The clock of a decision in progress, for the page: what is left of the move time and of
// the bank (the move's time is used first).
struct ClockNow {
  long long move_ms = 0;
  long long bank_ms = 0;
  bool running = false;
};

// The JSON the page receives: nothing but this seat's information (never the seed).
std::string table_json(const HumanTable& t, long long seq, const ClockNow& clock);

// "6-4".
std::string tile_words(Tile t);

}  // namespace allfives::referee::serve
