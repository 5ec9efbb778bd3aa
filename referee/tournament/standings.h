// Standings of a tournament, computed from its index entries alone (see index_file.h).
//
// Definitions (also printed under the text table):
// * A bot's side in a match: its seat's side (seat s is side s; with partnerships seats 0 and 2
//   are side 0 and seats 1 and 3 side 1). With partnerships both seats of a side are one bot
//   (seat_bots[0] == seat_bots[2]); a side with two different bots credits both of them.
//   A bot counts one match per match, however many seats it holds.
// * Result of a side, from the entry's placements (1 = first; computed from the scores like the
//   referee does if the entry has none): a win is sole first place, a draw a shared first place,
//   a loss anything else. With two sides (2 players, partnerships) that is the match result.
//   A forfeit is always a loss for the side of the faulting seat and, with two sides, a win for
//   the other side; with 3-4 players the others are ranked by their scores.
// * Forfeits by FaultKind: matches in which one of the bot's seats committed the fault.
// * Points: "for" is the bot's side's final score. "Against" is the other side's score with two
//   sides and the mean of the other sides' scores with 3-4 sides. Averages are per match.
// * Pairwise games: every pair of bots on different sides of a match is one game, won by the
//   better placed, drawn on equal places. With two sides that is one game per match; a 3-player
//   match is 3 games and a 4-player match 6. The cross table and Elo count these games.
// * Elo: the Bradley-Terry maximum likelihood fit over the pairwise games, P(A beats B) =
//   1 / (1 + 10^((Rb - Ra) / 400)), a draw counting as half a win for each. A weak prior keeps
//   every rating finite (a bot that won every game would otherwise be at +infinity): each bot
//   also gets kEloPriorDraws virtual draws against a virtual opponent rated 0. The ratings are
//   then shifted so their mean is 0. The 95% interval is +/- 1.96 standard errors from the
//   observed Fisher information of that fit: the covariance of the centred ratings is
//   C H^-1 C, with H the negated Hessian (prior included, so it is invertible) and C the
//   centring projection I - 11'/n. Pairwise games of one 3-4 player match are not independent,
//   so there the intervals are somewhat too narrow.
// * Pairings (statistics.h, docs/STATISTICS.md): for every two bots that met, the difference
//   between them from the higher ranked bot's side. With two sides, over their mirrored pairs
//   (the pentanomial counts); with 3-4 players, or matches that are not (yet) in pairs, over
//   their pairwise games (wins, draws, losses). Elo with its 95% interval, normalized Elo, LOS;
//   "cannot be told apart" when the interval includes 0.
// * Statistical ties in the ranking: a bot is marked when the Bradley-Terry fit cannot tell it
//   from the bot ranked just above or below it (the 95% interval of their rating difference,
//   from the fit's covariance, includes 0).
// * Decision times: from the entries' per-seat timing summaries (IndexEntry.timing), merged per
//   bot: mean, median and 99th percentile (from the summaries' histograms, exact to 4.5%), max,
//   the most time bank used in one match, and the decisions that took 90% or more of the time
//   the bot had for them.
// Entries without a result (reason ABORTED) or inconsistent with their format are skipped and
// noted.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "match/decision_timing.h"
#include "tournament/pairs.h"
#include "tournament/statistics.h"

