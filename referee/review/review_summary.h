// Reviews of many matches summed up per bot: expected points lost per decision and per hand,
// by phase of the hand, by kind of loss and by opponent, the marks, and the costliest
// decisions with the command that opens each (docs/REVIEW.md, "A tournament").
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "review/review_file.h"

namespace allfives::referee {

struct ReviewedLog {
  std::string log_path;  // as the user named it, for the replay commands
  ReviewFile review;
};

struct LossTally {
  int decisions = 0;
  double loss = 0;             // expected points lost, summed
  std::array<int, 4> marks{};  // by ReviewMark
  void add(const v1::ReviewDecision& d);
  double per_decision() const { return decisions ? loss / decisions : 0; }
};

struct CostlyDecision {
  std::string log_path;
  v1::ReviewDecision decision;
};

struct BotReview {
  std::string bot;
  LossTally all;
  int hands = 0;  // hands in which it made at least one reviewed decision
  int matches = 0;
  std::array<LossTally, 4> by_phase{};  // by HandPhase
  std::array<LossTally, 5> by_kind{};   // by LossKind (a loss's kind; none for the best play)
  std::map<std::string, LossTally> by_opponent;  // "greedy", or "a + b" with several
  std::vector<CostlyDecision> costliest;         // the largest losses first
  double per_hand() const { return hands ? all.loss / hands : 0; }
};

// One summary per bot reviewed in `logs` (by the header's seat_bots), or only `bot` if it is
// not empty; each keeps its `top` costliest decisions. Sorted by name.
std::vector<BotReview> summarize_reviews(const std::vector<ReviewedLog>& logs,
                                         const std::string& bot, int top);

// The summaries in words: a table of every bot, then for each the phases, kinds, opponents
// and its costliest decisions with `referee replay` commands (`detail`: all of that, else the
// table and the three costliest decisions of each).
std::string summary_text(const std::vector<BotReview>& bots, bool detail);

// "referee replay LOG --print --hand H --play P": the command that shows a decision.
std::string replay_command(const std::string& log_path, const v1::ReviewDecision& d);

}  // namespace allfives::referee
