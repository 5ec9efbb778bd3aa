// Browser tests of `referee serve` and the human seat: Debian's headless Chromium, driven over
// the DevTools protocol (cdp_client.h), opens the pages the way a person does. The tournament
// page against `referee standings` and sprt.txt, its filters, its refresh while a tournament
// runs; a live match watched until it ends; the replay at phone width; a whole match played by
// clicking legal tiles, with every message the page received recorded by the browser and
// checked against the log; the person's play shown before the bot's paced reply; a hand's end
// held on its card until Continue, with the score chart; at phone width, an opponent's
// forfeit, "play again" and a time-out, each explained on the page, and the session's tally; a
// reviewed replay, its graph and "only mistakes", a match
// reviewed from its page, and a person's own decisions reviewed. Screenshots at 1280 and 390 px are
// left in the build folder (ALLFIVES_SERVE_OUT); the pictures in docs/ (docs/SERVE.md) come from
// them.
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
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

const std::string kOut = ALLFIVES_SERVE_OUT;

ServeProcess serve(const std::string& dir) {
  ServeProcess s = start_serve(kReferee, {dir}, 50);
  EXPECT_GT(s.port, 0) << s.child->output();
  return s;
}

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

std::string pair_of(const v1::Tile& t) {
  return std::to_string(t.high()) + std::to_string(t.low());
}

// The page's state attribute `name` (#state data-NAME) as JSON text.
std::string state(CdpBrowser& b, const std::string& name) {
  return b.eval("document.getElementById('state').dataset." + name);
}

// A person's seat in the browser: the referee started with `human` and `bots`, the page open.
struct HumanTable {
  std::unique_ptr<Child> referee;
  std::unique_ptr<CdpBrowser> b;
  std::string url;
  std::string log;
};
HumanTable open_seat(const std::string& name, const std::vector<std::string>& args, int width) {
  HumanTable h;
  h.log = temp_dir(name) + "/human.jsonl";
  std::vector<std::string> argv = {kReferee, "match", "--log", h.log, "--serve", "127.0.0.1:0"};
  argv.insert(argv.end(), args.begin(), args.end());
  h.referee = std::make_unique<Child>(argv);
  const std::string line = h.referee->wait_for_line("http://", 10s);
  EXPECT_FALSE(line.empty()) << h.referee->output();
  if (line.empty()) return h;
  h.url = line.substr(line.find("http://"));
  h.b = browser_or_fail();
  if (!h.b) return h;
  if (width < 1000) {
    EXPECT_TRUE(h.b->set_viewport(width, 844, true));
  }
  EXPECT_TRUE(h.b->navigate(h.url));
  EXPECT_TRUE(h.b->wait_for("document.body.dataset.ready === '1'", 20s));
  return h;
}

// Clicks one legal play (the last highlighted tile; where it fits both ends, the end given by
// `left`) and waits for the page's next table. Returns the tile and the end chosen ("").
std::pair<std::string, std::string> click_a_play(CdpBrowser& b, bool left) {
  const std::string seq = state(b, "seq");
  const std::string pick =
      b.eval("[...document.querySelectorAll('button.tile.legal')].pop().dataset.tile");
  EXPECT_TRUE(b.click("button.tile.legal[data-tile=" + pick + "]")) << pick;
  std::string end;
  if (state(b, "choosing") == "\"1\"") {
    end = left ? "left" : "right";
    EXPECT_TRUE(b.click(left ? "#endLeft" : "#endRight"));
  }
  EXPECT_TRUE(b.wait_for("document.getElementById('state').dataset.seq !== " + seq, 20s));
  return {parse_json_value(pick).string_value(), end};
}

bool my_turn(CdpBrowser& b) {
  return b.eval("+document.getElementById('state').dataset.legal > 0") == "true";
}
bool over(CdpBrowser& b) {
  return state(b, "over") == "\"1\"";
}