namespace allfives::referee {

// The virtual draws per bot against a virtual opponent rated 0 (the prior of the Elo fit).
inline constexpr double kEloPriorDraws = 1.0;

struct BotStanding {
  std::string name;
  int matches = 0;
  int wins = 0;
  int losses = 0;
  int draws = 0;
  std::vector<int> forfeits = std::vector<int>(v1::FaultKind_ARRAYSIZE, 0);  // by FaultKind
  int forfeits_total = 0;
  double points_for = 0;
  double points_against = 0;
  int games = 0;                // pairwise games (see above)
  double game_score = 0;        // pairwise wins + draws / 2
  double elo = 0;               // mean over the bots is 0
  double elo_ci95 = 0;          // half width of the 95% interval
  bool tied = false;            // cannot be told apart from a neighbour in the ranking (see above)
  bool tied_with_next = false;  // ... namely from the bot ranked just below it
  DecisionTiming timing;        // over every seat it held (entries' SeatTiming; see below)
  double avg_points_for() const { return matches ? points_for / matches : 0; }
  double avg_points_against() const { return matches ? points_against / matches : 0; }
};

struct HeadToHead {
  int wins = 0;
  int losses = 0;
  int draws = 0;
  int games() const { return wins + losses + draws; }
};

// Two bots that met, from the first's side.
struct PairingStats {
  std::string bot, opponent;
  bool pentanomial = false;  // over mirrored pairs; else over pairwise games
  Pentanomial pairs;         // if pentanomial
  Trinomial games;           // pairwise games (always filled)
  EloEstimate estimate;      // from pairs if pentanomial, else from games
};

// The state of one SPRT of a tournament (sprt.h): the candidate's pairs against its reference
// and the test's log-likelihood ratio over them.
struct SprtSummary {
  std::string candidate, against;
  SprtParams params;
  uint32_t max_pairs = 0;  // 0: none
  Pentanomial pairs;       // every finished pair so far, from the candidate's side
  double llr = 0;          // over `pairs`
  enum class State {
    kRunning,   // no bound crossed yet: the run goes on, was stopped, or its schedule ended
    kAcceptH0,  // the LLR reached the lower bound
    kAcceptH1,  // the LLR reached the upper bound
    kMaxPairs,  // max_pairs pairs were counted first: undecided
  };
  State state = State::kRunning;
  // When the test ended (not kRunning): the pairs and LLR at that moment; pairs finished later
  // (matches already under way) are in `pairs` but do not change the decision.
  int64_t pairs_at_end = 0;
  double llr_at_end = 0;
};

struct Standings {
  std::string tournament_name;                 // of the first entry
  std::string tournament_hash;                 // of the first entry
  v1::Format format = v1::FORMAT_UNSPECIFIED;  // UNSPECIFIED if the entries mix formats
  int matches = 0;                             // entries counted
  std::vector<BotStanding> bots;               // by Elo (highest first), then name
  // cross[i][j]: pairwise games of bots[i] against bots[j] (i's wins-losses-draws).
  std::vector<std::vector<HeadToHead>> cross;
  std::vector<std::string> notes;  // entries skipped and why
  // Every two bots that met, the higher ranked first, in rank order.
  std::vector<PairingStats> pairings;
  // Covariance of the ratings (Elo^2), in the order of `bots`: for intervals of differences.
  std::vector<std::vector<double>> elo_covariance;
  std::string anchor;  // "NAME = ELO" if anchor_ratings() was applied, else ""
  // The tournament's SPRTs, if its definition has one (filled by whoever knows the definition:
  // the runner, or add_sprt_from_folder in sprt.h).
  std::vector<SprtSummary> sprt;
};

// The SPRT in one line: "LLR +1.23 in (-2.94, +2.94), 40 pairs" while it runs, "LLR +2.96 >=
// +2.94: H1 accepted after 52 pairs" once over (the progress line; with several tests each is
// prefixed with "vs REFERENCE").
std::string sprt_status(const SprtSummary& s);

// A few lines: the question, the hypotheses, the pairs, the LLR against its bounds, the verdict
// in words, and nElo with its interval.
std::string sprt_report(const SprtSummary& s);

// An SPRT's verdict in words once it is over: the answer ("new is stronger than old",
// "undecided: the maximum of 1000 pairs came before either bound") and what backs it ("the
// pairs favour nElo 5 over nElo 0; were it nElo 0, this verdict had a chance of alpha = 0.05",
// "" when undecided). Both "" while the test runs.
struct SprtVerdictWords {
  std::string answer, why;
};
SprtVerdictWords sprt_verdict_words(const SprtSummary& s);

// A pairing's figures in words, as its line in the text and on the pages shows them: counts
// ("3/10/20/8/2" pair scores, or games "14-6-3" W-L-D); Elo with its 95% interval ("+54 [+15,
// +96]", an open end "(+442, +inf)"), nElo ± 95% ("+74 ± 57"), LOS ("99.6%"); without an
// interval (too few samples, no spread) the estimates alone ("+inf", "undefined") and no LOS;
// the verdict ("stronger", "cannot be told apart", "too few pairs to tell", ...).
std::string pairing_counts_text(const PairingStats& p);
std::string pair_scores_text(const Pentanomial& n);  // "3/10/20/8/2"
struct EstimateWords {
  std::string elo, nelo, los, verdict;
};
EstimateWords estimate_words(const EloEstimate& e, bool pairs);

// One sentence on why the ranking's =, the pairing lines and the SPRTs may disagree, when they
// can (an SPRT, or a = that a pairing line contradicts); "" otherwise. Wrapped for a terminal.
std::string why_verdicts_may_differ(const Standings& s);

// Shifts the ratings so that bot `name` has `elo` (instead of a mean of 0), and makes every
// interval the interval of the difference to that bot (the anchor's own is 0). False with the
// reason if there is no such bot.
bool anchor_ratings(Standings& s, const std::string& name, double elo, std::string* error);

// What an index entry of a tournament must be to count as a result. Unknown parts (the
// default) allow anything a tournament file could have set.
struct EntryExpectations {
  v1::Format format = v1::FORMAT_UNSPECIFIED;  // UNSPECIFIED: any format
  int target = 0;                              // 0: any target a file may set
  int max_hands = 0;                           // 0: any hand limit a file may set
  std::set<std::string> bots;                  // empty: any bot name
};

// The most points one event can score (the points for going out or a blocked hand: the set's
// 168 pips rounded to five): no final score exceeds target - 1 + this.
inline constexpr int kMaxPointsAtOnce = 170;

// Why `e` cannot be a result of a tournament as `x` describes it: a reason that is not a
// result (ABORTED), a format other than the tournament's, the wrong number of seats, scores or
// placements for its format, a bot that is not the tournament's (or not a valid name), a bot
// on two sides, scores outside 0..target - 1 + kMaxPointsAtOnce (the winner's) or not below the
// target (the others'), placements or a winner that do not follow from the scores and the
// fault, a fault without its reason FAULT (or the reverse), more hands than the limit. "" if
// none.
std::string entry_problem(const v1::IndexEntry& e, const EntryExpectations& x = {});

// Standings built one finished match at a time, so a long tournament needs memory for its
// bots and pairs only, not for its matches. The result does not depend on the order of add().
class StandingsAccumulator {
 public:
  void add(const v1::IndexEntry& e);
  Standings finish() const;
  // The pairwise games so far by name pair (first's wins-losses-draws), as finish() counts them
  // in Standings::cross, without its fit.
  const std::map<std::pair<std::string, std::string>, HeadToHead>& pairwise() const {
    return pairs_;
  }

