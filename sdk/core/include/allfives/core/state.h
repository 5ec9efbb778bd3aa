// The true state of an All Fives match and the only code that changes it.
//
// Modelled on OpenSpiel's State: a cheap value (about 200 bytes, trivially copyable) with
// legal plays, apply, terminal and returns. Drawing and passing are not decisions, so
// apply() performs them for the players and always stops at the next decision (a seat that
// must choose a play) or at the end of the match. Nothing here allocates, does I/O or keeps
// global state; the referee and every bot's simulations use this same code.
//
// The calls where traditional rule sets are silent (docs/RULES.md §16 gives the reasons):
// - The opening play's end is irrelevant and is recorded as the left end; its low half lies
//   on the left.
// - A tile that fits both ends is offered once per end, even where the two ends look alike:
//   the line differs, and a bot is never denied a choice the rules give it.
// - A hand is blocked the moment the boneyard is empty and no seat holds a playable tile;
//   the seat whose turn it is then does not record a pass first.
// - When the match ends mid-hand, every hand is revealed in the match-end event.
// - The safety valve ends the match after the max_hands-th hand has been scored.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "allfives/core/deal.h"
#include "allfives/core/events.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/line.h"
#include "allfives/core/types.h"

namespace allfives {

// The plays open to the seat to move, in a fixed order (tile index, then left before
// right), so a bot may answer with an index into this list.
class PlayList {
 public:
  // At most 13 distinct tiles match one of two ends, and one of them fits both: 14 plays.
  static constexpr int kCapacity = 16;

  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Play& operator[](int i) const { return items_[i]; }
  const Play* begin() const { return items_.data(); }
  const Play* end() const { return items_.data() + size_; }
  bool contains(Play p) const;
  void push(Play p) { items_[size_++] = p; }
  // The same plays in the same order (slots past size() do not count).
  friend bool operator==(const PlayList& a, const PlayList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::array<Play, kCapacity> items_{};
  int size_ = 0;
};

// Why a play was refused. Plays come from outside (bots, files), so every one is checked.
enum class PlayError : uint8_t {
  kNone,
  kMatchOver,     // nobody is to play
  kNotInHand,     // the seat to move does not hold that tile
  kMustOpenWith,  // this hand must open with a given tile (highest double / heaviest tile)
  kDoesNotFit,    // the tile has no half equal to that end's value
};
std::string_view describe(PlayError e);

// How a match ended on the board (faults are the referee's business, not the rules').
struct Outcome {
  MatchEndReason reason = MatchEndReason::kTarget;
  int winner_side = -1;  // -1: a draw (possible only through the safety valve)
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// Everything that fixes the rest of a hand, for starting a state mid-hand: tests set up the
// rule book's examples this way, and bots build states from what they guess of hidden tiles.
struct Position {
  Config config;
  int hand_index = 0;
  std::array<TileSet, kMaxPlayers> hands{};
  std::array<Tile, kNumTiles> boneyard{};  // drawing order, boneyard[0] first
  int boneyard_size = 0;
  // Plays already on the line, in play order (tile, seat, end). Empty: the hand's opening.
  std::array<LinePlay, kNumTiles> line{};
  int line_size = 0;
  std::array<int, kMaxPlayers> scores{};  // per side
  int seat_to_move = 0;
  OpenRule open_rule = OpenRule::kWinnerChooses;  // matters only while the line is empty
};

class View;

// The public facts of one seat's view as plain data, for code that receives a view from
// elsewhere (a bot reading the referee's message) and must rebuild it.
struct Observation {
  Config config;
  int seat = 0;
  int seat_to_move = -1;
  int hand_index = 0;
  TileSet hand{};
  std::array<LinePlay, kNumTiles> line{};
  int line_size = 0;
  std::array<int, kMaxPlayers> scores{};
  std::array<int, kMaxPlayers> hand_sizes{};
  int boneyard_size = 0;
  OpenRule open_rule = OpenRule::kHighestDouble;
  PlayList legal_plays;
};

class State {
 public:
  // Deals hand 0 from `seed` and stops at the opener's first decision.
  static State new_match(const Config& config, uint64_t seed, EventList* events = nullptr);
  // A state from a given position. Later hands are dealt from `seed`. Returns false and says
  // why in `error` if the position is impossible (tiles twice or missing, a play that does
  // not fit, a seat out of range, an unreachable target...).
  static bool from_position(const Position& p, uint64_t seed, State& out, std::string* error);

  const Config& config() const { return config_; }
  Format format() const { return config_.format; }
  bool is_terminal() const { return over_; }
  // The seat that must choose a play; -1 once the match is over.
  int seat_to_move() const { return over_ ? -1 : seat_; }
  int hand_index() const { return hand_; }
  int score(int side) const { return scores_[side]; }
  const Line& line() const { return line_; }
  TileSet hand(int seat) const { return hands_[seat]; }
  int boneyard_size() const { return bone_size_ - bone_next_; }
  // The tiles still in the boneyard (not their order).
  TileSet boneyard() const;
  OpenRule open_rule() const { return open_rule_; }
  // Meaningful only when the match is over.
  Outcome outcome() const { return outcome_; }