// The page's next moment for the person: their turn, a hand's end on its card, or the end.
const char* const kPersonsMoment =
    "+document.getElementById('state').dataset.legal > 0 || "
    "document.getElementById('state').dataset.handOver === '1' || "
    "document.getElementById('state').dataset.over === '1'";

// Closes the hand-over card if it is up: the next hand waits on the page for it.
bool continue_hand(CdpBrowser& b) {
  if (state(b, "handOver") != "\"1\"" || over(b)) return false;
  EXPECT_TRUE(b.click("#handContinue"));
  EXPECT_TRUE(b.wait_for("document.getElementById('state').dataset.handOver === '0'", 5s));
  return true;
}

// Waits until the page's animations (the result card rising) have played.
void settle(CdpBrowser& b) {
  b.wait_for(
      "document.getAnimations().every(a => a.playState !== 'running' || "
      "a.effect.getComputedTiming().iterations === Infinity)",
      5s);
}

// A whole match played by clicking, at desktop width: every click made the play it showed,
// the page was told nothing it may not know, the latest play is highlighted, a tile's end is
// shown before it is placed, and the end of the match is said in words with a replay.
TEST(BrowserTest, APersonPlaysAWholeMatchByClickingAndNeverReceivesOtherTiles) {
  HumanTable h =
      open_seat("browser-human",
                // Unpaced: the pace has its own test, and a whole match of
                // 600 ms pauses takes minutes.
                {"--seed", "9876543210123", "--match-id", "browser-human", "--move-time-ms",
                 "30000", "--human-pace-ms", "0", "human", "greedy=" + kGreedy},
                1280);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  int clicks = 0, end_choices = 0, previews = 0, highlights = 0;
  std::vector<std::pair<std::string, std::string>> clicked;
  bool shot = false;
  const auto end = std::chrono::steady_clock::now() + 240s;
  while (std::chrono::steady_clock::now() < end && !over(b)) {
    if (continue_hand(b)) continue;
    if (!my_turn(b)) {
      b.wait_for(kPersonsMoment, 30s);
      continue;
    }
    // The latest play on the line is marked, and said in words.
    if (!state(b, "last").empty() && state(b, "last") != "\"\"") {
      EXPECT_EQ(b.eval("document.querySelectorAll('#line svg.t.last').length"), "1");
      EXPECT_NE(b.eval("document.getElementById('lastPlay').textContent"), "\"\"");
      ++highlights;
    }
    // Hovering a tile shows where it goes (and what it scores) before it is placed.
    const std::string tile =
        b.eval("[...document.querySelectorAll('button.tile.legal')].pop().dataset.tile");
    ASSERT_TRUE(b.hover("button.tile.legal[data-tile=" + tile + "]"));
    if (b.wait_for("document.getElementById('state').dataset.preview !== ''", 5s)) {
      const std::string preview = parse_json_value(state(b, "preview")).string_value();
      EXPECT_EQ(preview.substr(0, 2), parse_json_value(tile).string_value()) << preview;
      EXPECT_GE(std::stoi(b.eval("document.querySelectorAll('#line .ghost').length")), 1);
      // The points shown are those the play scores: the table says so for each legal play.
      const std::string legal_points =
          b.eval("humanTable().legal.filter(p => p.tile === " + tile +
                 ").map(p => p.tile + ':' + p.end + ':' + p.points).join(',')");
      EXPECT_EQ(parse_json_value(legal_points).string_value(), preview);
      ++previews;
      // The picture in docs/: a preview that scores, a few plays in.
      if (!shot && clicks >= 4 && preview.find(":0") == std::string::npos)
        shot = b.screenshot(kOut + "/serve-human.png");
    }
    const auto play = click_a_play(b, end_choices % 2 == 1);
    if (!play.second.empty()) ++end_choices;
    clicked.push_back(play);
    ++clicks;
  }
  ASSERT_TRUE(b.wait_for("document.getElementById('state').dataset.over === '1'", 30s));
  EXPECT_GT(clicks, 10);
  EXPECT_EQ(previews, clicks) << "every tile was previewed before it was placed";
  EXPECT_GT(highlights, clicks / 2);
  EXPECT_TRUE(shot) << "no preview scored points in the whole match";
  std::cout << clicks << " plays clicked, " << end_choices << " of them with an end chosen\n";
  // The end, in words: who won and how, on the page.
  const std::string outcome = parse_json_value(state(b, "outcome")).string_value();
  EXPECT_TRUE(outcome == "won" || outcome == "lost" || outcome == "draw") << outcome;
  const std::string headline = b.eval("document.getElementById('result').textContent");
  const std::string detail = b.eval("document.getElementById('detail').textContent");
  EXPECT_TRUE(headline == "\"You won!\"" || headline == "\"You lost\"" || headline == "\"A draw\"")
      << headline;
  EXPECT_NE(detail.find("250 points"), std::string::npos) << detail;
  EXPECT_NE(detail.find("you "), std::string::npos) << detail;
  EXPECT_NE(detail.find("greedy "), std::string::npos) << detail;
  EXPECT_EQ(b.eval("getComputedStyle(document.getElementById('resultCard')).display"), "\"flex\"");
  settle(b);
  b.screenshot(kOut + "/serve-human-end.png");
  // The hand-by-hand summary has a row per hand played.
  const auto records = read_log(h.log);
  expect_log_follows_rules(records);
  const auto& match_end = only(records, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(b.eval("document.querySelectorAll('#hands tr').length"),
            std::to_string(match_end.hands_played() + 1));
  EXPECT_EQ(match_end.fault_seat(), -1) << "every click must have been a legal play in time";
  EXPECT_EQ(outcome, match_end.winner_side() == 0  ? "won"
                     : match_end.winner_side() < 0 ? "draw"
                                                   : "lost");
  // Each click made the play it showed: the tile clicked, on the end chosen.
  EXPECT_GT(end_choices, 0) << "this match (fixed seed and id) offers tiles that fit both ends";
  size_t k = 0;
  for (const auto& r : records) {
    if (!r.has_play() || r.play().seat() != 0) continue;
    ASSERT_LT(k, clicked.size());
    EXPECT_EQ(pair_of(r.play().play().tile()), clicked[k].first) << "play " << k;
    if (!clicked[k].second.empty()) {
      EXPECT_EQ(r.play().play().end(), clicked[k].second == "left" ? v1::END_LEFT : v1::END_RIGHT)
          << "play " << k;
    }
    ++k;
  }
  EXPECT_EQ(k, clicked.size());
  // The person's tiles in each hand (dealt and drawn) and everyone's, from the log.
  std::map<int, std::set<std::string>> mine, others;
  int hand = -1;
  for (const auto& r : records) {
    if (r.has_hand_start()) {
      hand = static_cast<int>(r.hand_start().hand_index());
      for (const auto& st : r.hand_start().hands())
        for (const auto& t : st.tiles()) (st.seat() == 0 ? mine : others)[hand].insert(pair_of(t));
      for (const auto& t : r.hand_start().boneyard()) others[hand].insert(pair_of(t));
    }
    if (r.has_draw() && r.draw().seat() == 0)
      for (const auto& t : r.draw().tiles()) {
        mine[hand].insert(pair_of(t));
        others[hand].erase(pair_of(t));
      }
  }
  // Every message the page received, as the browser recorded it.
  int messages = 0;
  const std::string seed = std::to_string(records[0].header().seed());
  for (const CdpEvent& e : b.events()) {
    if (e.method != "Network.eventSourceMessageReceived") continue;
    ++messages;
    const std::string& data = e.params.fields().at("data").string_value();
    EXPECT_EQ(data.find(seed), std::string::npos) << "the seed was sent to the page: " << data;
    const auto m = parse_json_object(data);
    const auto& f = m.fields();
    ASSERT_TRUE(f.count("hand")) << e.params.DebugString();
    const int h_index = static_cast<int>(f.at("hand_index").number_value());
    const std::string tiles = f.at("hand").string_value();
    for (size_t i = 0; i + 1 < tiles.size(); i += 2)
      EXPECT_TRUE(mine[h_index].count(tiles.substr(i, 2)))
          << "the page was sent " << tiles.substr(i, 2) << " as its own in hand " << h_index + 1;
    // Hidden tiles appear nowhere in a message sent while the hand is on, except those
    // already laid on the line.
    if (!f.count("revealed")) {
      std::set<std::string> laid;
      const std::string line_text = f.at("line").string_value();
      for (size_t i = 0; i + 1 < line_text.size(); i += 2) {
        std::string t = line_text.substr(i, 2);
        if (t[0] < t[1]) std::swap(t[0], t[1]);
        laid.insert(t);
      }
      std::set<std::string> held;
      for (size_t i = 0; i + 1 < tiles.size(); i += 2) held.insert(tiles.substr(i, 2));
      for (const std::string& t : others[h_index])
        if (!laid.count(t)) {
          EXPECT_EQ(held.count(t), 0u) << "hidden tile " << t << " among the page's own";
          EXPECT_EQ(data.find("\"" + t + "\""), std::string::npos)
              << "hidden tile " << t << " in " << data;
        }
    }
  }
  EXPECT_GT(messages, clicks) << "the browser recorded every message of the stream";
  // The replay of the match, as this seat saw it, from the result's link.
  ASSERT_TRUE(b.navigate(
      parse_json_value(b.eval("document.getElementById('replayLink').href")).string_value()));
  ASSERT_TRUE(b.wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b.eval("window.replay.data.match.viewer"), "0");
  EXPECT_EQ(b.eval("window.replay.count()"),
            std::to_string(static_cast<int>(records.size()) - 1 -
                           std::count_if(records.begin(), records.end(),
                                         [](const auto& r) { return r.has_bot_output(); })));
  // Done: the referee ends.
  ASSERT_TRUE(b.navigate(h.url));
  ASSERT_TRUE(b.wait_for("document.getElementById('state').dataset.over === '1'", 10s));
  ASSERT_TRUE(b.click("#done"));
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

// The plays the page showed, in order: "seat:tile@ms" (the page's own clock) from #state.
struct ShownStep {
  int seat = -1;
  std::string tile;
  double at = 0;
};
std::vector<ShownStep> shown_steps(CdpBrowser& b) {
  std::vector<ShownStep> out;
  std::istringstream in(parse_json_value(state(b, "steps")).string_value());
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t colon = item.find(':'), at = item.find('@');
    if (colon == std::string::npos || at == std::string::npos) continue;
    out.push_back({std::stoi(item.substr(0, colon)), item.substr(colon + 1, at - colon - 1),
                   std::stod(item.substr(at + 1))});
  }
  return out;
}

// The bot answers within milliseconds, yet the page shows the person's own play first and the
// bot's reply at least --human-pace-ms (600 ms by default) later; the pace is checked.
TEST(BrowserTest, APersonSeesTheirOwnPlayLandBeforeTheBotsReply) {
  {
    Child refused({kReferee, "match", "--human-pace-ms", "-5", "human", "greedy=" + kGreedy});
    EXPECT_EQ(refused.wait_exit(20s), 2) << refused.output();
    EXPECT_NE(refused.output().find("--human-pace-ms must be 0..10000"), std::string::npos)
        << refused.output();
  }
  HumanTable h = open_seat(
      "browser-human-pace",
      {"--seed", "9876543210123", "--move-time-ms", "30000", "human", "greedy=" + kGreedy}, 1280);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  EXPECT_EQ(b.eval("humanTable().pace_ms"), "600");
  int checked = 0;
  for (int clicks = 0; clicks < 5 && !over(b);) {
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    if (over(b)) break;
    if (continue_hand(b)) continue;
    const auto play = click_a_play(b, false);
    ++clicks;
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    // The person's play, then whatever the bot played after it, each shown in turn.
    const std::vector<ShownStep> steps = shown_steps(b);
    auto mine = std::find_if(steps.rbegin(), steps.rend(), [&](const ShownStep& s) {
      return s.seat == 0 && s.tile == play.first;
    });
    ASSERT_NE(mine, steps.rend()) << "the page never showed the person's " << play.first << ": "
                                  << state(b, "steps");
    if (mine == steps.rbegin()) continue;  // the bot passed, or the hand ended with this play
    const ShownStep& reply = *std::prev(mine);
    EXPECT_EQ(reply.seat, 1) << state(b, "steps");
    EXPECT_GE(reply.at - mine->at, 550) << "the bot's reply was shown too soon after the "
                                        << "person's play: " << state(b, "steps");
    ++checked;
  }
  EXPECT_GE(checked, 2) << state(b, "steps");
}

// How many hands the log has dealt so far.
int hands_dealt(const std::string& log) {
  std::ifstream in(log);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    n += line.find("\"handStart\"") != std::string::npos ||
         line.find("\"hand_start\"") != std::string::npos;
  return n;
}

// A hand's end stays on a card (every hand's tiles as revealed, how it ended, the scores)
// until the person continues: the referee deals the next hand at once, the page holds it.
// The score chart has a line per side. Screenshots of the card at 1280 and 390 px.
TEST(BrowserTest, APersonSeesEachHandsEndOnACardUntilTheyContinue) {
  HumanTable h = open_seat(
      "browser-human-handover",
      {"--seed", "9876543210123", "--move-time-ms", "30000", "human", "greedy=" + kGreedy}, 1280);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  const auto end = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < end && state(b, "handOver") != "\"1\"") {
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    ASSERT_FALSE(over(b)) << "the first hand did not end the match";
    if (state(b, "handOver") == "\"1\"") break;
    click_a_play(b, false);
  }
  ASSERT_EQ(state(b, "handOver"), "\"1\"");
  const std::string ended = b.eval("humanTable().hand_index");
  EXPECT_EQ(b.eval("getComputedStyle(document.getElementById('handOver')).display"), "\"flex\"");
  EXPECT_EQ(b.eval("document.getElementById('handTitle').textContent"),
            "\"Hand " + std::to_string(std::stoi(ended) + 1) + " is over\"");
  EXPECT_NE(b.eval("document.getElementById('handHow').textContent"), "\"\"");
  // Every seat's tiles, as the table revealed them.
  EXPECT_EQ(b.eval("document.querySelectorAll('#handTiles .row').length"), "2");
  EXPECT_EQ(b.eval("[...document.querySelectorAll('#handTiles .row')].map(r => "
                   "[...r.querySelectorAll('svg.t')].map(s => s.dataset.tile).join('')).join('|')"),
            b.eval("humanTable().revealed.join('|')"));
  EXPECT_EQ(b.eval("document.getElementById('handScores').textContent.includes(humanTable()."
                   "scores[0]) && document.getElementById('handScores').textContent.includes("
                   "humanTable().scores[1])"),
            "true");
  // The referee went on: the next hand is dealt in its log while the page still shows this one.
  const auto dealt_by = std::chrono::steady_clock::now() + 10s;
  while (hands_dealt(h.log) < std::stoi(ended) + 2 && std::chrono::steady_clock::now() < dealt_by)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(hands_dealt(h.log), std::stoi(ended) + 2);
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(state(b, "handOver"), "\"1\"");
  EXPECT_EQ(b.eval("humanTable().hand_index"), ended);
  // The score chart: a line per side through every point of the table's timeline.
  EXPECT_EQ(b.eval("document.querySelectorAll('#scoreChart polyline').length"), "2");
  EXPECT_EQ(b.eval("+document.querySelector('#scoreChart svg').dataset.points"),
            b.eval("humanTable().timeline.length"));
  EXPECT_GE(std::stoi(b.eval("humanTable().timeline.length")), 2);
  EXPECT_EQ(b.eval("document.querySelector('#scoreChart polyline').getAttribute('points')"
                   ".split(' ').length === humanTable().timeline.length"),
            "true");
  settle(b);
  EXPECT_TRUE(b.screenshot(kOut + "/serve-human-handover-1280.png"));
  ASSERT_TRUE(b.set_viewport(390, 844, true));
  settle(b);
  EXPECT_FALSE(b.scrolls_sideways());
  EXPECT_TRUE(b.screenshot(kOut + "/serve-human-handover-390.png"));
  // Continue: the next hand's deal is shown.
  ASSERT_TRUE(b.click("#handContinue"));
  EXPECT_TRUE(b.wait_for("humanTable().hand_index === " + ended + " + 1", 10s));
  EXPECT_EQ(state(b, "handOver"), "\"0\"");
  EXPECT_EQ(b.eval("getComputedStyle(document.getElementById('handOver')).display"), "\"none\"");
}