 private:
  Standings s_;  // header fields, match count and notes so far
  std::map<std::string, BotStanding> rows_;
  // Pairwise games by name pair (first's wins-losses-draws).
  std::map<std::pair<std::string, std::string>, HeadToHead> pairs_;
  PairBook mirrored_;  // two-side matches grouped into mirrored pairs
  bool first_ = true;
};

Standings compute_standings(const std::vector<v1::IndexEntry>& entries);

// Aligned text: a header, one row per bot (rank, bot, matches, W, L, D, forfeits, average
// points for/against, Elo +/- interval), the forfeits by kind, then the cross table.
std::string format_standings_table(const Standings& s);
// Standings::format in words: "2 players", ..., or "mixed formats" (UNSPECIFIED).
std::string format_words(v1::Format f);

// One header line, then one row per bot in rank order; a column per fault kind.
std::string standings_csv(const Standings& s);

// A JSON document with the tournament, the rows, the head-to-head pairs and the notes.
std::string standings_json(const Standings& s);

// One header line, then one row per pairing (Standings.pairings).
std::string pairings_csv(const Standings& s);

// One header line, then one row per bot with its decision times (wall-clock measures, kept out
// of standings.csv so that it depends on the results alone).
std::string timing_csv(const Standings& s);

// `v` with `decimals` digits after the point, never "-0"; "0" for a value that is not finite.
std::string fixed_text(double v, int decimals);

// Writes DIR/standings.txt, DIR/standings.csv, DIR/pairings.csv, DIR/timing.csv and
// DIR/standings.json (creating DIR).

bool write_standings_files(const std::string& dir, const Standings& s, std::string* error);

}  // namespace allfives::referee
