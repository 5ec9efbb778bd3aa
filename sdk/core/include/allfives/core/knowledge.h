// What one seat knows of the tiles every other seat holds during a hand, from the public
// history alone: the open rule, the plays, and the draws and passes that show a seat had no
// tile of a suit. resample.h turns it into full states to search (OpenSpiel's
// ResampleFromInfostate).
//
// A seat's hand is a list of groups of tiles that arrived together (the deal, then each draw),
// oldest first, each with the tiles it cannot contain:
//   - the deal's group: the tiles the open rule says nobody held (with the highest-double
//     rule every higher double; with the heaviest-tile rule every double and every heavier
//     tile; docs/RULES.md §4);
//   - when the seat draws or passes, every group it holds gains both open ends' suits (it had
//     no tile matching either end), and a draw of k tiles adds a group of k - 1 tiles that lack
//     those suits too; the last tile drawn is pending: it ended the draw, so it matches an end,
//     and the seat plays it next (the only tile it can play). Should the seat pass instead (the
//     boneyard ran out), it lacked the suits as well and joins the group. Tiles drawn later may
//     hold suits the seat once lacked: they are a newer group, forbidden only what was seen
//     since.
// So the forbidden sets are nested: an older group forbids everything a newer one does. When a
// seat plays a tile that did not end a draw, it comes off the oldest group that may hold it;
// with nested sets that choice allows every hand any other choice would, so the hands the
// groups allow are exactly the hands the public history allows (resample_test.cpp checks this
// against a replay of every possible deal on small cases).
#pragma once

#include <array>
#include <cstdint>

#include "allfives/core/events.h"
#include "allfives/core/line.h"
#include "allfives/core/types.h"

namespace allfives {

class Knowledge {
 public:
  struct Group {
    int count = 0;      // tiles of the group still held
    TileSet forbidden;  // tiles it cannot contain
    friend bool operator==(const Group&, const Group&) = default;
  };
  // A hand has at most 1 + 21 groups (the deal and one per tile drawn); more are merged.
  static constexpr int kMaxGroups = 24;

  Knowledge() = default;
  // The knowledge of `seat` at a match's start, before its first hand.
  Knowledge(Format format, int seat);

  // Takes in one event as this seat sees it (seen_by(event, seat)): a hand's start resets
  // everything; plays, draws and passes add what they show; other kinds change nothing.
  void observe(const Event& event);
  // What a kHandStart event tells, for code that receives a hand's start as its own message
  // (the bot SDKs' on_hand_start).
  void start_hand(int hand_index, OpenRule rule, Tile open_with);

  Format format() const { return format_; }
  int seat() const { return seat_; }
  int hand_index() const { return hand_; }
  // The line as the plays observed built it (resample checks it against the view's).
  const Line& line() const { return line_; }
  int num_groups(int seat) const { return num_groups_[seat]; }
  const Group& group(int seat, int i) const { return groups_[seat][i]; }
  // Whether `seat` holds a tile it just drew and is about to play (see above); then
  // pending_suits(seat) are the suits one of which that tile shows. Never so at this seat's own
  // decision: the drawing seat is the one to move.
  bool pending(int seat) const { return pending_[seat]; }
  TileSet pending_suits(int seat) const { return pending_suits_[seat]; }
  // Tiles `seat` holds according to the events observed (its groups and a pending tile).
  int tracked_size(int seat) const;
  // Tiles no tile of `seat`'s hand can be.
  TileSet forbidden_for_all(int seat) const;
  // How many tiles were on the line when `seat` last drew this hand, -1 if it never did: its
  // plays from that one on came from the hand it holds now plus the tiles it played since,
  // which is what an opponent model needs to judge them.
  int last_draw(int seat) const { return last_draw_[seat]; }

  friend bool operator==(const Knowledge&, const Knowledge&) = default;

 private:
  void add_group(int seat, int count, TileSet forbidden);
  void forbid_all(int seat, TileSet tiles);
  void remove_tile(int seat, Tile tile);

  Format format_ = Format::kTwoPlayers;
  int8_t seat_ = 0;
  int16_t hand_ = -1;
  Line line_;
  std::array<std::array<Group, kMaxGroups>, kMaxPlayers> groups_{};
  std::array<int8_t, kMaxPlayers> num_groups_{};
  std::array<bool, kMaxPlayers> pending_{};
  std::array<TileSet, kMaxPlayers> pending_suits_{};
  std::array<int8_t, kMaxPlayers> last_draw_ = {-1, -1, -1, -1};
};

// The tiles nobody held at a hand's deal, as the open rule tells (docs/RULES.md §4): with the
// highest-double rule every double above `open_with`; with the heaviest-tile rule every
// double and every tile heavier than `open_with`; nothing when the winner chooses.
TileSet not_dealt_to_anyone(OpenRule rule, Tile open_with);

}  // namespace allfives
