// Browser tests of game reviews: a reviewed replay, its graph and "only mistakes", a match
// reviewed from its page, and a person's own decisions reviewed after their match.
// Screenshots are left in the build folder (ALLFIVES_SERVE_OUT).
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "review/review_file.h"
#include "serve/browser_util.h"
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;
using namespace browser;

const std::string kOut = ALLFIVES_SERVE_OUT;

// The step each log line is on in the page (records after the header, bots' output left out).
std::map<int, int> steps_by_line(const std::vector<v1::LogRecord>& records) {
  std::map<int, int> out;
  int step = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].has_header() || records[i].has_bot_output()) continue;
    out[static_cast<int>(i) + 1] = ++step;
  }
  return out;
}

// A served replay with its review: the graph has a point per reviewed decision, a click on one
// opens that decision, whose panel ranks the plays by value ± error with the best and the
// mark; "only mistakes" lists the marked decisions.
TEST(BrowserTest, TheReplayShowsTheReviewItsGraphAndOnlyMistakes) {
  const std::string dir = temp_dir("browser-review");
  const std::string log = dir + "/reviewed.jsonl";
  ASSERT_EQ(run({kReferee, "match", "--seed", "21", "--log", log, "--no-sandbox",
                 "greedy=" + kGreedy, "random=" + kRandom})
                .exit_code,
            0);
  const RunResult rv = run({kReferee, "review", log, "--worlds", "200"});
  ASSERT_EQ(rv.exit_code, 0) << rv.output;
  referee::ReviewFile review;
  std::string why;
  ASSERT_TRUE(referee::read_review_file(referee::review_path_for(log), review, &why)) << why;
  const std::map<int, int> steps = steps_by_line(read_log(log));
  std::vector<const v1::ReviewDecision*> candidates;
  for (const v1::ReviewDecision& d : review.decisions)
    if (d.mark() != v1::REVIEW_MARK_NONE) candidates.push_back(&d);
  const int marks = static_cast<int>(candidates.size());
  ASSERT_GT(marks, 0) << "random's plays in a whole match include a mistake";
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto* a, const auto* b) {
    return a->options_size() > b->options_size();
  });

  ServeProcess s = serve(dir);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->set_viewport(1280, 800, false));
  ASSERT_TRUE(b->navigate(s.base + "/m/0/reviewed.jsonl"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b->eval("document.querySelectorAll('#graph circle').length"),
            std::to_string(review.decisions.size()));
  // The marked decision of most options whose point a click reaches (neighbouring decisions'
  // points may overlap it).
  const v1::ReviewDecision* marked = nullptr;
  for (const v1::ReviewDecision* d : candidates) {
    const std::string circle = "document.querySelector(\"#graph circle[data-step='" +
                               std::to_string(steps.at(static_cast<int>(d->log_line()))) + "']\")";
    if (b->eval("(() => { const c = " + circle +
                "; c.scrollIntoView({block: 'center'}); const r = c.getBoundingClientRect(); "
                "return document.elementFromPoint(Math.round(r.x + r.width / 2), "
                "Math.round(r.y + r.height / 2)) === c; })()") == "true") {
      marked = d;
      break;
    }
  }
  ASSERT_TRUE(marked) << "no marked decision's point can be clicked";
  const int step = steps.at(static_cast<int>(marked->log_line()));
  EXPECT_EQ(b->eval("document.querySelectorAll('#reviewStart').length"), "0");
  // A real click on the marked decision's point opens its step.
  ASSERT_TRUE(b->click("#graph circle[data-step='" + std::to_string(step) + "']"));
  ASSERT_TRUE(
      b->wait_for("+document.getElementById('state').dataset.step === " + std::to_string(step), 5s))
      << b->eval("document.getElementById('state').dataset.step");
  EXPECT_EQ(state(*b, "mark"), "\"" + std::string(referee::mark_word(marked->mark())) + "\"");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt').length"),
            std::to_string(marked->options_size()));
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt .best').length"), "1");
  EXPECT_EQ(b->eval("document.querySelector('#decision .opt .best').closest('.opt') === "
                    "document.querySelector('#decision .opt')"),
            "true")
      << "the best play is ranked first";
  EXPECT_EQ(b->eval("document.querySelector('#decision .opt.chosen').textContent.includes('±') "
                    "|| " +
                    std::string(marked->exact() ? "true" : "false")),
            "true");
  const std::string words = b->eval("document.querySelector('#decision .review').textContent");
  EXPECT_NE(words.find(std::string(referee::mark_word(marked->mark()))), std::string::npos)
      << words;
  b->screenshot(kOut + "/replay-review.png");
  // Only mistakes: the list holds the marked decisions, and the arrows go from one to the next.
  ASSERT_TRUE(b->click("#onlyMistakes"));
  ASSERT_TRUE(b->wait_for("document.getElementById('onlyMistakes').checked", 5s));
  EXPECT_EQ(b->eval("document.querySelectorAll('#decisionList [data-step]').length"),
            std::to_string(marks));
  EXPECT_EQ(b->eval("[...document.querySelectorAll('#decisionList [data-step]')].every(d => "
                    "window.replay.data.steps[+d.dataset.step].y.r.m > 0)"),
            "true");
}

