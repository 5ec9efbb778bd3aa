// Full states consistent with what one seat has seen (OpenSpiel's ResampleFromInfostate): the
// determinization step of every search under hidden information.
//
// Given a seat's view at its own decision and its Knowledge of the hand (knowledge.h), a
// WorldSampler draws the tiles it cannot see, the other hands and the boneyard's order,
// uniformly among every assignment that agrees with everything the seat has seen: its own
// hand, the line, the hand sizes and the boneyard's size, the tiles the open rule says nobody
// was dealt, and the suits each seat was shown to lack when it drew or passed (with the tiles
// it drew since free of them). Every such state is equally likely; the sampler does not weigh
// states by how many deals lead to each, nor guess from how the others chose their plays.
//
// How: the unseen tiles are dealt one by one to the other seats or the boneyard, and a
// dynamic programme counts, for every tile and every partial deal, the ways left to finish it
// (a seat's partial hand is summed up by how many of its tiles may go only into its newer
// groups, which is all Hall's condition needs when the forbidden sets are nested). Sampling
// then picks each tile's place with probability proportional to those counts: exactly
// uniform, with no retries. Building costs microseconds for two players and at most a few
// milliseconds for four; each sample costs well under a microsecond per unseen tile.
#pragma once

#include <cstdint>
#include <vector>

#include "allfives/core/knowledge.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"

namespace allfives {

class WorldSampler {
 public:
  // Prepares to sample for `view`, which must be at its own seat's decision
  // (view.seat_to_move() == view.seat()). `knowledge` is that seat's Knowledge of the hand;
  // without it (nullptr) only the view's facts bind: hand sizes, and at a hand's opening the
  // tiles the open rule rules out.
  WorldSampler(const View& view, const Knowledge* knowledge);

  // Whether the view can be sampled at all: a view at its own seat's decision whose facts fit
  // together. False for any other view; sample() then fails.
  bool ok() const { return count_ > 0; }
  // Whether every fact of `knowledge` binds the samples. False when it belongs to another
  // seat, hand or line, or disagrees with the view's hand sizes (events were missed): then
  // only the view's facts are used.
  bool exact() const { return exact_; }
  // How many ways the unseen tiles can go to the other hands and the boneyard (as a set; its
  // order multiplies every way by the same factor).
  uint64_t count() const { return count_; }

  // Draws one consistent position, the boneyard in a uniformly random order. Returns false
  // (leaving `out` alone) unless ok().
  bool sample(SplitMix64& rng, Position& out) const;
  // The same as a state ready to play on; later hands are dealt from rng.next().
  bool sample(SplitMix64& rng, State& out) const;

 private:
  // One other seat: its hand size, its groups' capacities from the newest ("suffix" sums:
  // cap[j] = tiles that may sit in groups j and later) and each unseen tile's level (the
  // oldest group that may hold it; num_groups: none may).
  struct Seat {
    int seat = 0;
    int size = 0;
    int num_groups = 1;
    std::array<int, Knowledge::kMaxGroups> cap{};
    std::array<uint8_t, kNumTiles> level{};  // by tile index
  };
  // A seat whose partial hand is summed up by its suffix counts, enumerated once.
  struct Profiles {
    int count = 1;
    std::vector<int> next;      // next[p * num_groups + level]: the profile after one more tile
    std::vector<uint8_t> full;  // whether the profile holds the seat's whole hand
  };

  // Sets up the seats from the knowledge (or the view alone) and counts; false if the
  // knowledge cannot be used or leaves no way at all.
  bool build(const View& view, const Knowledge* knowledge);
  // One other seat's constraints from its groups, with its profile count in `profiles`; false
  // if the groups are not nested (Hall's condition would not hold).
  bool build_seat(const View& view, const Knowledge* knowledge, int s, TileSet opening_forbidden,
                  Seat& seat, uint64_t& profiles) const;
  // Puts the seat with the most partial hands first and the unseen tiles in its dealing order.
  void order_for_widest(std::array<uint64_t, kMaxPlayers - 1>& sizes);
  // Every profile of seats_[1..] and the state strides.
  void build_profiles();
  // ways_ from the last tile back, and count_.
  void count_ways();
  // The state after giving tile number i to destination d (0: the boneyard, 1..: a seat),
  // or -1 if that breaks a constraint.
  int step(int state, int i, int d) const;

  Position base_;
  std::array<Seat, kMaxPlayers - 1> seats_{};
  int num_seats_ = 0;
  std::array<Profiles, kMaxPlayers - 1> profiles_{};  // seats_[1..]; seats_[0] is a count
  std::array<int, kMaxPlayers - 1> stride_{};
  std::array<Tile, kNumTiles> tiles_{};  // the unseen tiles in dealing order
  int num_tiles_ = 0;
  int num_states_ = 0;
  std::vector<uint64_t> ways_;  // ways_[i * num_states_ + x]: completions from tile i, state x
  uint64_t count_ = 0;
  bool exact_ = true;
};

}  // namespace allfives
