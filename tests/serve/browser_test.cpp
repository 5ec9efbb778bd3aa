// Browser tests of `referee serve`: Debian's headless Chromium, driven over the DevTools protocol
// (cdp_client.h), opens the pages the way a person does. The tournament page against `referee
// standings` and sprt.txt, its filters, its refresh while a tournament runs; a live match
// watched until it ends; the replay's decisions, filters and bots' output. The human seat in
// the browser: human_seat_browser_test.cpp; reviews: review_browser_test.cpp. Screenshots at
// 1280 and 390 px are left in the build folder (ALLFIVES_SERVE_OUT); the pictures in docs/
// (docs/SERVE.md) come from them.
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

std::vector<std::vector<std::string>> rows_of(const google::protobuf::Value& v) {
  std::vector<std::vector<std::string>> out;
  for (const auto& row : v.list_value().values()) {
    out.emplace_back();
    for (const auto& cell : row.list_value().values()) out.back().push_back(cell.string_value());
  }
  return out;
}

// The rows of a section of `referee standings`' text: from the line starting with `title`
// (itself included if `with_title`) to a blank line, split into columns.
std::vector<std::vector<std::string>> text_section(const std::string& text,
                                                   const std::string& title,
                                                   bool with_title = false) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  bool in = false;
  while (std::getline(lines, line)) {
    if (line.empty()) in = false;
    if (line.rfind(title, 0) == 0) {
      in = true;
      if (!with_title) continue;
    }
    if (in) rows.push_back(split_columns(line));
  }
  return rows;
}

std::vector<std::vector<std::string>> page_rows(CdpBrowser& b, const std::string& table) {
  return rows_of(parse_json_value(b.eval("[...document.querySelectorAll('#" + table +
                                         " tr')].map(r => [...r.cells].map(c => c.textContent))")));
}

// Chooses `value` in the filter form's select `name`, as a person does (the page reloads).
bool choose_filter(CdpBrowser& b, const std::string& name, const std::string& value) {
  const std::string before = b.eval("location.href");
  b.eval("(() => { const s = document.querySelector('#filters select[name=" + name +
         "]'); s.value = " + json_quote(value) +
         "; s.dispatchEvent(new Event('change', {bubbles: true})); })()");
  return b.wait_for("location.href !== " + before + " && document.readyState === 'complete'", 10s);
}

