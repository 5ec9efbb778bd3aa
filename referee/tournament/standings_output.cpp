// How standings are written: the table printed at the end of a tournament, and the CSV and
// JSON files (standings, pairings, decision times) of its output folder.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "allfives/wire/convert.h"
#include "log/json_text.h"
#include "match/match_result.h"
#include "tournament/standings.h"

namespace allfives::referee {
std::string format_words(v1::Format f) {
  Format core;
  return wire::from_proto(f, core, nullptr) ? std::string(format_name(core)) : "mixed formats";
}

namespace {

std::string signed_fixed(double v, int decimals) {
  std::string s = fixed_text(v, decimals);
  return s[0] == '-' || s.find_first_not_of("0.") == std::string::npos ? s : "+" + s;
}

// Display width of UTF-8 text (code points; good enough for names and the ± sign).
size_t width(const std::string& s) {
  size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad_left(const std::string& s, size_t w) {
  const size_t have = width(s);
  return have >= w ? s : std::string(w - have, ' ') + s;
}

std::string pad_right(const std::string& s, size_t w) {
  const size_t have = width(s);
  return have >= w ? s : s + std::string(w - have, ' ');
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// An Elo figure: signed, "+inf" / "-inf" when infinite, "undefined" when it does not exist.
std::string elo_text(double v) {
  if (std::isnan(v)) return "undefined";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  return signed_fixed(v, 0);
}

// A number for JSON, null when it is not finite.
std::string json_number(double v, int decimals) {
  return std::isfinite(v) ? fixed_text(v, decimals) : "null";
}

// An estimate for JSON: null when it does not exist, "+inf" / "-inf" when infinite.
std::string json_estimate(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "\"+inf\"" : "\"-inf\"";
  return json_number(v, decimals);
}

std::string timing_csv(const DecisionTiming& t) {
  std::string out = std::to_string(t.decisions);
  for (const double ms : {t.mean_us() / 1000, t.quantile_us(0.5) / 1000, t.quantile_us(0.99) / 1000,
                          t.max_us / 1000.0}) {
    out += ',';
    out += fixed_text(ms, 3);
  }
  out += ',';
  out += std::to_string(t.max_bank_used_ms);
  out += ',';
  out += std::to_string(t.near_deadline);
  return out;
}

std::string timing_json(const DecisionTiming& t) {
  std::string out = "{\"decisions\": ";
  out += std::to_string(t.decisions);
  out += ", \"mean_ms\": " + fixed_text(t.mean_us() / 1000, 3);
  out += ", \"median_ms\": " + fixed_text(t.quantile_us(0.5) / 1000, 3);
  out += ", \"p99_ms\": " + fixed_text(t.quantile_us(0.99) / 1000, 3);
  out += ", \"max_ms\": " + fixed_text(t.max_us / 1000.0, 3);
  out += ", \"max_bank_used_ms\": " + std::to_string(t.max_bank_used_ms);
  out += ", \"near_deadline\": " + std::to_string(t.near_deadline) + "}";
  return out;
}

// An end of an interval: an unbounded one is "-inf" or "+inf" (the bracket is then open).
std::string interval_text(const EloEstimate& e) {
  return (std::isinf(e.elo_lower) ? "(" : "[") + elo_text(e.elo_lower) + ", " +
         elo_text(e.elo_upper) + (std::isinf(e.elo_upper) ? ")" : "]");
}

// "Elo +54 [+15, +96]", "nElo +74 ± 57", "LOS 99.6%" and the verdict: the columns of a pairing
// line (estimate_words with their labels).
std::vector<std::string> estimate_cells(const EloEstimate& e, bool pairs) {
  const EstimateWords w = estimate_words(e, pairs);
  return {"Elo " + w.elo, "nElo " + w.nelo, w.los.empty() ? "" : "LOS " + w.los, w.verdict};
}

// A number for CSV: "inf" / "-inf" when infinite, "" when it does not exist.
std::string csv_number(double v, int decimals) {
  if (std::isnan(v)) return "";
  return std::isfinite(v) ? fixed_text(v, decimals) : std::string(v > 0 ? "inf" : "-inf");
}

// The verdict as a word for the files.
std::string verdict_word(EloEstimate::Verdict v) {
  switch (v) {
    case EloEstimate::Verdict::kTooFew:
      return "too_few";
    case EloEstimate::Verdict::kCannotTell:
      return "cannot_tell";
    case EloEstimate::Verdict::kFirstStronger:
      return "bot_stronger";
    default:
      return "opponent_stronger";
  }
}

std::string h2h_text(const HeadToHead& h) {
  return std::to_string(h.wins) + "-" + std::to_string(h.losses) + "-" + std::to_string(h.draws);
}

}  // namespace

std::string pair_scores_text(const Pentanomial& n) {
  std::string out;
  for (size_t k = 0; k < 5; ++k) {
    if (k) out += '/';
    out += std::to_string(n.n[k]);
  }
  return out;
}

std::string pairing_counts_text(const PairingStats& p) {
  if (!p.pentanomial)
    return std::to_string(p.games.wins) + "-" + std::to_string(p.games.losses) + "-" +
           std::to_string(p.games.draws);
  return pair_scores_text(p.pairs);
}

EstimateWords estimate_words(const EloEstimate& e, bool pairs) {
  EstimateWords w;
  w.elo = elo_text(e.elo);
  w.nelo = elo_text(e.nelo);
  if (e.has_interval()) {
    w.elo += " " + interval_text(e);
    w.nelo += " ± " + fixed_text(e.nelo_ci95, 0);
    w.los = fixed_text(100 * e.los, 1) + "%";
  }
  w.verdict = describe(e.verdict(), pairs);
  if (!e.has_interval() && e.samples >= kMinSamplesForInterval)
    w.verdict += std::string(" (every ") + (pairs ? "pair" : "game") + " scored " +
                 fixed_text(e.score * (pairs ? 2 : 1), 1) + ": no spread, no interval)";
  return w;
}

std::string fixed_text(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) s.erase(0, 1);  // -0
  return s;
}

namespace {

std::string g_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string llr_text(double v, int decimals) {
  return signed_fixed(v, decimals);
}

// "LLR +2.96 >= +2.94: H1" / "LLR -1.20 in (-2.94, +2.94)": the value against its bounds in
// the words that fit it.
std::string llr_against_bounds(double llr, const SprtParams& p, int decimals) {
  const std::string v = "LLR " + llr_text(llr, decimals);
  if (llr >= p.upper_bound()) return v + " ≥ " + llr_text(p.upper_bound(), decimals) + ": H1";
  if (llr <= p.lower_bound()) return v + " ≤ " + llr_text(p.lower_bound(), decimals) + ": H0";
  return v + " in (" + llr_text(p.lower_bound(), decimals) + ", " +
         llr_text(p.upper_bound(), decimals) + ")";
}

// The verdict in words, or "" while the test is running.
std::string sprt_verdict(const SprtSummary& s) {
  const SprtVerdictWords w = sprt_verdict_words(s);
  return w.why.empty() ? w.answer : w.answer + " (" + w.why + ")";
}

}  // namespace

SprtVerdictWords sprt_verdict_words(const SprtSummary& s) {
  const std::string& x = s.candidate;
  const std::string& y = s.against;
  const std::string e0 = g_text(s.params.elo0), e1 = g_text(s.params.elo1);
  switch (s.state) {
    case SprtSummary::State::kAcceptH1:
      return {s.params.elo0 >= 0
                  ? x + " is stronger than " + y
                  : x + " is not weaker than " + y + " by nElo " + g_text(-s.params.elo0),
              "the pairs favour nElo " + e1 + " over nElo " + e0 + "; were it nElo " + e0 +
                  ", this verdict had a chance of alpha = " + g_text(s.params.alpha)};
    case SprtSummary::State::kAcceptH0:
      return {s.params.elo1 <= 0 ? x + " is weaker than " + y
                                 : x + " is not stronger than " + y + " by nElo " + e1,
              "the pairs favour nElo " + e0 + " over nElo " + e1 + "; were it nElo " + e1 +
                  ", this verdict had a chance of beta = " + g_text(s.params.beta)};
    case SprtSummary::State::kMaxPairs:
      return {"undecided: the maximum of " + std::to_string(s.max_pairs) +
                  " pairs came before either bound",
              ""};
    default:
      return {};
  }
}

std::string sprt_status(const SprtSummary& s) {
  if (s.state == SprtSummary::State::kRunning)
    return llr_against_bounds(s.llr, s.params, 2) + ", " + std::to_string(s.pairs.pairs()) +
           " pairs";
  if (s.state == SprtSummary::State::kMaxPairs)
    return llr_against_bounds(s.llr_at_end, s.params, 2) + ": undecided at the maximum of " +
           std::to_string(s.max_pairs) + " pairs";
  return llr_against_bounds(s.llr_at_end, s.params, 2) + " accepted after " +
         std::to_string(s.pairs_at_end) + " pairs";
}

std::string sprt_report(const SprtSummary& s) {
  const SprtParams& q = s.params;
  std::string out =
      "SPRT: is " + s.candidate + " stronger than " + s.against + "? H0 nElo " + g_text(q.elo0) +
      ", H1 nElo " + g_text(q.elo1) + ", alpha " + g_text(q.alpha) + ", beta " + g_text(q.beta) +
      (s.max_pairs > 0 ? ", at most " + std::to_string(s.max_pairs) + " pairs" : "") + "\n";
  const Pentanomial& n = s.pairs;
  out += "  " + std::to_string(n.pairs()) + " pairs of " + s.candidate + " against " + s.against +
         " (pair scores 0/½/1/1½/2: " + std::to_string(n.n[0]) + "/" + std::to_string(n.n[1]) +
         "/" + std::to_string(n.n[2]) + "/" + std::to_string(n.n[3]) + "/" +
         std::to_string(n.n[4]) + "); pairs against any other bot are not part of this test\n";
  if (s.state == SprtSummary::State::kRunning) {
    out += "  " + llr_against_bounds(s.llr, q, 3) + "\n";
    out +=
        "  verdict: none yet, neither bound reached (the run goes on, was stopped, or its "
        "schedule ended first)\n";
  } else {
    const bool decided = s.state != SprtSummary::State::kMaxPairs;
    out += "  " + llr_against_bounds(s.llr_at_end, q, 3) + (decided ? " accepted" : "") +
           " after " + std::to_string(s.pairs_at_end) + " pairs\n";
    out += "  verdict: " + sprt_verdict(s) + "\n";
    if (n.pairs() > s.pairs_at_end)
      out += "  (" + std::to_string(n.pairs() - s.pairs_at_end) +
             " more pairs finished after the test ended, from matches already under way; "
             "LLR now " +
             llr_text(s.llr, 3) + "; the verdict stands)\n";
  }
  const EloEstimate e = estimate(n);
  if (n.pairs() > 0) {
    const std::vector<std::string> cells = estimate_cells(e, true);
    out += "  over these pairs: " + cells[1] + ", " + cells[0] +
           (cells[2].empty() ? "" : ", " + cells[2]) + ": " + cells[3] + "\n";
  }
  const EloEstimate::Verdict v = e.verdict();
  const bool yes = v == EloEstimate::Verdict::kFirstStronger;
  if ((s.state == SprtSummary::State::kAcceptH1 && !yes) ||
      (s.state == SprtSummary::State::kAcceptH0 && yes))
    out +=
        "  why the interval and the SPRT differ: the SPRT chooses between its two hypotheses "
        "at error rates alpha and beta; the 95% interval asks whether the pairs exclude a "
        "difference of 0\n";
  return out;
}

namespace {

// Whether a bot's `=` with the bot below it and their pairing line's verdict disagree.
bool ranking_disagrees(const Standings& s) {
  for (size_t i = 0; i + 1 < s.bots.size(); ++i)
    for (const PairingStats& p : s.pairings) {
      if (p.bot != s.bots[i].name || p.opponent != s.bots[i + 1].name) continue;
      const EloEstimate::Verdict v = p.estimate.verdict();
      const bool apart =
          v == EloEstimate::Verdict::kFirstStronger || v == EloEstimate::Verdict::kSecondStronger;
      if (v != EloEstimate::Verdict::kTooFew && apart == s.bots[i].tied_with_next) return true;
    }
  return false;
}

}  // namespace

std::string why_verdicts_may_differ(const Standings& s) {
  if (s.sprt.empty() && !ranking_disagrees(s)) return "";
  return "Why these may differ: the ranking's = comes from one Bradley-Terry fit over single "
         "games of\nevery bot (blind to the shared deals of mirrored pairs), a pairing line "
         "from that pairing's own\npairs (a 95% interval), an SPRT from its pairs' LLR "
         "against bounds set by alpha and beta\n(a sequential choice between two "
         "hypotheses, not an interval).";
}

namespace {

// The standings with every text that came from an index made printable (json_text.h).
Standings printable_copy(const Standings& s) {
  Standings t = s;
  t.tournament_name = printable(t.tournament_name);
  t.anchor = printable(t.anchor);
  for (BotStanding& b : t.bots) b.name = printable(b.name);
  for (PairingStats& p : t.pairings) {
    p.bot = printable(p.bot);
    p.opponent = printable(p.opponent);
  }
  for (std::string& note : t.notes) note = printable(note);
  for (SprtSummary& x : t.sprt) {
    x.candidate = printable(x.candidate);
    x.against = printable(x.against);
  }
  return t;
}

}  // namespace

namespace {

using Rows = std::vector<std::vector<std::string>>;

// `rows` as aligned columns: each line starts with `indent`, cells are `gap` apart, the column
// `left` (or every one, when `left` is kAllLeft) padded on the right and the others on the
// left; trailing spaces cut.
constexpr size_t kAllLeft = SIZE_MAX;
void print_columns(std::ostream& out, const Rows& rows, size_t left, const std::string& indent,
                   const std::string& gap) {
  std::vector<size_t> widths(rows.empty() ? 0 : rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += gap;
      const bool pad_on_right = left == kAllLeft || c == left;
      line += pad_on_right ? pad_right(row[c], widths[c]) : pad_left(row[c], widths[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

// The ranking: a row per bot, best first.
void print_ranking(std::ostream& out, const Standings& s) {
  Rows rows = {
      {"Rank", "Bot", "Matches", "W", "L", "D", "Forfeits", "Pts for", "Pts against", "Elo"}};
  for (size_t i = 0; i < s.bots.size(); ++i) {
    const BotStanding& b = s.bots[i];
    std::string rank = std::to_string(i + 1);
    if (b.tied) rank += '=';
    rows.push_back({rank, b.name, std::to_string(b.matches), std::to_string(b.wins),
                    std::to_string(b.losses), std::to_string(b.draws),
                    std::to_string(b.forfeits_total), fixed_text(b.avg_points_for(), 1),
                    fixed_text(b.avg_points_against(), 1),
                    signed_fixed(b.elo, 0) + " ± " + fixed_text(b.elo_ci95, 0)});
  }
  print_columns(out, rows, 1, "", "  ");
}

void print_forfeits(std::ostream& out, const Standings& s) {
  bool any_forfeit = false;
  for (const BotStanding& b : s.bots) {
    if (b.forfeits_total == 0) continue;
    if (!any_forfeit) out << "\nForfeits by kind:\n";
    any_forfeit = true;
    out << "  " << b.name << ":";
    const char* sep = " ";
    for (int k = 0; k < static_cast<int>(b.forfeits.size()); ++k) {
      if (b.forfeits[k] == 0) continue;
      out << sep << describe(static_cast<v1::FaultKind>(k)) << " " << b.forfeits[k];
      sep = ", ";
    }
    out << "\n";
  }
}

void print_head_to_head(std::ostream& out, const Standings& s) {
  if (s.bots.size() <= 1) return;
  out << "\nHead to head (row against column, pairwise games: wins-losses-draws)\n";
  Rows grid;
  std::vector<std::string> top = {"", ""};
  for (size_t j = 0; j < s.bots.size(); ++j) top.push_back(std::to_string(j + 1));
  grid.push_back(top);
  for (size_t i = 0; i < s.bots.size(); ++i) {
    std::vector<std::string> row = {std::to_string(i + 1), s.bots[i].name};
    for (size_t j = 0; j < s.bots.size(); ++j)
      row.push_back(i == j ? "-" : s.cross[i][j].games() ? h2h_text(s.cross[i][j]) : ".");
    grid.push_back(row);
  }
  print_columns(out, grid, 1, "", "  ");
}

bool any_timing(const Standings& s) {
  return std::any_of(s.bots.begin(), s.bots.end(),
                     [](const BotStanding& b) { return b.timing.decisions > 0; });
}

void print_decision_times(std::ostream& out, const Standings& s) {
  if (!any_timing(s)) return;
  out << "\nDecision times (ms)\n";
  Rows rows = {
      {"Bot", "Decisions", "Mean", "Median", "p99", "Max", "Most bank used", "Near deadline"}};
  for (const BotStanding& b : s.bots) {
    const DecisionTiming& t = b.timing;
    if (t.decisions == 0) continue;
    rows.push_back({b.name, std::to_string(t.decisions), fixed_text(t.mean_us() / 1000, 2),
                    fixed_text(t.quantile_us(0.5) / 1000, 2),
                    fixed_text(t.quantile_us(0.99) / 1000, 2), fixed_text(t.max_us / 1000.0, 2),
                    std::to_string(t.max_bank_used_ms), std::to_string(t.near_deadline)});
  }
  print_columns(out, rows, 0, "", "  ");
}

void print_pairings(std::ostream& out, const Standings& s) {
  if (s.pairings.empty()) return;
  out << "\nPairings (the first bot's side; Elo [95% interval], normalized Elo ± 95%, "
         "likelihood of superiority)\n";
  Rows rows;
  for (const PairingStats& p : s.pairings) {
    const EloEstimate& e = p.estimate;
    std::vector<std::string> row = {
        p.bot + " vs " + p.opponent,
        std::to_string(e.samples) + (p.pentanomial ? " pairs" : " games"), pairing_counts_text(p)};
    for (std::string& cell : estimate_cells(e, p.pentanomial)) row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  print_columns(out, rows, kAllLeft, "  ", " ");
}

// What the columns mean, and the notes.
void print_legend(std::ostream& out, const Standings& s) {
  out << "\nW/L/D: sole first place / not first / shared first place; a forfeit is a loss.\n"
         "Pts for/against: average per match of the bot's side's score / of the opposing "
         "side's\n(3-4 players: the mean of the other players' scores).\n"
         "Elo: Bradley-Terry fit over pairwise games (each pair of bots in a match; a draw "
         "is half\na win), mean 0, ± a 95% interval; prior: "
      << fixed_text(kEloPriorDraws, 0) << " virtual draw per bot against a 0-rated opponent.\n";
  if (!s.anchor.empty())
    out << "Anchored: " << s.anchor
        << " instead of mean 0; each ± is the interval of the difference to the anchor.\n";
  if (std::any_of(s.bots.begin(), s.bots.end(), [](const BotStanding& b) { return b.tied; }))
    out << "=: cannot be told apart from a neighbour in the ranking (the 95% interval of their "
           "Elo\ndifference includes 0): the order between them may be noise.\n";
  if (any_timing(s))
    out << "Decision times: median and p99 to within 4.5%; most bank used: in one match; near "
           "deadline:\ndecisions that took 90% or more of the move time plus the bank left.\n";
  if (!s.pairings.empty())
    out << "Pairings: over mirrored pairs (the same deals, seats swapped), counted by the first "
           "bot's\npair score 0/½/1/1½/2, or over pairwise games (W-L-D) where there are no "
           "pairs. The verdict\nfollows the Elo interval (\"cannot be told apart\": it "
           "includes 0); nElo's ± also carries the\nuncertainty of the spread, so it is wider "
           "for lopsided pairings. Below "
        << kMinSamplesForInterval
        << " pairs (or\ngames) no interval is given. Formulas: docs/STATISTICS.md.\n";
  const std::string differ = why_verdicts_may_differ(s);
  if (!differ.empty()) out << differ << "\n";
  for (const std::string& note : s.notes) out << "Note: " << note << "\n";
}

}  // namespace

std::string format_standings_table(const Standings& raw) {
  // Names come from index lines, which anyone can edit: no newline or escape sequence in one
  // may reach the terminal.
  const Standings s = printable_copy(raw);
  std::ostringstream out;
  out << "Tournament " << (s.tournament_name.empty() ? "(unnamed)" : s.tournament_name) << ": "
      << format_words(s.format) << ", " << s.matches << " match" << (s.matches == 1 ? "" : "es");
  if (!s.tournament_hash.empty()) out << " (hash " << s.tournament_hash << ")";
  out << "\n\n";
  print_ranking(out, s);
  print_forfeits(out, s);
  print_head_to_head(out, s);
  print_decision_times(out, s);
  print_pairings(out, s);
  for (const SprtSummary& t : s.sprt) out << "\n" << sprt_report(t);
  print_legend(out, s);
  return out.str();
}

std::string standings_csv(const Standings& s) {
  std::string out = "rank,bot,matches,wins,losses,draws,forfeits";
  for (int k = 1; k < v1::FaultKind_ARRAYSIZE; ++k)
    if (v1::FaultKind_IsValid(k)) out += ",forfeit_" + describe(static_cast<v1::FaultKind>(k));
  out +=
      ",points_for,points_against,avg_points_for,avg_points_against,games,game_score,elo,"
      "elo_ci95,statistical_tie\n";
  for (size_t i = 0; i < s.bots.size(); ++i) {
    const BotStanding& b = s.bots[i];
    out += std::to_string(i + 1) + "," + csv_field(b.name) + "," + std::to_string(b.matches) + "," +
           std::to_string(b.wins) + "," + std::to_string(b.losses) + "," + std::to_string(b.draws) +
           "," + std::to_string(b.forfeits_total);
    for (int k = 1; k < v1::FaultKind_ARRAYSIZE; ++k) {
      if (!v1::FaultKind_IsValid(k)) continue;
      out += ',';
      out += std::to_string(b.forfeits[k]);
    }
    out += ',';  // not "," + text: GCC 12 warns falsely (-Wrestrict) on that here
    out += fixed_text(b.points_for, 0) + "," + fixed_text(b.points_against, 2) + "," +
           fixed_text(b.avg_points_for(), 2) + "," + fixed_text(b.avg_points_against(), 2) + "," +
           std::to_string(b.games) + "," + fixed_text(b.game_score, 1) + "," +
           fixed_text(b.elo, 1) + "," + fixed_text(b.elo_ci95, 1) + "," + (b.tied ? "1" : "0") +
           "\n";
  }
  return out;
}

namespace {

std::string sprt_state_word(SprtSummary::State state) {
  switch (state) {
    case SprtSummary::State::kAcceptH0:
      return "h0_accepted";
    case SprtSummary::State::kAcceptH1:
      return "h1_accepted";
    case SprtSummary::State::kMaxPairs:
      return "max_pairs";
    default:
      return "running";
  }
}

std::string sprt_json(const SprtSummary& t) {
  const SprtParams& q = t.params;
  std::string out =
      "{\"candidate\": " + json_string(t.candidate) + ", \"against\": " + json_string(t.against) +
      ", \"elo0\": " + json_number(q.elo0, 4) + ", \"elo1\": " + json_number(q.elo1, 4) +
      ", \"alpha\": " + json_number(q.alpha, 6) + ", \"beta\": " + json_number(q.beta, 6) +
      ", \"max_pairs\": " + std::to_string(t.max_pairs) +
      ", \"lower_bound\": " + json_number(q.lower_bound(), 6) +
      ", \"upper_bound\": " + json_number(q.upper_bound(), 6) + ", \"pairs\": [";
  for (size_t k = 0; k < 5; ++k) out += (k ? ", " : "") + std::to_string(t.pairs.n[k]);
  out += "], \"llr\": " + json_number(t.llr, 6) + ", \"state\": \"" + sprt_state_word(t.state) +
         "\", \"pairs_at_end\": " + std::to_string(t.pairs_at_end) +
         ", \"llr_at_end\": " + json_number(t.llr_at_end, 6) +
         ", \"status\": " + json_string(sprt_status(t)) +
         ", \"verdict\": " + json_string(sprt_verdict(t)) + "}";
  return out;
}

// A JSON array of standings.json, an element a line ("[]" when empty).
std::string json_rows(const std::vector<std::string>& rows) {
  if (rows.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) out += (i ? ",\n    " : "\n    ") + rows[i];
  return out + "\n  ]";
}

// A bot's forfeits by kind, every kind of common.proto named by its word.
std::string forfeits_json(const BotStanding& b) {
  std::string out = "{";
  const char* sep = "";
  for (int k = 1; k < v1::FaultKind_ARRAYSIZE; ++k) {
    if (!v1::FaultKind_IsValid(k)) continue;
    out += sep + json_string(describe(static_cast<v1::FaultKind>(k))) + ": " +
           std::to_string(b.forfeits[k]);
    sep = ", ";
  }
  return out + "}";
}

std::string bot_json(const BotStanding& b, size_t rank) {
  return "{\"rank\": " + std::to_string(rank) + ", \"name\": " + json_string(b.name) +
         ", \"matches\": " + std::to_string(b.matches) + ", \"wins\": " + std::to_string(b.wins) +
         ", \"losses\": " + std::to_string(b.losses) + ", \"draws\": " + std::to_string(b.draws) +
         ", \"forfeits\": " + std::to_string(b.forfeits_total) +
         ", \"forfeits_by_kind\": " + forfeits_json(b) +
         ", \"points_for\": " + fixed_text(b.points_for, 0) +
         ", \"points_against\": " + fixed_text(b.points_against, 2) +
         ", \"avg_points_for\": " + fixed_text(b.avg_points_for(), 2) +
         ", \"avg_points_against\": " + fixed_text(b.avg_points_against(), 2) +
         ", \"games\": " + std::to_string(b.games) +
         ", \"game_score\": " + fixed_text(b.game_score, 1) + ", \"elo\": " + fixed_text(b.elo, 1) +
         ", \"elo_ci95\": " + fixed_text(b.elo_ci95, 1) +
         ", \"statistical_tie\": " + (b.tied ? "true" : "false") +
         ", \"timing\": " + timing_json(b.timing) + "}";
}

// Every ordered pair of bots that met, bot by bot.
std::vector<std::string> head_to_head_rows(const Standings& s) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < s.bots.size(); ++i)
    for (size_t j = 0; j < s.bots.size(); ++j) {
      const HeadToHead& h = s.cross[i][j];
      if (i == j || h.games() == 0) continue;
      rows.push_back("{\"bot\": " + json_string(s.bots[i].name) + ", \"opponent\": " +
                     json_string(s.bots[j].name) + ", \"wins\": " + std::to_string(h.wins) +
                     ", \"losses\": " + std::to_string(h.losses) +
                     ", \"draws\": " + std::to_string(h.draws) + "}");
    }
  return rows;
}

std::string pairing_json(const PairingStats& p) {
  const EloEstimate& e = p.estimate;
  std::string out =
      "{\"bot\": " + json_string(p.bot) + ", \"opponent\": " + json_string(p.opponent) +
      ", \"model\": " + (p.pentanomial ? "\"pentanomial\"" : "\"trinomial\"") + ", \"pairs\": [";
  for (size_t k = 0; k < 5; ++k) {
    if (k) out += ", ";
    out += std::to_string(p.pairs.n[k]);
  }
  out += "], \"games\": {\"wins\": " + std::to_string(p.games.wins) +
         ", \"draws\": " + std::to_string(p.games.draws) +
         ", \"losses\": " + std::to_string(p.games.losses) +
         "}, \"samples\": " + std::to_string(e.samples) +
         ", \"score\": " + json_number(e.score, 6) + ", \"elo\": " + json_estimate(e.elo, 2) +
         ", \"interval\": " + (e.has_interval() ? "true" : "false") +
         ", \"elo_lower\": " + json_estimate(e.elo_lower, 2) +
         ", \"elo_upper\": " + json_estimate(e.elo_upper, 2) +
         ", \"nelo\": " + json_estimate(e.nelo, 2) +
         ", \"nelo_ci95\": " + json_number(e.nelo_ci95, 2) + ", \"los\": " + json_number(e.los, 6) +
         ", \"verdict\": \"" + verdict_word(e.verdict()) + "\"}";
  return out;
}

}  // namespace

std::string standings_json(const Standings& s) {
  std::vector<std::string> bots, pairings, sprts;
  for (size_t i = 0; i < s.bots.size(); ++i) bots.push_back(bot_json(s.bots[i], i + 1));
  for (const PairingStats& p : s.pairings) pairings.push_back(pairing_json(p));
  for (const SprtSummary& t : s.sprt) sprts.push_back(sprt_json(t));
  std::string out = "{\n";
  out += "  \"tournament_name\": " + json_string(s.tournament_name) + ",\n";
  out += "  \"tournament_hash\": " + json_string(s.tournament_hash) + ",\n";
  out += "  \"format\": " + json_string(v1::Format_Name(s.format)) + ",\n";
  out += "  \"matches\": " + std::to_string(s.matches) + ",\n";
  out += "  \"elo_prior_draws\": " + fixed_text(kEloPriorDraws, 2) + ",\n";
  out += "  \"anchor\": " + json_string(s.anchor) + ",\n";
  out += "  \"bots\": " + json_rows(bots) + ",\n";
  out += "  \"head_to_head\": " + json_rows(head_to_head_rows(s)) + ",\n";
  out += "  \"pairings\": " + json_rows(pairings) + ",\n";
  out += "  \"sprt\": " + json_rows(sprts) + ",\n";
  out += "  \"notes\": [";
  for (size_t i = 0; i < s.notes.size(); ++i) out += (i ? ", " : "") + json_string(s.notes[i]);
  out += "]\n}\n";
  return out;
}

std::string timing_csv(const Standings& s) {
  std::string out =
      "bot,decisions,mean_decision_ms,median_decision_ms,p99_decision_ms,max_decision_ms,"
      "max_bank_used_ms,near_deadline\n";
  for (const BotStanding& b : s.bots) out += csv_field(b.name) + "," + timing_csv(b.timing) + "\n";
  return out;
}

std::string pairings_csv(const Standings& s) {
  std::string out =
      "bot,opponent,model,pairs_0,pairs_half,pairs_1,pairs_1half,pairs_2,wins,draws,losses,"
      "samples,score,elo,elo_lower,elo_upper,nelo,nelo_ci95,los,verdict\n";
  for (const PairingStats& p : s.pairings) {
    const EloEstimate& e = p.estimate;
    out += csv_field(p.bot) + "," + csv_field(p.opponent) + "," +
           (p.pentanomial ? "pentanomial" : "trinomial");
    for (size_t k = 0; k < 5; ++k) {
      out += ',';
      out += std::to_string(p.pairs.n[k]);
    }
    out += ',';
    out += std::to_string(p.games.wins) + "," + std::to_string(p.games.draws) + "," +
           std::to_string(p.games.losses) + "," + std::to_string(e.samples) + "," +
           csv_number(e.score, 6) + "," + csv_number(e.elo, 2) + "," + csv_number(e.elo_lower, 2) +
           "," + csv_number(e.elo_upper, 2) + "," + csv_number(e.nelo, 2) + "," +
           csv_number(e.nelo_ci95, 2) + "," + csv_number(e.los, 6) + "," +
           verdict_word(e.verdict()) + "\n";
  }
  return out;
}

bool write_standings_files(const std::string& dir, const Standings& s, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    if (error) *error = "cannot create folder " + dir + ": " + ec.message();
    return false;
  }
  const std::pair<const char*, std::string> files[] = {{"standings.txt", format_standings_table(s)},
                                                       {"standings.csv", standings_csv(s)},
                                                       {"pairings.csv", pairings_csv(s)},
                                                       {"timing.csv", timing_csv(s)},
                                                       {"standings.json", standings_json(s)}};
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      if (error) *error = "cannot write " + path;
      return false;
    }
  }
  return true;
}

}  // namespace allfives::referee
