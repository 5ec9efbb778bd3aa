// Browser tests of the replay page (referee/replay/replay_template.html) in Debian's headless
// Chromium, opened both as `referee replay --html`'s file and as `referee serve` serves it: a
// fault step lists the plays the faulting bot had, each step of a forfeited match renders
// without a page error, at phone width the page opens at its top with its step controls kept
// on screen and a swipe on the table steps, and the score chart has a point per side at each
// play and hand's end, a click on one opening its step. Screenshots go to ALLFIVES_SERVE_OUT;
// docs/replay-fault-1280.png and docs/replay-390.png come from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "e2e/e2e_util.h"
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

const std::string kOut = ALLFIVES_SERVE_OUT;

// The page's steps are the log's records after the header, bots' output left out.
std::vector<const v1::LogRecord*> steps_of(const std::vector<v1::LogRecord>& records) {
  std::vector<const v1::LogRecord*> out;
  for (const v1::LogRecord& r : records)
    if (!r.has_header() && !r.has_bot_output()) out.push_back(&r);
  return out;
}

std::string tile_words(const v1::Tile& t) {
  return std::to_string(t.high()) + "-" + std::to_string(t.low());
}

std::string play_words(const v1::LogPlay& p) {
  return "seat " + std::to_string(p.seat()) + " " + tile_words(p.play().tile()) +
         (p.play().end() == v1::END_RIGHT ? " right" : " left");
}

// One row of the decision panel: the play's words, then "count C · P pts".
using OptionRow = std::vector<std::string>;

// A match that seat 1 forfeits by crashing at a decision where it had several plays, after a
// hand or more, with the plays it had there as the referee logged them when the same bot
// played that decision instead (the same deals, and both bots play the same until then).
struct ForfeitMatch {
  std::string dir;
  std::string log;
  std::vector<v1::LogRecord> records;
  int fault_step = -1;
  std::vector<OptionRow> options;  // from the most points down, the order offered among equals
};

ForfeitMatch forfeit_match(const std::string& name) {
  ForfeitMatch f;
  f.dir = temp_dir("replay-page-" + name);
  const std::string played = f.dir + "/played.jsonl";
  const RunResult normal = run({kReferee, "match", "--seed", "21", "--log", played, "--no-sandbox",
                                "greedy=" + kGreedy, "crashy=" + kBadBot + " --mode normal"});
  EXPECT_EQ(normal.exit_code, 0) << normal.output;
  // Seat 1's decision to crash at: its first from the 20th on that is no hand's opening play
  // and had two plays or more.
  int decision = 0, at = -1;
  bool opening = false;
  std::optional<v1::LogPlay> had;
  std::vector<std::string> plays_before;
  for (const v1::LogRecord& r : read_log(played)) {
    if (r.has_hand_start()) opening = true;
    if (!r.has_play()) continue;
    const bool first = std::exchange(opening, false);
    if (r.play().seat() == 1 && ++decision >= 20 && !first && r.play().options_size() >= 2) {
      at = decision;
      had = r.play();
      break;
    }
    plays_before.push_back(play_words(r.play()));
  }
  EXPECT_GT(at, 0) << "seat 1 never had a choice from its 20th decision on";
  if (!had) return f;
  f.log = f.dir + "/forfeit.jsonl";
  const RunResult crash =
      run({kReferee, "match", "--seed", "21", "--log", f.log, "--no-sandbox", "greedy=" + kGreedy,
           "crashy=" + kBadBot + " --mode crash --at " + std::to_string(at)});
  EXPECT_EQ(crash.exit_code, 0) << crash.output;
  f.records = read_log(f.log);
  std::vector<std::string> plays;  // until the fault the two matches are one
  for (const v1::LogRecord& r : f.records)
    if (r.has_play()) plays.push_back(play_words(r.play()));
  EXPECT_EQ(plays, plays_before);
  const auto steps = steps_of(f.records);
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i]->has_fault()) f.fault_step = static_cast<int>(i);
  EXPECT_GE(f.fault_step, 0);
  const v1::LogFault& fault = only(f.records, v1::LogRecord::kFault).fault();
  EXPECT_EQ(fault.seat(), 1u);
  EXPECT_EQ(fault.kind(), v1::FAULT_KIND_CRASH);
  EXPECT_FALSE(fault.output().text().empty()) << "the crash prints its last words";
  std::vector<std::pair<int, OptionRow>> ranked;
  for (const v1::LogOption& o : had->options())
    ranked.push_back(
        {static_cast<int>(o.points()),
         {tile_words(o.play().tile()) + (o.play().end() == v1::END_RIGHT ? " right" : " left"),
          "count " + std::to_string(o.count()) + " · " + std::to_string(o.points()) + " pts"}});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [points, row] : ranked) f.options.push_back(row);
  return f;
}