// "Suggest a play": on each of the person's turns the page marks the strong search's choice,
// one of the legal plays, until the person turns it off.
TEST(BrowserTest, APersonAsksForTheStrongBotsSuggestion) {
  HumanTable h = open_seat(
      "browser-human-hint",
      {"--seed", "9876543210123", "--move-time-ms", "30000", "human", "greedy=" + kGreedy}, 1280);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  ASSERT_TRUE(b.wait_for("+document.getElementById('state').dataset.legal > 0", 30s));
  EXPECT_EQ(state(b, "hint"), "\"\"");
  EXPECT_EQ(b.eval("document.querySelectorAll('button.tile.hinted').length"), "0");
  ASSERT_TRUE(b.click("#hintToggle"));
  int hinted = 0;
  for (int turn = 0; turn < 3 && !over(b); ++turn) {
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    if (over(b)) break;
    if (continue_hand(b)) continue;
    ASSERT_TRUE(b.wait_for("document.getElementById('state').dataset.hint !== ''", 15s))
        << "no suggestion on turn " << turn;
    const std::string hint = parse_json_value(state(b, "hint")).string_value();
    EXPECT_EQ(
        b.eval("humanTable().legal.some(p => p.tile + ':' + p.end === " + json_quote(hint) + ")"),
        "true")
        << hint;
    EXPECT_EQ(b.eval("document.querySelector('button.tile.hinted').dataset.tile"),
              "\"" + hint.substr(0, 2) + "\"");
    EXPECT_NE(b.eval("document.getElementById('hint').textContent").find("strong bot would play"),
              std::string::npos);
    if (hinted++ == 0) b.screenshot(kOut + "/serve-human-hint.png");
    click_a_play(b, false);
  }
  EXPECT_GE(hinted, 2);
  // Off again: no suggestion on the next turn.
  ASSERT_TRUE(b.click("#hintToggle"));
  ASSERT_TRUE(b.wait_for("humanTable().hint_on === false", 10s));
  ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
  continue_hand(b);
  if (!over(b)) {
    ASSERT_TRUE(b.wait_for("+document.getElementById('state').dataset.legal > 0", 30s));
    std::this_thread::sleep_for(500ms);
    EXPECT_EQ(state(b, "hint"), "\"\"");
    EXPECT_EQ(b.eval("document.querySelectorAll('button.tile.hinted').length"), "0");
  }
}

