#include "tournament/sprt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace allfives::referee {
namespace {

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

bool read_sprt(TournamentDef& t, const FieldLocator& at, std::string& why) {
  const v1::Tournament& p = t.proto;
  if (!p.has_sprt()) return true;
  const v1::Sprt& s = p.sprt();
  auto fail = [&](const std::string& text) {
    why = at("sprt") + text;
    return false;
  };
  const Format f = t.config.format;
  if (f != Format::kTwoPlayers && f != Format::kPartnerships)
    return fail(
        "sprt needs two sides (FORMAT_TWO_PLAYERS or FORMAT_PARTNERSHIPS): it compares "
        "two bots over mirrored pairs of matches");
  TournamentDef::SprtSetup setup;
  setup.params.elo0 = s.elo0();
  setup.params.elo1 = s.elo1();
  setup.params.alpha = s.alpha() > 0 ? s.alpha() : 0.05;
  setup.params.beta = s.beta() > 0 ? s.beta() : 0.05;
  setup.max_pairs = s.max_pairs();
  const SprtParams& q = setup.params;
  if (!std::isfinite(q.elo0) || !std::isfinite(q.elo1) || !(q.elo0 < q.elo1))
    return fail("sprt needs elo0 < elo1, got elo0 " + number("%g", q.elo0) + " and elo1 " +
                number("%g", q.elo1));
  if (!(q.alpha > 0 && q.alpha < 1 && q.beta > 0 && q.beta < 1 && q.alpha + q.beta < 1))
    return fail("sprt needs 0 < alpha < 1, 0 < beta < 1 and alpha + beta < 1, got alpha " +
                number("%g", q.alpha) + " and beta " + number("%g", q.beta));
  if (setup.max_pairs > kMaxSprtPairs)
    return fail("sprt max_pairs must be at most " + std::to_string(kMaxSprtPairs));
  const auto candidates = std::count(t.candidate.begin(), t.candidate.end(), true);
  if (candidates == 1) {
    setup.candidate = static_cast<int>(std::find(t.candidate.begin(), t.candidate.end(), true) -
                                       t.candidate.begin());
  } else if (candidates == 0 && t.bots.size() == 2) {
    setup.candidate = 0;
  } else {
    return fail("sprt tests one bot: name exactly one candidate (the file has " +
                std::to_string(candidates) + " candidates and " + std::to_string(t.bots.size()) +
                " bots), or give exactly two bots");
  }
  t.sprt = setup;
  return true;
}

SprtMonitor::SprtMonitor(const TournamentDef::SprtSetup& setup, std::string candidate)
    : setup_(setup), candidate_(std::move(candidate)) {}

bool SprtMonitor::add(const v1::IndexEntry& e) {
  const auto pairing = book_.add(e);
  if (!pairing || (pairing->first != candidate_ && pairing->second != candidate_)) return over_;
  pairs_ = book_.of(candidate_);
  llr_ = sprt_llr_exact(pairs_, setup_.params.elo0, setup_.params.elo1);
  if (over_) return true;
  decision_ = sprt_decide(llr_, setup_.params);
  if (decision_ != SprtDecision::kContinue ||
      (setup_.max_pairs > 0 && pairs_.pairs() >= static_cast<int64_t>(setup_.max_pairs))) {
    over_ = true;
    pairs_at_end_ = pairs_.pairs();
    llr_at_end_ = llr_;
  }
  return over_;
}

SprtStanding SprtMonitor::standing() const {
  SprtStanding s;
  s.candidate = candidate_;
  s.params = setup_.params;
  s.max_pairs = setup_.max_pairs;
  s.pairs = pairs_;
  s.llr = llr_;
  s.over = over_;
  s.decision = decision_;
  s.pairs_at_end = pairs_at_end_;
  s.llr_at_end = llr_at_end_;
  s.estimate = estimate(pairs_);
  return s;
}

std::string SprtMonitor::status() const {
  const SprtParams& q = setup_.params;
  std::string out = "LLR ";
  out += number("%+.2f", llr_);
  out += " (";
  out += number("%+.2f", q.lower_bound());
  out += ", ";
  out += number("%+.2f", q.upper_bound());
  out += ") ";
  out += std::to_string(pairs());
  out += " pairs";
  if (over_) {
    out += ' ';
    out += decision_ == SprtDecision::kContinue ? std::string("max reached") : describe(decision_);
  }
  return out;
}

std::string SprtMonitor::report() const {
  const SprtParams& q = setup_.params;
  std::string out = "SPRT of " + candidate_ + ": H0 nElo = " + number("%g", q.elo0) +
                    ", H1 nElo = " + number("%g", q.elo1) + ", alpha " + number("%g", q.alpha) +
                    ", beta " + number("%g", q.beta) + "\n";
  const Pentanomial& n = pairs_;
  out += "  pairs " + std::to_string(n.pairs()) +
         " (pair scores 0/0.5/1/1.5/2: " + std::to_string(n.n[0]) + "/" + std::to_string(n.n[1]) +
         "/" + std::to_string(n.n[2]) + "/" + std::to_string(n.n[3]) + "/" +
         std::to_string(n.n[4]) + ")\n";
  out += "  LLR " + number("%+.3f", llr_) + " in (" + number("%+.3f", q.lower_bound()) + ", " +
         number("%+.3f", q.upper_bound()) + ")\n";
  const EloEstimate e = estimate(n);
  out += "  nElo " + number("%+.1f", e.nelo) + " +/- " + number("%.1f", e.nelo_ci95) + ", LOS " +
         number("%.1f", 100 * e.los) + "%\n";
  if (!over_) {
    out += "  result: undecided (the schedule ended or the run stopped first)\n";
  } else if (decision_ == SprtDecision::kContinue) {
    out += "  result: undecided, the maximum of " + std::to_string(setup_.max_pairs) +
           " pairs was reached\n";
  } else {
    out += "  result: " + describe(decision_) + " after " + std::to_string(pairs_at_end_) +
           " pairs (LLR " + number("%+.3f", llr_at_end_) + ")" +
           (decision_ == SprtDecision::kAcceptH1 ? ": " + candidate_ + " is stronger by about elo1"
                                                 : ": " + candidate_ + " is not stronger by elo1") +
           "\n";
  }
  if (over_ && pairs() > pairs_at_end_)
    out += "  (" + std::to_string(pairs() - pairs_at_end_) +
           " more pairs finished after the test ended, from matches already under way)\n";
  return out;
}

}  // namespace allfives::referee