std::string html_of(const std::string& log, const std::string& name) {
  const std::string out = temp_dir("replay-page-html-" + name) + "/replay.html";
  const RunResult r = run({kReferee, "replay", log, "--html", out});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return out;
}

std::string state(CdpBrowser& b, const std::string& key) {
  return b.eval("document.getElementById('state').dataset." + key);
}

std::vector<OptionRow> option_rows(CdpBrowser& b) {
  std::vector<OptionRow> out;
  const auto v = parse_json_value(
      b.eval("[...document.querySelectorAll('#decision .opt')].map(r => [...r.children].map(c => "
             "c.textContent))"));
  for (const auto& row : v.list_value().values()) {
    out.emplace_back();
    for (const auto& cell : row.list_value().values()) out.back().push_back(cell.string_value());
  }
  return out;
}

// The page as `referee replay --html` writes it and as `referee serve` serves it.
struct Opened {
  std::string name;
  std::string url;
};
std::vector<Opened> both_pages(const ForfeitMatch& m, const std::string& name, ServeProcess& s) {
  s = start_serve(kReferee, {m.dir}, 50);
  EXPECT_GT(s.port, 0) << s.child->output();
  return {{"html", "file://" + html_of(m.log, name)}, {"serve", s.base + "/m/0/forfeit.jsonl"}};
}

// Every step of a forfeited match, stepped through with the page's own ▶ button, renders
// without a page error (the browser fails the test on one); the fault step shows the plays the
// bot had at the decision it faulted on, ranked by points as a play's are, and what it printed.
TEST(ReplayPage, AFaultStepListsThePlaysTheBotHad) {
  const ForfeitMatch m = forfeit_match("fault");
  ASSERT_GE(m.fault_step, 0);
  ASSERT_GE(m.options.size(), 2u);
  ServeProcess s;
  for (const Opened& page : both_pages(m, "fault", s)) {
    SCOPED_TRACE(page.name);
    auto b = browser_or_fail();
    ASSERT_TRUE(b);
    ASSERT_TRUE(b->set_viewport(1280, 800, false));
    ASSERT_TRUE(b->navigate(page.url));
    ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
    b->eval("window.replay.step(0)");
    const int count = std::stoi(b->eval("window.replay.count()"));
    ASSERT_EQ(count, static_cast<int>(steps_of(m.records).size()));
    for (int i = 1; i < count; ++i) {
      b->eval("document.getElementById('next').click()");
      ASSERT_EQ(state(*b, "step"), json_quote(std::to_string(i)));
      if (i != m.fault_step) continue;
      EXPECT_EQ(state(*b, "kind"), "\"fault\"");
      EXPECT_EQ(option_rows(*b), m.options);
      EXPECT_EQ(state(*b, "options"), json_quote(std::to_string(m.options.size())));
      EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt.chosen').length"), "0");
      EXPECT_NE(b->eval("document.querySelector('#decision .output pre').textContent")
                    .find("crash: giving up at decision"),
                std::string::npos);
      if (page.name == "serve") b->screenshot(kOut + "/replay-fault-1280.png");
    }
    EXPECT_EQ(b->page_errors(), std::vector<std::string>{});
  }
}

// The point at `fraction` of the table's width, a little below its top edge or the screen's.
std::pair<double, double> table_point(CdpBrowser& b, double fraction) {
  const auto v = parse_json_value(
      b.eval("(() => { const r = document.getElementById('table').getBoundingClientRect(); "
             "return [r.left + r.width * " +
             std::to_string(fraction) + ", Math.max(r.top, 0) + 60]; })()"));
  return {v.list_value().values(0).number_value(), v.list_value().values(1).number_value()};
}

