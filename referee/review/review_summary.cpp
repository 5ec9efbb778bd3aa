#include "review/review_summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "allfives/core/types.h"
#include "allfives/wire/convert.h"
#include "review/review_words.h"

namespace allfives::referee {

namespace {

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string lpad(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-+=:,").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Each seat's opponents' names, joined: "greedy" or "a + b".
std::string opponents_of(const v1::ReviewHeader& h, int seat) {
  Format format = Format::kTwoPlayers;
  wire::from_proto(h.format(), format, nullptr);
  std::set<std::string> names;
  for (int s = 0; s < h.seat_bots_size(); ++s)
    if (side_of(format, s) != side_of(format, seat)) names.insert(h.seat_bots(s));
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " + ") + n;
  return out;
}

std::string tally_row(const std::string& label, const LossTally& t, size_t width) {
  return "  " + pad(label, width) + lpad(std::to_string(t.decisions), 10) +
         lpad(fixed(t.per_decision(), 2), 10) + lpad(fixed(t.loss, 1), 10) +
         lpad(std::to_string(t.marks[1]), 7) + lpad(std::to_string(t.marks[2]), 7) +
         lpad(std::to_string(t.marks[3]), 7) + "\n";
}

std::string tally_head(const std::string& label, size_t width) {
  return "  " + pad(label, width) + lpad("decisions", 10) + lpad("lost/dec", 10) +
         lpad("lost", 10) + lpad("inacc", 7) + lpad("mist", 7) + lpad("blund", 7) + "\n";
}

}  // namespace

void LossTally::add(const v1::ReviewDecision& d) {
  ++decisions;
  loss += d.loss();
  ++marks[static_cast<size_t>(std::clamp<int>(d.mark(), 0, 3))];
}

std::vector<BotReview> summarize_reviews(const std::vector<ReviewedLog>& logs,
                                         const std::string& bot, int top) {
  std::map<std::string, BotReview> bots;
  for (const ReviewedLog& log : logs) {
    const v1::ReviewHeader& h = log.review.header;
    std::set<std::string> in_match;
    std::set<std::pair<std::string, uint32_t>> hands;
    for (const v1::ReviewDecision& d : log.review.decisions) {
      const int seat = static_cast<int>(d.seat());
      if (seat >= h.seat_bots_size()) continue;
      const std::string& name = h.seat_bots(seat);
      if (!bot.empty() && name != bot) continue;
      BotReview& b = bots[name];
      b.bot = name;
      b.all.add(d);
      b.by_phase[static_cast<size_t>(std::clamp<int>(d.phase(), 0, 3))].add(d);
      if (d.kind() != v1::LOSS_KIND_NONE)
        b.by_kind[static_cast<size_t>(std::clamp<int>(d.kind(), 0, 4))].add(d);
      b.by_opponent[opponents_of(h, seat)].add(d);
      if (hands.insert({name, d.hand_index()}).second) ++b.hands;
      if (in_match.insert(name).second) ++b.matches;
      if (d.loss() > 0) b.costliest.push_back(CostlyDecision{log.log_path, d});
    }
  }
  std::vector<BotReview> out;
  for (auto& [name, b] : bots) {
    std::stable_sort(b.costliest.begin(), b.costliest.end(),
                     [](const CostlyDecision& x, const CostlyDecision& y) {
                       return x.decision.loss() > y.decision.loss();
                     });
    if (b.costliest.size() > static_cast<size_t>(std::max(0, top)))
      b.costliest.resize(static_cast<size_t>(std::max(0, top)));
    out.push_back(std::move(b));
  }
  return out;
}

std::string replay_command(const std::string& log_path, const v1::ReviewDecision& d) {
  return "referee replay " + shell_word(log_path) + " --print --hand " +
         std::to_string(d.hand_index() + 1) + " --play " + std::to_string(d.play_in_hand());
}

std::string summary_text(const std::vector<BotReview>& bots, bool detail) {
  if (bots.empty()) return "No reviewed decisions.\n";
  size_t width = 4;
  for (const BotReview& b : bots) width = std::max(width, b.bot.size() + 1);
  std::string s =
      "Expected points lost (the best play's value minus the play made's; marks: "
      "docs/REVIEW.md)\n";
  s += "  " + pad("bot", width) + lpad("matches", 8) + lpad("decisions", 10) +
       lpad("lost/dec", 10) + lpad("lost/hand", 10) + lpad("inacc", 7) + lpad("mist", 7) +
       lpad("blund", 7) + "\n";
  for (const BotReview& b : bots)
    s += "  " + pad(b.bot, width) + lpad(std::to_string(b.matches), 8) +
         lpad(std::to_string(b.all.decisions), 10) + lpad(fixed(b.all.per_decision(), 2), 10) +
         lpad(fixed(b.per_hand(), 2), 10) + lpad(std::to_string(b.all.marks[1]), 7) +
         lpad(std::to_string(b.all.marks[2]), 7) + lpad(std::to_string(b.all.marks[3]), 7) + "\n";
  for (const BotReview& b : bots) {
    s += "\n" + b.bot + "\n";
    if (detail) {
      constexpr size_t kw = 33;  // "a score handed to the next seat"
      s += tally_head("phase", kw);
      for (auto p : {v1::HAND_PHASE_OPENING, v1::HAND_PHASE_MIDDLE, v1::HAND_PHASE_END})
        s += tally_row(std::string(phase_word(p)), b.by_phase[p], kw);
      s += tally_head("kind of loss", kw);
      for (auto k : {v1::LOSS_KIND_SCORE_MISSED, v1::LOSS_KIND_SCORE_HANDED,
                     v1::LOSS_KIND_WEIGHT_KEPT, v1::LOSS_KIND_OTHER})
        s += tally_row(std::string(kind_words(k)), b.by_kind[k], kw);
      size_t ow = kw;
      for (const auto& [name, t] : b.by_opponent) ow = std::max(ow, name.size() + 4);
      s += tally_head("against", ow);
      for (const auto& [name, t] : b.by_opponent) s += tally_row(name, t, ow);
    }
    const size_t shown = detail ? b.costliest.size() : std::min<size_t>(3, b.costliest.size());
    if (shown == 0) continue;
    s += "  costliest decisions:\n";
    for (size_t i = 0; i < shown; ++i) {
      const CostlyDecision& c = b.costliest[i];
      s += "  " + lpad(std::to_string(i + 1), 3) + ". hand " +
           std::to_string(c.decision.hand_index() + 1) + " play " +
           std::to_string(c.decision.play_in_hand()) + ": " + decision_words(c.decision) + "\n" +
           "       " + replay_command(c.log_path, c.decision) + "\n";
    }
  }
  return s;
}

}  // namespace allfives::referee
