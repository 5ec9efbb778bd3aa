// A logged match reviewed decision by decision (docs/REVIEW.md): every legal play of each
// reviewed seat's decisions valued by the engine (allfives::engine::evaluate) from that seat's
// view and knowledge only, the best play, the loss of the play made and its mark.
//
// What the engine is given is built the way a bot's own view is: State::view(seat) of the
// replayed state at the decision (the seat's tiles, the line, counts and scores) and a
// Knowledge fed only the public parts of the log's records (who played what, how many tiles a
// seat drew, who passed, each hand's open rule). No other seat's tile and no boneyard tile
// reaches it, so exchanging those in a log changes nothing (tests/e2e/review_fairness_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/core/knowledge.h"
#include "allfives/core/state.h"
#include "allfives/engine/evaluate.h"
#include "allfives/engine/solver.h"
#include "replay/replay.h"
#include "review/review_file.h"

namespace allfives::referee {

struct ReviewSettings {
  engine::EvalConfig eval;  // its seed is the review's; each decision derives its own
  MarkThresholds thresholds;
};

// One decision valued: the seat to move in `view` chose `played` (one of its legal plays).
// `first_of_hand`: it is the seat's first play of the hand (the opening phase). `seed` is the
// decision's own seed. `solver` and `scratch` are reused across decisions.
v1::ReviewDecision review_decision(const View& view, const Knowledge& knowledge, Play played,
                                   bool first_of_hand, uint64_t seed,
                                   const ReviewSettings& settings, engine::HandSolver& solver,
                                   engine::Evaluation& scratch);

// Reviews every play by one of `seats` (empty: every seat) in `replay`, a match loaded with its
// steps. `log_bytes` are the log's bytes (its size and digest are recorded); `progress` (if
// set) hears (decisions done, decisions to do) after each one.
ReviewFile review_match(const Replay& replay, std::string_view log_bytes,
                        const std::vector<int>& seats, const ReviewSettings& settings,
                        const std::function<void(int, int)>& progress = {});

// Whether `existing` is a review of these log bytes for these seats with these settings (then
// reviewing again would write the same file).
bool review_is_current(const v1::ReviewHeader& existing, std::string_view log_bytes,
                       const std::vector<int>& seats, const ReviewSettings& settings);

}  // namespace allfives::referee