// A finger's drag from (x, y) by dx, dy, as the DevTools protocol's touch events.
void swipe(CdpBrowser& b, double x, double y, double dx, double dy) {
  const auto at = [](double px, double py) {
    return "{\"x\":" + std::to_string(px) + ",\"y\":" + std::to_string(py) + "}";
  };
  b.call("Input.dispatchTouchEvent",
         "{\"type\":\"touchStart\",\"touchPoints\":[" + at(x, y) + "]}");
  for (int k = 1; k <= 4; ++k)
    b.call("Input.dispatchTouchEvent",
           "{\"type\":\"touchMove\",\"touchPoints\":[" + at(x + dx * k / 4, y + dy * k / 4) + "]}");
  b.call("Input.dispatchTouchEvent", "{\"type\":\"touchEnd\",\"touchPoints\":[]}");
}

// At 390 px the page opens at its top (title and scores in view), its ◀ ▶ controls stay on
// screen wherever it is scrolled to, and a sideways swipe on the table steps forward and back
// (an upward one scrolls, never steps).
TEST(ReplayPage, AtPhoneWidthItOpensAtTheTopKeepsItsControlsAndSwipes) {
  const ForfeitMatch m = forfeit_match("phone");
  ASSERT_GE(m.fault_step, 0);
  ServeProcess s;
  for (const Opened& page : both_pages(m, "phone", s)) {
    SCOPED_TRACE(page.name);
    auto b = browser_or_fail();
    ASSERT_TRUE(b);
    ASSERT_TRUE(b->set_viewport(390, 844, true));
    const std::string at = std::to_string(m.fault_step / 2);
    ASSERT_TRUE(b->navigate(page.url + "?step=" + at));
    ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
    EXPECT_EQ(b->eval("window.innerWidth"), "390");
    EXPECT_EQ(b->eval("window.scrollY"), "0");
    EXPECT_EQ(b->eval("document.getElementById('title').getBoundingClientRect().top >= 0"), "true");
    EXPECT_FALSE(b->scrolls_sideways());
    // Stepping keeps it where it is too.
    b->eval("document.getElementById('next').click(); document.getElementById('prev').click()");
    EXPECT_EQ(b->eval("window.scrollY"), "0");
    EXPECT_EQ(state(*b, "step"), json_quote(at));
    if (page.name == "serve") b->screenshot(kOut + "/replay-390.png");
    const int room =
        std::stoi(b->eval("document.documentElement.scrollHeight - window.innerHeight"));
    ASSERT_GT(room, 300) << "the page is long enough to scroll at phone width";
    for (const int y : {0, room / 3, 2 * room / 3, room}) {
      SCOPED_TRACE("scrolled to " + std::to_string(y));
      b->eval("window.scrollTo(0, " + std::to_string(y) + ")");
      for (const char* id : {"prev", "next"})
        EXPECT_EQ(b->eval("(() => { const r = document.getElementById('" + std::string(id) +
                          "').getBoundingClientRect(); return r.height > 0 && r.top >= 0 && "
                          "r.bottom <= window.innerHeight && document.elementFromPoint(r.x + "
                          "r.width / 2, r.y + r.height / 2) === document.getElementById('" +
                          id + "'); })()"),
                  "true")
            << id;
    }
    b->eval("window.scrollTo(0, 0)");
    const auto [x, y] = table_point(*b, 0.8);
    EXPECT_EQ(b->eval("!!document.elementFromPoint(" + std::to_string(x) + ", " +
                      std::to_string(y) + ").closest('#table')"),
              "true");
    swipe(*b, x, y, -160, 6);  // leftwards: the next step
    EXPECT_TRUE(b->wait_for("document.getElementById('state').dataset.step === '" +
                                std::to_string(std::stoi(at) + 1) + "'",
                            5s))
        << state(*b, "step");
    const auto [x2, y2] = table_point(*b, 0.2);
    swipe(*b, x2, y2, 160, -6);  // rightwards: back
    EXPECT_TRUE(b->wait_for("document.getElementById('state').dataset.step === '" + at + "'", 5s))
        << state(*b, "step");
    const auto [x3, y3] = table_point(*b, 0.5);
    swipe(*b, x3, y3 + 150, 10, -140);  // upwards
    EXPECT_EQ(state(*b, "step"), json_quote(at));
    EXPECT_EQ(b->page_errors(), std::vector<std::string>{});
  }
}