// "Review this match" on a served replay: the button posts, the page follows the review's
// progress and then shows the review, written beside the log.
TEST(BrowserTest, AServedMatchIsReviewedFromItsPage) {
  const std::string dir = temp_dir("browser-review-action");
  const std::string log = dir + "/asked.jsonl";
  ASSERT_EQ(run({kReferee, "match", "--seed", "22", "--log", log, "--no-sandbox",
                 "greedy=" + kGreedy, "random=" + kRandom})
                .exit_code,
            0);
  ServeProcess s = serve(dir);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/m/0/asked.jsonl"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  ASSERT_TRUE(b->wait_for("!!document.getElementById('reviewStart')", 10s));
  EXPECT_EQ(b->eval("document.querySelectorAll('#graph circle').length"), "0");
  ASSERT_TRUE(b->click("#reviewStart"));
  // The page reloads once the review is written, with its graph.
  ASSERT_TRUE(b->wait_for("document.querySelectorAll('#graph circle').length > 0", 60s));
  EXPECT_TRUE(std::filesystem::exists(referee::review_path_for(log)));
  EXPECT_EQ(b->eval("window.replay.data.match.reviewed"), "true");
  EXPECT_EQ(b->eval("document.querySelectorAll('#reviewStart').length"), "0");
  int plays = 0;
  for (const v1::LogRecord& r : read_log(log)) plays += r.has_play();
  EXPECT_EQ(b->eval("document.querySelectorAll('#graph circle').length"), std::to_string(plays));
  // The progress the page polled ended at every decision of the match.
  const std::string status = b->eval(
      "(() => { const x = new XMLHttpRequest(); x.open('GET', '/review/0/asked.jsonl', false); "
      "x.send(); return x.responseText; })()");
  EXPECT_NE(status.find("\\\"total\\\":" + std::to_string(plays)), std::string::npos) << status;
}

// "Review my decisions" at a human seat's match end: the page lists the person's own
// decisions only, each with its mark, the better play and the plays' values.
TEST(BrowserTest, APersonReviewsTheirOwnDecisions) {
  HumanTable h = open_seat("browser-human-review",
                           {"--seed", "8", "--move-time-ms", "30000", "human",
                            "crashy=" + kBadBot + " --mode crash --at 3"},
                           1280);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  while (!over(b)) {
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    if (over(b)) break;
    if (continue_hand(b)) continue;
    click_a_play(b, false);
  }
  settle(b);
  ASSERT_TRUE(b.click("#reviewMine"));
  ASSERT_TRUE(b.wait_for("document.getElementById('state').dataset.review === 'done'", 60s))
      << state(b, "review");
  referee::ReviewFile review;
  std::string why;
  ASSERT_TRUE(referee::read_review_file(referee::review_path_for(h.log), review, &why)) << why;
  int mine = 0;
  for (const v1::LogRecord& r : read_log(h.log)) mine += r.has_play() && r.play().seat() == 0;
  ASSERT_GT(mine, 0);
  for (const v1::ReviewDecision& d : review.decisions) EXPECT_EQ(d.seat(), 0u);
  EXPECT_EQ(static_cast<int>(review.decisions.size()), mine);
  EXPECT_EQ(state(b, "reviewed"), "\"" + std::to_string(mine) + "\"");
  EXPECT_EQ(b.eval("document.querySelectorAll('#myReview .rv').length"), std::to_string(mine));
  const std::string first = b.eval("document.querySelector('#myReview .rv').textContent");
  EXPECT_NE(first.find("Hand 1, play"), std::string::npos) << first;
  EXPECT_NE(first.find("best"), std::string::npos) << first;
  b.screenshot(kOut + "/serve-human-review.png");
  ASSERT_TRUE(b.click("#done"));
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

}  // namespace
}  // namespace allfives::e2e
