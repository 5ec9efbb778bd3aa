#include "review/review_words.h"

#include <cmath>
#include <cstdio>

#include "review/review_file.h"

namespace allfives::referee {

namespace {

std::string fixed1(double v, bool sign) {
  char buf[32];
  if (std::fabs(v) < 0.05) v = 0;  // no "-0.0"
  std::snprintf(buf, sizeof buf, sign ? "%+.1f" : "%.1f", v);
  std::string s = buf;
  if (sign && s[0] == '-') s.replace(0, 1, "\u2212");
  return s;
}

}  // namespace

std::string play_words(const v1::Play& play, bool opening) {
  std::string s = std::to_string(play.tile().high()) + "-" + std::to_string(play.tile().low());
  if (!opening) s += play.end() == v1::END_RIGHT ? " right" : " left";
  return s;
}

std::string value_words(double value, double se, bool exact) {
  std::string s = fixed1(value, true);
  if (!exact) s += " \u00b1 " + fixed1(se, false);
  return s;
}

std::string decision_words(const v1::ReviewDecision& d) {
  const bool opening = d.play_in_hand() == 1;
  const v1::ReviewOption& best = d.options(static_cast<int>(d.best_option()));
  const v1::ReviewOption& played = d.options(static_cast<int>(d.played_option()));
  const std::string how = d.exact() ? " (exact)" : "";
  if (d.best_option() == d.played_option())
    return "best play: " + play_words(played.play(), opening) + " " +
           value_words(played.points(), played.points_se(), d.exact()) + how;
  std::string s = "best: " + play_words(best.play(), opening) + " " +
                  value_words(best.points(), best.points_se(), d.exact()) + " \u00b7 played " +
                  play_words(played.play(), opening) + " " +
                  value_words(played.points(), played.points_se(), d.exact()) + how + ": ";
  const std::string_view mark = mark_word(d.mark());
  if (!mark.empty())
    s += mark;
  else
    s += d.loss() > 2 * d.loss_se() ? "slightly worse" : "within the noise";
  s += ", " + value_words(-d.loss(), d.loss_se(), d.exact());
  if (d.mark() != v1::REVIEW_MARK_NONE && d.kind() != v1::LOSS_KIND_NONE)
    s += " (" + std::string(kind_words(d.kind())) + ")";
  return s;
}

}  // namespace allfives::referee