// A gauntlet with an SPRT and a forfeiting bot: the page's standings, pairings, decision
// times and SPRT agree with `referee standings` and sprt.txt to the digit; the matches are
// filtered by bot and by fault; a replay opens as a seat saw it; both widths.
TEST(BrowserTest, TheTournamentPageAnswersItsQuestionsAtBothWidths) {
  const std::string dir = temp_dir("browser-tournament");
  std::ofstream(dir + "/t.txtpb") << "name: \"browser\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << "bots { name: \"greedy\" candidate: true command: \""
                                  << kGreedy << "\" }\n"
                                  << "bots { name: \"random\" command: \"" << kRandom << "\" }\n"
                                  << "bots { name: \"cheat\" command: \"" << kBadBot
                                  << "\" args: \"--mode\" args: \"illegal\" args: \"--at\" args: "
                                     "\"30\" }\n"
                                  << "matches_per_pairing: 12\nseed: 5\n"
                                  << "sprt { elo0: 0 elo1: 300 max_pairs: 100 against: "
                                     "\"random\" }\n";
  const std::string out = dir + "/out";
  const RunResult played =
      run({kReferee, "tournament", dir + "/t.txtpb", "--out", out, "-j", "2"}, 180s);
  ASSERT_EQ(played.exit_code, 0) << played.output;
  const RunResult text = run({kReferee, "standings", out});
  const auto expected = text_section(text.output, "Rank", true);
  ASSERT_EQ(expected.size(), 4u) << text.output;  // the header and three bots

  ServeProcess s = serve(out);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/"));
  ASSERT_TRUE(b->click("#folders a"));
  ASSERT_TRUE(b->wait_for("document.querySelector('#standings')", 10s));
  EXPECT_EQ(page_rows(*b, "standings"), expected);
  // Pairings and decision times, as the text has them (the text pads its pairing columns with
  // single spaces, so rows are compared with their spaces collapsed; "Elo ", "nElo " and "LOS "
  // are the page's column headings, and a pairing without an interval has no LOS).
  const auto collapse = [](const std::vector<std::string>& cells) {
    std::string out;
    for (const std::string& c : cells) {
      if (c.empty()) continue;
      for (const char ch : c) {
        if (ch == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += ch;
      }
      if (!out.empty() && out.back() != ' ') out += ' ';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  auto pairings = page_rows(*b, "pairings");
  ASSERT_GT(pairings.size(), 1u);
  std::vector<std::string> shown_pairings, text_pairings;
  for (size_t i = 1; i < pairings.size(); ++i) {
    pairings[i][3] = "Elo " + pairings[i][3];
    pairings[i][4] = "nElo " + pairings[i][4];
    if (!pairings[i][5].empty()) pairings[i][5] = "LOS " + pairings[i][5];
    shown_pairings.push_back(collapse(pairings[i]));
  }
  for (const auto& row : text_section(text.output, "Pairings ("))
    text_pairings.push_back(collapse(row));
  EXPECT_EQ(shown_pairings, text_pairings);
  EXPECT_EQ(page_rows(*b, "timing"), text_section(text.output, "Decision times (ms)"));
  EXPECT_EQ(page_rows(*b, "h2h").size(), 4u);
  // The SPRT of greedy against random: its state and verdict, as sprt.txt gives them.
  const std::string sprt = read_file(out + "/sprt.txt");
  ASSERT_FALSE(sprt.empty());
  const std::string llr = between(sprt, "\n  LLR ", " ");
  char rounded[32];
  std::snprintf(rounded, sizeof rounded, "%+.2f", std::stod(llr));
  const std::string card =
      parse_json_value(b->eval("document.getElementById('sprt').textContent")).string_value();
  EXPECT_NE(card.find(std::string("LLR ") + rounded), std::string::npos) << card << "\n" << sprt;
  for (const char* verdict : {"H1 accepted", "H0 accepted"}) {
    EXPECT_EQ(sprt.find(verdict) != std::string::npos,
              card.find(std::string(verdict) + " after") != std::string::npos)
        << card << "\n"
        << sprt;
  }
  EXPECT_NE(card.find("Is greedy stronger than random?"), std::string::npos) << card;
  // The verdict in sprt.txt's words ("verdict: greedy is stronger than random (the pairs ...").
  const std::string verdict = between(sprt, "verdict: ", "\n");
  EXPECT_NE(card.find(verdict.rfind("none yet", 0) == 0 ? "Running: no verdict yet"
                                                        : verdict.substr(0, verdict.find(" ("))),
            std::string::npos)
      << card << "\n"
      << sprt;
  // Every match with the winner's name.
  const auto matches = page_rows(*b, "matches");
  ASSERT_GT(matches.size(), 4u);
  for (size_t i = 1; i < matches.size(); ++i) {
    const std::string& result = matches[i][2];
    EXPECT_TRUE(result.find("greedy won ") == 0 || result.find("random won ") == 0 ||
                result.find("cheat won ") == 0 || result.find("a draw ") == 0)
        << result;
  }
  b->screenshot(kOut + "/serve-tournament.png");
  // Filters: one bot's matches, then only those with a fault.
  ASSERT_TRUE(choose_filter(*b, "bot", "cheat"));
  const auto cheat = page_rows(*b, "matches");
  ASSERT_GT(cheat.size(), 1u);
  EXPECT_LT(cheat.size(), matches.size());
  for (size_t i = 1; i < cheat.size(); ++i)
    EXPECT_NE(cheat[i][1].find("cheat"), std::string::npos) << cheat[i][1];
  EXPECT_NE(b->eval("document.getElementById('shown').textContent").find("Showing"),
            std::string::npos);
  ASSERT_TRUE(choose_filter(*b, "fault", "illegal_play"));
  EXPECT_NE(b->eval("location.search").find("bot=cheat"), std::string::npos);
  const auto faults = page_rows(*b, "matches");
  ASSERT_GT(faults.size(), 1u);
  for (size_t i = 1; i < faults.size(); ++i)
    EXPECT_NE(faults[i][4].find("cheat (seat "), std::string::npos) << faults[i][4];
  // At phone width: nothing scrolls sideways but the tables, inside their own boxes.
  ASSERT_TRUE(b->navigate(s.base + "/t/0/"));
  ASSERT_TRUE(b->set_viewport(390, 844, true));
  ASSERT_TRUE(b->wait_for("window.innerWidth === 390", 10s));
  EXPECT_FALSE(b->scrolls_sideways());
  b->screenshot(kOut + "/serve-tournament-390.png");
  // The first match's replay, as seat 1 saw it, opened by clicking its link; at 390 px.
  ASSERT_TRUE(b->click("#matches tr:nth-child(2) .seats a:nth-child(2)"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b->eval("window.replay.data.match.viewer"), "1");
  EXPECT_EQ(b->eval("location.search"), "\"?seat=1\"");
  EXPECT_GT(std::stoi(b->eval("window.replay.count()")), 20);
  b->eval("window.replay.step(12)");
  EXPECT_FALSE(b->scrolls_sideways());
  // The event text keeps its width (it read one word a line in a squeezed column).
  EXPECT_GT(std::stoi(b->eval("document.getElementById('event').getBoundingClientRect().width")),
            200);
  b->screenshot(kOut + "/serve-replay-390.png");
  ASSERT_TRUE(b->set_viewport(1280, 800, false));
  b->eval("window.replay.step(12)");
  b->screenshot(kOut + "/serve-replay-1280.png");
}

// A served replay shows, beside the table, the decision of the play selected: the plays the
// seat had ranked by points with the one made marked, its time, its bank and the bot's
// comment; the filters keep one bot's decisions, or those where a play scored more, and the
// arrows then step through those only. Checked against the log itself.
TEST(BrowserTest, TheReplayShowsEachDecisionAndFiltersThem) {
  const std::string dir = temp_dir("browser-decisions");
  const std::string log = dir + "/decisions.jsonl";
  const RunResult m = run({kReferee, "match", "--seed", "21", "--log", log, "--no-sandbox",
                           "greedy=" + kGreedy, "random=" + kRandom});
  ASSERT_EQ(m.exit_code, 0) << m.output;
  // From the log: each play's step (the page numbers records after the header from 0), and
  // the random seat's plays where a play that scored more was there.
  std::vector<v1::LogRecord> records = read_log(log);
  int step = -1, first_greedy = -1, missed = 0;
  std::vector<int> random_missed;
  for (const v1::LogRecord& r : records) {
    if (r.has_header() || r.has_bot_output()) continue;
    ++step;
    if (!r.has_play()) continue;
    uint32_t best = 0;
    for (const auto& o : r.play().options()) best = std::max(best, o.points());
    if (r.play().seat() == 0 && first_greedy < 0 && r.play().options_size() > 1)
      first_greedy = step;
    if (r.play().seat() == 1 && best > r.play().points()) random_missed.push_back(step);
    missed += best > r.play().points();
  }
  ASSERT_GE(first_greedy, 0);
  ASSERT_FALSE(random_missed.empty());

  ServeProcess s = serve(dir);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->set_viewport(1280, 800, false));
  ASSERT_TRUE(b->navigate(s.base + "/m/0/decisions.jsonl"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  b->eval("window.replay.step(" + std::to_string(first_greedy) + ")");
  const v1::LogPlay* p = nullptr;
  step = -1;
  for (const v1::LogRecord& r : records) {
    if (r.has_header() || r.has_bot_output()) continue;
    if (++step == first_greedy) p = &r.play();
  }
  ASSERT_TRUE(p);
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt').length"),
            std::to_string(p->options_size()));
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt.chosen').length"), "1");
  // Ranked by points: the first row has the most, and greedy's play scored that too.
  uint32_t best = 0;
  for (const auto& o : p->options()) best = std::max(best, o.points());
  EXPECT_EQ(b->eval("document.querySelector('#decision .opt').textContent.includes('" +
                    std::to_string(best) + " pts')"),
            "true");
  EXPECT_EQ(b->eval("document.querySelector('#decision .opt.chosen').textContent.includes(' " +
                    std::to_string(best) + " pts')"),
            "true");
  EXPECT_EQ(b->eval("document.querySelector('#decision .comment').textContent"),
            "\"" + p->comment() + "\"");
  EXPECT_EQ(b->eval("document.querySelector('#decision .meta').textContent.includes('bank left " +
                    std::to_string(p->time_bank_left_ms()) + " ms')"),
            "true");
  b->screenshot(kOut + "/replay-decision.png");

  // Only the random bot's decisions where a play scored more: the list holds exactly those,
  // and the arrows go from one to the next.
  b->eval(
      "document.getElementById('onlySeat').value = '1';"
      "document.getElementById('onlyMissed').checked = true;"
      "document.getElementById('onlyMissed').onchange()");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decisionList [data-step]').length"),
            std::to_string(random_missed.size()));
  EXPECT_EQ(b->eval("+document.getElementById('state').dataset.step"),
            std::to_string(random_missed[0]));
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt.better').length > 0"), "true");
  if (random_missed.size() > 1) {
    b->eval("document.getElementById('next').click()");
    EXPECT_EQ(b->eval("+document.getElementById('state').dataset.step"),
              std::to_string(random_missed[1]));
  }
  b->screenshot(kOut + "/replay-decision-filtered.png");
  // Every seat's: the list counts every decision where a play scored more.
  b->eval(
      "document.getElementById('onlySeat').value = '-1';"
      "document.getElementById('onlySeat').onchange()");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decisionList [data-step]').length"),
            std::to_string(missed));
  // As seat 1 saw it, seat 0's decisions show no options nor comment (they show its tiles).
  ASSERT_TRUE(b->navigate(s.base + "/m/0/decisions.jsonl?seat=1"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  b->eval("window.replay.step(" + std::to_string(first_greedy) + ")");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt').length"), "0");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .comment').length"), "0");
  b->eval("window.replay.step(" + std::to_string(random_missed[0]) + ")");
  EXPECT_EQ(b->eval("document.querySelectorAll('#decision .opt').length > 0"), "true");
}

// A served replay shows, under the decision of the play selected, the lines its bot printed
// while that decision was pending, exactly as the log keeps them; as another seat saw the
// match, they are not there (nor in the page's data), as the bot's own seat they are.
TEST(BrowserTest, TheReplayShowsWhatABotPrintedAtEachDecision) {
  const std::string dir = temp_dir("browser-output");
  const std::string log = dir + "/printed.jsonl";
  const RunResult m =
      run({kReferee, "match", "--seed", "21", "--log", log, "--no-sandbox", "--max-hands", "2",
           "chatty=" + kBadBot + " --mode chatty", "random=" + kRandom});
  ASSERT_EQ(m.exit_code, 0) << m.output;
  std::vector<v1::LogRecord> records = read_log(log);
  int step = -1, chatty = -1;
  std::string printed;
  for (const v1::LogRecord& r : records) {
    if (r.has_header() || r.has_bot_output()) continue;
    ++step;
    // Its second decision: one after the first play of a hand, with several plays to choose.
    if (r.has_play() && r.play().seat() == 0 && chatty < 0 &&
        r.play().output().text().find("decision 2,") != std::string::npos) {
      chatty = step;
      printed = r.play().output().text();
    }
  }
  ASSERT_GE(chatty, 0);
  ASSERT_EQ(printed.back(), '\n');
  printed.pop_back();

  ServeProcess s = serve(dir);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->set_viewport(1280, 800, false));
  for (const std::string seat : {"", "?seat=0", "?seat=1"}) {
    SCOPED_TRACE(seat);
    ASSERT_TRUE(b->navigate(s.base + "/m/0/printed.jsonl" + seat));
    ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
    b->eval("window.replay.step(" + std::to_string(chatty) + ")");
    if (seat == "?seat=1") {
      EXPECT_EQ(b->eval("document.querySelectorAll('#decision .output').length"), "0");
      EXPECT_EQ(b->eval("document.documentElement.outerHTML.includes('thinking about decision')"),
                "false");
      continue;
    }
    EXPECT_EQ(
        parse_json_value(b->eval("document.querySelector('#decision .output pre').textContent"))
            .string_value(),
        printed);
    EXPECT_EQ(
        parse_json_value(b->eval("document.getElementById('state').dataset.output")).string_value(),
        printed + "\n");
    if (seat.empty()) b->screenshot(kOut + "/replay-decision-output.png");
  }
}

// A tournament being played: its page says so and refreshes itself as matches finish, and
// stops refreshing once the tournament is over.
TEST(BrowserTest, TheTournamentPageFollowsATournamentWhileItRuns) {
  const std::string dir = temp_dir("browser-running");
  std::ofstream(dir + "/t.txtpb") << "name: \"running\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << "bots { name: \"slow\" command: \"" << kBadBot
                                  << "\" args: \"--mode\" args: \"slow\" args: \"--ms\" args: "
                                     "\"25\" }\n"
                                  << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                                  << "matches_per_pairing: 6\nseed: 3\n";
  const std::string out = dir + "/out";
  Child tournament({kReferee, "tournament", dir + "/t.txtpb", "--out", out, "-j", "1"});
  for (int i = 0; i < 500 && !std::filesystem::exists(out + "/index.jsonl"); ++i)
    std::this_thread::sleep_for(20ms);
  ServeProcess s = serve(out);
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/t/0/"));
  ASSERT_TRUE(b->wait_for("document.querySelector('#matches')", 10s));
  EXPECT_EQ(b->eval("document.body.dataset.live"), "\"1\"");
  const std::string first = b->eval("document.querySelector('main p').textContent");
  // The page moves on by itself: more matches finished, without a reload.
  EXPECT_TRUE(
      b->wait_for("+document.body.dataset.refreshes > 0 && "
                  "document.querySelector('main p').textContent !== " +
                      first,
                  60s))
      << first;
  b->eval("window.marker = 1");  // gone if the page reloaded instead of refreshing its content
  ASSERT_EQ(tournament.wait_exit(120s), 0) << tournament.output();
  EXPECT_TRUE(b->wait_for("document.body.dataset.live === '0'", 30s));
  EXPECT_EQ(b->eval("window.marker"), "1");
  EXPECT_NE(b->eval("document.querySelector('main p').textContent").find("6 finished matches"),
            std::string::npos);
}

TEST(BrowserTest, ALiveMatchIsWatchedUntilItEnds) {
  const std::string dir = temp_dir("browser-live");
  const std::string log = dir + "/live.jsonl";
  ServeProcess s = serve(dir);
  Child match({kReferee, "match", "--seed", "12", "--log", log,
               "slow=" + kBadBot + " --mode slow --ms 150", "greedy=" + kGreedy});
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("hand_start") != std::string::npos) break;
    std::this_thread::sleep_for(10ms);
  }
  auto b = browser_or_fail();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/m/0/live.jsonl"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b->eval("document.body.dataset.live"), "\"1\"");
  // Watch: the page must move on by itself, step after step, to the end. (The slow bot's
  // 150 ms a move keeps the match long enough to be seen at many steps on a loaded machine,
  // where each look at the page may take a few hundred milliseconds.)
  std::set<int> steps_seen;
  bool shot = false;
  const auto end = std::chrono::steady_clock::now() + 90s;
  while (std::chrono::steady_clock::now() < end) {
    const std::string step = b->eval("+document.getElementById('state').dataset.step");
    if (!step.empty() && step != "null") steps_seen.insert(std::stoi(step));
    if (!shot && steps_seen.size() > 12) shot = b->screenshot(kOut + "/serve-live.png");
    if (b->eval("document.body.dataset.live") == "\"ended\"") break;
    std::this_thread::sleep_for(60ms);
  }
  ASSERT_EQ(match.wait_exit(30s), 0) << match.output();
  EXPECT_EQ(b->eval("document.body.dataset.live"), "\"ended\"");
  EXPECT_GT(steps_seen.size(), 20u) << "the page should have shown the match as it was played";
  // It ends on the match's last step, the same one a fresh page of the finished log has.
  const HttpReply done = http_get(s.port, "/m/0/live.jsonl");
  const auto data = parse_json_object(
      between(done.body, "<script type=\"application/json\" id=\"replay-data\">", "</script>"));
  const int total = data.fields().at("steps").list_value().values_size();
  EXPECT_EQ(b->eval("window.replay.count()"), std::to_string(total));
  EXPECT_EQ(b->eval("+document.getElementById('state').dataset.step"), std::to_string(total - 1));
  EXPECT_EQ(b->eval("document.getElementById('state').dataset.kind"), "\"match_end\"");
}

}  // namespace
}  // namespace allfives::e2e