  PlayList legal_plays() const;
  // Checks a play by the seat to move without applying it.
  PlayError check(Play p) const;
  // Applies a checked play, then draws, passes, scores hands and deals the next hand until a
  // seat must decide again or the match ends. Appends what happened to `events` if given.
  PlayError apply(Play p, EventList* events = nullptr);

  // What `seat` may see now, and nothing more (docs/RULES.md §15 "What a bot may see").
  View view(int seat) const;
  // What `seat` knows of the other hands now: the Knowledge a bot in that seat holds, replayed
  // from the hand's deal through the hand's public events as that seat saw them. Empty for a
  // state begun mid-hand from a Position whose line cannot have been played from a deal
  // without draws the state does not record, since guessing them could forbid a tile wrongly.
  std::optional<Knowledge> knowledge(int seat) const;

  friend bool operator==(const State&, const State&) = default;

 private:
  State() = default;
  void start_hand(OpenRule rule, int opener, EventList* ev);
  void advance(int from_seat, EventList* ev);
  void end_by_domino(int seat, EventList* ev);
  void end_by_block(EventList* ev);
  void after_hand(OpenRule rule, int opener, EventList* ev);
  bool add_points(int side, int points, EventList* ev);
  void finish(MatchEndReason reason, int winner_side, EventList* ev);
  bool can_play(int seat) const;

  Config config_;
  uint64_t seed_ = 0;
  std::array<TileSet, kMaxPlayers> hands_{};
  std::array<Tile, kNumTiles> boneyard_{};
  uint8_t bone_next_ = 0;  // boneyard_[bone_next_ .. bone_size_) is still face down
  uint8_t bone_size_ = 0;
  Line line_;
  std::array<int16_t, kMaxPlayers> scores_{};
  int16_t hand_ = 0;
  int8_t seat_ = 0;
  bool over_ = false;
  OpenRule open_rule_ = OpenRule::kHighestDouble;
  Tile open_with_{};
  Outcome outcome_{};
};

// One seat's observation. Only State::view builds it, from fields that seat may see, so no
// caller can leak a hidden tile by mistake (OpenSpiel's ObservationString(player) idea).
class View {
 public:
  const Config& config() const { return config_; }
  int seat() const { return seat_; }
  int num_players() const { return allfives::num_players(config_.format); }
  int partner() const { return partner_of(config_.format, seat_); }
  int side() const { return side_of(config_.format, seat_); }
  int hand_index() const { return hand_; }
  int seat_to_move() const { return to_move_; }
  TileSet hand() const { return hand_tiles_; }
  const Line& line() const { return line_; }
  int score(int side) const { return scores_[side]; }
  int hand_size(int seat) const { return hand_sizes_[seat]; }
  int boneyard_size() const { return boneyard_size_; }
  OpenRule open_rule() const { return open_rule_; }
  // The plays open to this seat; empty unless it is this seat's turn.
  const PlayList& legal_plays() const { return legal_; }
  // Every tile this seat cannot see: other hands and the boneyard together.
  TileSet unseen() const;
  // The open ends (left, right), the end count, and the points that `play` (one of
  // legal_plays()) would make now.
  std::array<LineEnd, 2> ends_after(Play play) const { return allfives::ends_after(line_, play); }
  int count_after(Play play) const { return allfives::count_after(line_, play); }
  int points_after(Play play) const { return allfives::points_after(line_, play); }

  // Rebuilds a view received from elsewhere. Returns false and says why if the facts cannot
  // belong together (a tile twice, a line that does not connect, counts that do not add up
  // to 28 tiles, a seat out of range).
  static bool from_observation(const Observation& o, View& out, std::string* error);

  friend bool operator==(const View&, const View&) = default;

 private:
  friend class State;
  Config config_;
  int8_t seat_ = 0;
  int8_t to_move_ = -1;
  int16_t hand_ = 0;
  TileSet hand_tiles_{};
  Line line_;
  std::array<int16_t, kMaxPlayers> scores_{};
  std::array<int8_t, kMaxPlayers> hand_sizes_{};
  int8_t boneyard_size_ = 0;
  OpenRule open_rule_ = OpenRule::kHighestDouble;
  PlayList legal_;
};

// Who must open a freshly dealt hand when the opener is not a previous winner: the holder of
// the highest double, or of the heaviest tile if nobody holds a double.
struct Opener {
  int seat = 0;
  Tile tile;
  OpenRule rule = OpenRule::kHighestDouble;
};
Opener find_opener(Format format, const std::array<TileSet, kMaxPlayers>& hands);

// Points for going out: round5 of each opponent player's pips, summed (partners excluded).
int domino_points(Format format, int seat_out, const std::array<TileSet, kMaxPlayers>& hands);

// A blocked hand: the side with the fewest pips scores the sum of round5 of every other side's
// pips minus round5 of its own; a tie for the fewest scores nothing (winner_side -1).
struct BlockResult {
  int winner_side = -1;
  int points = 0;
  std::array<int, kMaxPlayers> side_pips{};
};
BlockResult block_result(Format format, const std::array<TileSet, kMaxPlayers>& hands);

}  // namespace allfives