// The score chart has, for each side, one point at each play and each hand's end, the last at
// the side's final score, in every format; a click on a point opens that step.
TEST(ReplayPage, TheScoreChartHasAPointPerPlayPerSideAndOpensIt) {
  struct Case {
    std::string name;
    std::string log;
    int sides;
  };
  std::vector<Case> cases;
  cases.push_back({"2p-forfeit", forfeit_match("chart").log, 2});
  const std::string dir = temp_dir("replay-page-formats");
  for (const auto& [format, bots, sides] :
       std::vector<std::tuple<std::string, std::vector<std::string>, int>>{
           {"3p", {"a=" + kGreedy, "b=" + kRandom, "c=" + kGreedy}, 3},
           {"4p", {"a=" + kGreedy, "b=" + kRandom, "c=" + kGreedy, "d=" + kRandom}, 4},
           {"partners", {"a=" + kGreedy, "b=" + kRandom}, 2}}) {
    const std::string log = dir + "/" + format + ".jsonl";
    std::vector<std::string> argv = {kReferee,       "match",       "--format", format,
                                     "--seed",       "4",           "--log",    log,
                                     "--no-sandbox", "--max-hands", "2"};
    argv.insert(argv.end(), bots.begin(), bots.end());
    const RunResult r = run(argv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    cases.push_back({format, log, sides});
  }
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->set_viewport(1280, 800, false));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.log.empty());
    const std::vector<v1::LogRecord> records = read_log(c.log);
    const auto steps = steps_of(records);
    std::vector<int> scoring;  // the steps of plays and hands' ends
    for (size_t i = 0; i < steps.size(); ++i)
      if (steps[i]->has_play() || steps[i]->has_hand_end()) scoring.push_back(static_cast<int>(i));
    ASSERT_GT(scoring.size(), 4u);
    const v1::LogMatchEnd& end = only(records, v1::LogRecord::kMatchEnd).match_end();
    ASSERT_EQ(end.scores_size(), c.sides);
    ASSERT_TRUE(b->navigate("file://" + html_of(c.log, "chart-" + c.name)));
    ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
    for (int side = 0; side < c.sides; ++side) {
      const std::string points = "[...document.querySelectorAll(\"#chart circle[data-side='" +
                                 std::to_string(side) + "']\")]";
      std::string want;
      for (const int step : scoring) {
        want += want.empty() ? "[" : ",";
        want += std::to_string(step);
      }
      want += ']';
      EXPECT_EQ(b->eval(points + ".map(c => +c.dataset.step)"), want) << "side " << side;
      EXPECT_EQ(b->eval(points + ".pop().textContent.split(' ').pop()"),
                json_quote(std::to_string(end.scores(side))))
          << "side " << side;
    }
    // A real click on a point from halfway through, the first one on top at its centre (later
    // points may cover it), opens its step.
    int target = -1;
    for (size_t i = scoring.size() / 2; i < scoring.size() && target < 0; ++i) {
      const std::string circle = "document.querySelector(\"#chart circle[data-step='" +
                                 std::to_string(scoring[i]) + "']\")";
      if (b->eval("(() => { const c = " + circle +
                  "; c.scrollIntoView({block: 'center'}); const r = c.getBoundingClientRect(); "
                  "return document.elementFromPoint(Math.round(r.x + r.width / 2), "
                  "Math.round(r.y + r.height / 2)) === c; })()") == "true")
        target = scoring[i];
    }
    ASSERT_GE(target, 0) << "no point from halfway on can be clicked";
    ASSERT_TRUE(b->click("#chart circle[data-step='" + std::to_string(target) + "']"));
    EXPECT_TRUE(b->wait_for(
        "document.getElementById('state').dataset.step === '" + std::to_string(target) + "'", 5s))
        << state(*b, "step");
    EXPECT_EQ(b->eval("document.getElementById('chartNow').getAttribute('visibility')"),
              "\"visible\"");
  }
  EXPECT_EQ(b->page_errors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace allfives::e2e