// At phone width: the opponent's program crashes and the page says who forfeited and why;
// the person plays again, lets the clock run out, and is told so in words.
TEST(BrowserTest, AtPhoneWidthAnOpponentsForfeitAndATimeOutAreExplained) {
  HumanTable h = open_seat("browser-human-phone",
                           {"--seed", "8", "--move-time-ms", "4000", "--time-bank-ms", "0", "human",
                            "crashy=" + kBadBot + " --mode crash --at 3"},
                           390);
  ASSERT_TRUE(h.b);
  CdpBrowser& b = *h.b;
  EXPECT_FALSE(b.scrolls_sideways());
  // The person plays until the opponent's program crashes at its third decision.
  int clicks = 0;
  while (!over(b)) {
    ASSERT_TRUE(b.wait_for(kPersonsMoment, 30s));
    if (over(b)) break;
    if (continue_hand(b)) continue;
    if (clicks == 1) {
      EXPECT_FALSE(b.scrolls_sideways());
      b.screenshot(kOut + "/serve-human-390.png");
    }
    click_a_play(b, false);
    ++clicks;
  }
  const auto first = read_log(h.log);
  const auto& end1 = only(first, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end1.fault_seat(), 1);
  EXPECT_EQ(end1.fault_kind(), v1::FAULT_KIND_CRASH);
  EXPECT_EQ(state(b, "outcome"), "\"won\"");
  EXPECT_EQ(b.eval("document.getElementById('result').textContent"),
            "\"You win: crashy forfeited\"");
  const std::string detail = b.eval("document.getElementById('detail').textContent");
  EXPECT_NE(detail.find("crashy stopped running: its program exited."), std::string::npos)
      << detail;
  EXPECT_EQ(detail.find("gRPC"), std::string::npos) << detail;
  // The session's tally, shown after each match.
  EXPECT_EQ(state(b, "tally"), "\"1,0,0\"");
  EXPECT_NE(b.eval("document.getElementById('tally').textContent").find("1 won · 0 lost"),
            std::string::npos);
  settle(b);
  EXPECT_FALSE(b.scrolls_sideways());
  b.screenshot(kOut + "/serve-human-forfeit-390.png");
  // Play again: a second match on the same page (a newly drawn seed, not the one after
  // --seed, which the person could deal the bot's hand from), where the person does not answer
  // and the 4 s of a move run out.
  ASSERT_TRUE(b.click("#playAgain"));
  ASSERT_TRUE(
      b.wait_for("document.getElementById('state').dataset.match === '2' && "
                 "document.getElementById('state').dataset.over === '0'",
                 30s));
  ASSERT_TRUE(b.wait_for("+document.getElementById('state').dataset.legal > 0", 30s));
  EXPECT_NE(b.eval("document.getElementById('moveClock').textContent").find("move"),
            std::string::npos);
  ASSERT_TRUE(b.wait_for("document.getElementById('state').dataset.over === '1'", 30s));
  const std::string second_log = h.log.substr(0, h.log.size() - 6) + "-2.jsonl";
  const auto second = read_log(second_log);
  EXPECT_NE(second[0].header().seed(), 9u);
  EXPECT_NE(second[0].header().seed(), first[0].header().seed());
  const auto& end2 = only(second, v1::LogRecord::kMatchEnd).match_end();
  EXPECT_EQ(end2.fault_seat(), 0);
  EXPECT_EQ(end2.fault_kind(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(state(b, "outcome"), "\"lost\"");
  EXPECT_EQ(b.eval("document.getElementById('result').textContent"), "\"You ran out of time\"");
  EXPECT_NE(b.eval("document.getElementById('detail').textContent")
                .find("The 4 s a move may take (your bank was empty) passed without a play"),
            std::string::npos);
  EXPECT_EQ(state(b, "tally"), "\"1,1,0\"");
  EXPECT_NE(b.eval("document.getElementById('tally').textContent").find("1 won · 1 lost"),
            std::string::npos);
  settle(b);
  EXPECT_FALSE(b.scrolls_sideways());
  b.screenshot(kOut + "/serve-human-timeout-390.png");
  ASSERT_TRUE(b.click("#done"));
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

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
                "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === "
                "c; })()") == "true") {
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
