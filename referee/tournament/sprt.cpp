#include "tournament/sprt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "tournament/output_folder.h"

namespace allfives::referee {
namespace {

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// alpha or beta as written: 0 (unset) is 0.05; anything else must lie in (0, 1).
bool error_rate(double given, const char* name, double& out, std::string& why) {
  out = given == 0 ? 0.05 : given;
  if (out > 0 && out < 1) return true;  // false for NaN too
  why = std::string("sprt ") + name + " must be in (0, 1) (or 0: 0.05), got " + number("%g", given);
  return false;
}

// The bots the candidate meets: in a gauntlet every baseline, else every other bot.
std::vector<int> opponents_of(const TournamentDef& t, int candidate) {
  std::vector<int> out;
  const bool gauntlet =
      std::find(t.candidate.begin(), t.candidate.end(), true) != t.candidate.end();
  for (int i = 0; i < static_cast<int>(t.bots.size()); ++i)
    if (i != candidate && !(gauntlet && t.candidate[static_cast<size_t>(i)])) out.push_back(i);
  return out;
}

std::string names(const TournamentDef& t, const std::vector<int>& bots) {
  std::string out;
  for (int b : bots)
    out += (out.empty() ? "'" : ", '") + t.bots[static_cast<size_t>(b)].display_name + "'";
  return out;
}

// The references: `against` (each an opponent of the candidate, once), or the only opponent.
bool read_references(TournamentDef& t, TournamentDef::SprtSetup& setup, std::string& why) {
  const v1::Sprt& s = t.proto.sprt();
  const std::string& candidate = t.bots[static_cast<size_t>(setup.candidate)].display_name;
  const std::vector<int> opponents = opponents_of(t, setup.candidate);
  if (s.against_size() == 0) {
    if (opponents.size() == 1) {
      setup.against = opponents;
      return true;
    }
    why = "sprt tests '" + candidate + "' against one reference, and it meets " +
          std::to_string(opponents.size()) + " bots (" + names(t, opponents) +
          "): name the one the question is about, e.g. against: \"" +
          t.bots[static_cast<size_t>(opponents.front())].display_name +
          "\" (the others are played for information)";
    return false;
  }
  for (const std::string& name : s.against()) {
    const auto it = std::find_if(opponents.begin(), opponents.end(), [&](int b) {
      return t.bots[static_cast<size_t>(b)].display_name == name;
    });
    if (it == opponents.end()) {
      why = "sprt against '" + name + "' is not a bot that '" + candidate + "' meets (" +
            names(t, opponents) + ")";
      return false;
    }
    if (std::find(setup.against.begin(), setup.against.end(), *it) != setup.against.end()) {
      why = "sprt against '" + name + "' is named twice";
      return false;
    }
    setup.against.push_back(*it);
  }
  return true;
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
  if (num_sides(f) != 2)
    return fail(
        "sprt needs two sides (FORMAT_TWO_PLAYERS or FORMAT_PARTNERSHIPS): it compares "
        "two bots over mirrored pairs of matches");
  TournamentDef::SprtSetup setup;
  setup.params.elo0 = s.elo0();
  setup.params.elo1 = s.elo1();
  setup.max_pairs = s.max_pairs();
  const SprtParams& q = setup.params;
  if (!std::isfinite(q.elo0) || !std::isfinite(q.elo1) || !(q.elo0 < q.elo1))
    return fail("sprt needs finite elo0 < elo1, got elo0 " + number("%g", q.elo0) + " and elo1 " +
                number("%g", q.elo1));
  std::string text;
  if (!error_rate(s.alpha(), "alpha", setup.params.alpha, text) ||
      !error_rate(s.beta(), "beta", setup.params.beta, text))
    return fail(text);
  if (!(q.alpha + q.beta < 1))
    return fail("sprt needs alpha + beta < 1, got alpha " + number("%g", q.alpha) + " and beta " +
                number("%g", q.beta));
  if (setup.max_pairs > kMaxSprtPairs)
    return fail("sprt max_pairs must be 0.." + std::to_string(kMaxSprtPairs) +
                " (0: until the schedule ends), got " + std::to_string(setup.max_pairs));
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
  if (!read_references(t, setup, text)) return fail(text);
  t.sprt = setup;
  return true;
}

SprtMonitor::SprtMonitor(const TournamentDef::SprtSetup& setup, std::string candidate,
                         std::string against) {
  summary_.candidate = std::move(candidate);
  summary_.against = std::move(against);
  summary_.params = setup.params;
  summary_.max_pairs = setup.max_pairs;
}

bool SprtMonitor::counts(const v1::ScheduledMatch& m) const {
  bool candidate = false, against = false, other = false;
  for (const std::string& bot : m.seat_bots()) {
    candidate |= bot == summary_.candidate;
    against |= bot == summary_.against;
    other |= bot != summary_.candidate && bot != summary_.against;
  }
  return candidate && against && !other;
}

bool SprtMonitor::add(const v1::IndexEntry& e) {
  if (!counts(e.match())) return over();
  const auto pairing = book_.add(e);
  if (!pairing) return over();
  const Pentanomial& p = book_.pairings().at(*pairing);
  SprtSummary& s = summary_;
  s.pairs = pairing->first == s.candidate ? p : p.mirrored();
  s.llr = sprt_llr_exact(s.pairs, s.params.elo0, s.params.elo1);
  if (over()) return true;
  const SprtDecision d = sprt_decide(s.llr, s.params);
  if (d == SprtDecision::kAcceptH0) s.state = SprtSummary::State::kAcceptH0;
  if (d == SprtDecision::kAcceptH1) s.state = SprtSummary::State::kAcceptH1;
  if (d == SprtDecision::kContinue && s.max_pairs > 0 &&
      s.pairs.pairs() >= static_cast<int64_t>(s.max_pairs))
    s.state = SprtSummary::State::kMaxPairs;
  if (over()) {
    s.pairs_at_end = s.pairs.pairs();
    s.llr_at_end = s.llr;
  }
  return over();
}

SprtDecision SprtMonitor::decision() const {
  switch (summary_.state) {
    case SprtSummary::State::kAcceptH0:
      return SprtDecision::kAcceptH0;
    case SprtSummary::State::kAcceptH1:
      return SprtDecision::kAcceptH1;
    default:
      return SprtDecision::kContinue;
  }
}

std::vector<SprtMonitor> make_sprt_monitors(const TournamentDef& t) {
  std::vector<SprtMonitor> out;
  if (!t.sprt) return out;
  const std::string& candidate = t.bots[static_cast<size_t>(t.sprt->candidate)].display_name;
  for (int b : t.sprt->against)
    out.emplace_back(*t.sprt, candidate, t.bots[static_cast<size_t>(b)].display_name);
  return out;
}

bool add_sprt_from_folder(Standings& s, const std::string& dir,
                          const std::vector<v1::IndexEntry>& entries, std::string* why) {
  const std::string file = output_path(dir, kDefinitionFile);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return true;
  return add_sprt_from_file(s, file, entries, why);
}

bool add_sprt_from_file(Standings& s, const std::string& file,
                        const std::vector<v1::IndexEntry>& entries, std::string* why) {
  TournamentDef def;
  if (!load_tournament(file, def, why, {}, LoadOptions{.check_programs = false})) return false;
  std::vector<SprtMonitor> monitors = make_sprt_monitors(def);
  for (const v1::IndexEntry& e : entries)
    for (SprtMonitor& m : monitors) m.add(e);
  for (const SprtMonitor& m : monitors) s.sprt.push_back(m.summary());
  return true;
}

}  // namespace allfives::referee
