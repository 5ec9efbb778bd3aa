// Matches played in the core and recorded from one seat's eyes, for the suites of what a seat
// knows (knowledge_test.cpp) and of the states sampled from it (resample_test.cpp): each of the
// seat's decisions with its view, its Knowledge fed as an SDK would feed it, the truth, and
// how the hand began and went (for replaying other deals against the same history).
#pragma once

#include <vector>

#include "allfives/core/greedy.h"
#include "allfives/core/knowledge.h"
#include "allfives/core/rng.h"
#include "allfives/core/state.h"

namespace allfives::test {

struct Snapshot {
  View view;
  Knowledge knowledge;
  State truth;
  Position hand_start;      // the hand as dealt, at its first decision
  std::vector<Play> plays;  // every play of the hand so far, in order
  std::vector<Event> seen;  // every event of the hand so far as the seat saw it
};

// A greedy play, or with probability epsilon_permille/1000 a uniformly random one.
inline Play epsilon_greedy(const State& s, SplitMix64& rng, int epsilon_permille) {
  const PlayList legal = s.legal_plays();
  if (static_cast<int>(rng.below(1000)) < epsilon_permille)
    return legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))];
  return greedy_play(s.line(), legal);
}

// Plays a match with epsilon_greedy for every seat and records every decision of `seat`.
inline std::vector<Snapshot> play_and_record(Format format, uint64_t seed, int seat, int max_snaps,
                                             int epsilon_permille = 300) {
  std::vector<Snapshot> out;
  Knowledge knowledge(format, seat);
  Position start;
  std::vector<Play> plays;
  std::vector<Event> seen;
  EventList events;
  State state = State::new_match(Config::standard(format), seed, &events);
  const auto feed = [&] {
    for (const Event& e : events) {
      if (e.kind == EventKind::kHandStart) {
        start = Position{};
        start.config = state.config();
        start.hand_index = e.hand_index;
        start.hands = e.deal.hands;
        start.boneyard = e.deal.boneyard;
        start.boneyard_size = e.deal.boneyard_size;
        for (int side = 0; side < num_sides(format); ++side) start.scores[side] = state.score(side);
        start.seat_to_move = e.seat;
        start.open_rule = static_cast<OpenRule>(e.reason);
        plays.clear();
        seen.clear();
      }
      const Event mine = seen_by(e, seat);
      knowledge.observe(mine);
      if (e.kind == EventKind::kPlay || e.kind == EventKind::kDraw || e.kind == EventKind::kPass)
        seen.push_back(mine);
    }
    events.clear();
  };
  feed();
  SplitMix64 rng(seed ^ 0xabcdef);
  while (!state.is_terminal() && static_cast<int>(out.size()) < max_snaps) {
    if (state.seat_to_move() == seat)
      out.push_back(Snapshot{state.view(seat), knowledge, state, start, plays, seen});
    const Play p = epsilon_greedy(state, rng, epsilon_permille);
    plays.push_back(p);
    state.apply(p, &events);
    feed();
  }
  return out;
}

}  // namespace allfives::test
