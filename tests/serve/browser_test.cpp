// Browser tests of `referee serve` and the human seat: Debian's headless Chromium, driven over
// the DevTools protocol (cdp_client.h), opens the pages the way a person does. The tournament
// page's standings against `referee standings`; a live match watched until it ends; a whole
// match played by clicking legal tiles, with every message the page received recorded by the
// browser and checked against the log. Screenshots are left in the build folder
// (ALLFIVES_SERVE_OUT); the README's pictures in docs/ come from them.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kGreedy = ALLFIVES_GREEDY_BOT;
const std::string kRandom = ALLFIVES_RANDOM_BOT;
const std::string kBadBot = ALLFIVES_MISBEHAVING_BOT;
const std::string kOut = ALLFIVES_SERVE_OUT;

std::unique_ptr<CdpBrowser> browser() {
  std::string why;
  auto b = CdpBrowser::start(&why);
  EXPECT_TRUE(b) << why;
  return b;
}

struct Server {
  std::unique_ptr<Child> child;
  int port = 0;
  std::string base;  // "http://127.0.0.1:PORT"
};
Server serve(const std::string& dir) {
  Server s;
  s.child = std::make_unique<Child>(std::vector<std::string>{kReferee, "serve", dir, "--listen",
                                                             "127.0.0.1:0", "--poll-ms", "50"});
  const std::string line = s.child->wait_for_line("Serving", 10s);
  std::string target;
  split_url(between(line + " ", "at ", " "), s.port, target);
  EXPECT_GT(s.port, 0) << s.child->output();
  s.base = "http://127.0.0.1:" + std::to_string(s.port);
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

TEST(BrowserTest, TheTournamentPageShowsTheStandingsAndOpensReplays) {
  const std::string dir = temp_dir("browser-tournament");
  std::ofstream(dir + "/t.txtpb") << "name: \"browser\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                                  << "bots { name: \"random\" command: \"" << kRandom << "\" }\n"
                                  << "bots { name: \"cheat\" command: \"" << kBadBot
                                  << "\" args: \"--mode\" args: \"illegal\" args: \"--at\" args: "
                                     "\"30\" }\n"
                                  << "matches_per_pairing: 6\nseed: 5\n";
  const std::string out = dir + "/out";
  ASSERT_EQ(
      run({kReferee, "tournament", dir + "/t.txtpb", "--out", out, "-j", "2"}, 120s).exit_code, 0);
  const RunResult text = run({kReferee, "standings", out});
  std::vector<std::vector<std::string>> expected;
  std::istringstream lines(text.output);
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Rank", 0) == 0) in_table = true;
    if (line.empty()) in_table = false;
    if (in_table) expected.push_back(split_columns(line));
  }
  ASSERT_EQ(expected.size(), 4u);

  Server s = serve(out);
  auto b = browser();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/"));
  ASSERT_TRUE(b->click("#folders a"));
  ASSERT_TRUE(b->wait_for("document.querySelector('#standings')", 10s));
  const auto shown = rows_of(parse_json_value(
      b->eval("[...document.querySelectorAll('#standings tr')].map(r => [...r.cells].map(c => "
              "c.textContent))")));
  EXPECT_EQ(shown, expected);
  b->screenshot(kOut + "/serve-tournament.png");
  // The first match's replay, as seat 1 saw it, opened by clicking its link.
  ASSERT_TRUE(b->click("#matches tr:nth-child(2) .seats a:nth-child(2)"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b->eval("window.replay.data.match.viewer"), "1");
  EXPECT_EQ(b->eval("location.search"), "\"?seat=1\"");
  EXPECT_GT(std::stoi(b->eval("window.replay.count()")), 20);
}

TEST(BrowserTest, ALiveMatchIsWatchedUntilItEnds) {
  const std::string dir = temp_dir("browser-live");
  const std::string log = dir + "/live.jsonl";
  Server s = serve(dir);
  Child match({kReferee, "match", "--seed", "12", "--log", log,
               "slow=" + kBadBot + " --mode slow --ms 60", "greedy=" + kGreedy});
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("hand_start") != std::string::npos) break;
    std::this_thread::sleep_for(10ms);
  }
  auto b = browser();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(s.base + "/m/0/live.jsonl"));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));
  EXPECT_EQ(b->eval("document.body.dataset.live"), "\"1\"");
  // Watch: the page must move on by itself, step after step, to the end.
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

TEST(BrowserTest, APersonPlaysAWholeMatchByClickingAndNeverReceivesOtherTiles) {
  const std::string log = temp_dir("browser-human") + "/human.jsonl";
  Child referee({kReferee, "match", "--seed", "21", "--match-id", "browser-human", "--log", log,
                 "--serve", "127.0.0.1:0", "--move-time-ms", "20000", "human",
                 "greedy=" + kGreedy});
  const std::string line = referee.wait_for_line("http://", 10s);
  ASSERT_FALSE(line.empty()) << referee.output();
  const std::string url = line.substr(line.find("http://"));
  auto b = browser();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->navigate(url));
  int clicks = 0, end_choices = 0;
  std::vector<std::pair<std::string, std::string>> clicked;  // tile, end chosen ("" if none)
  bool shot = false;
  const auto end = std::chrono::steady_clock::now() + 180s;
  while (std::chrono::steady_clock::now() < end) {
    if (b->eval("document.getElementById('state').dataset.over") == "\"1\"") break;
    if (b->eval("+document.getElementById('state').dataset.legal > 0") != "true") {
      std::this_thread::sleep_for(30ms);
      continue;
    }
    const std::string seq = b->eval("document.getElementById('state').dataset.seq");
    if (!shot && clicks == 6) shot = b->screenshot(kOut + "/serve-human.png");
    // Click the last highlighted tile; where it fits both ends, pick an end.
    const std::string pick =
        b->eval("[...document.querySelectorAll('button.tile.legal')].pop().dataset.tile");
    ASSERT_TRUE(b->click("button.tile.legal[data-tile=" + pick + "]")) << pick;
    std::string end_chosen;
    if (b->eval("getComputedStyle(document.getElementById('ends')).display") == "\"flex\"") {
      end_chosen = end_choices % 2 ? "left" : "right";
      ASSERT_TRUE(b->click(end_choices % 2 ? "#endLeft" : "#endRight"));
      ++end_choices;
    }
    clicked.emplace_back(parse_json_value(pick).string_value(), end_chosen);
    ++clicks;
    ASSERT_TRUE(b->wait_for("document.getElementById('state').dataset.seq !== " + seq, 20s));
  }
  ASSERT_EQ(referee.wait_exit(30s), 0) << referee.output();
  EXPECT_TRUE(b->wait_for("document.getElementById('state').dataset.over === '1'", 5s));
  EXPECT_GT(clicks, 10);
  std::cout << clicks << " plays clicked, " << end_choices << " of them with an end chosen\n";
  const auto records = read_log(log);
  expect_log_follows_rules(records);
  const auto& match_end = only(records, v1::LogRecord::kMatchEnd).match_end();
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
  EXPECT_EQ(match_end.fault_seat(), -1) << "every click must have been a legal play in time";
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
  for (const CdpEvent& e : b->events()) {
    if (e.method != "Network.eventSourceMessageReceived") continue;
    ++messages;
    const auto m = parse_json_object(e.params.fields().at("data").string_value());
    const auto& f = m.fields();
    ASSERT_TRUE(f.count("hand")) << e.params.DebugString();
    const int h = static_cast<int>(f.at("hand_index").number_value());
    const std::string tiles = f.at("hand").string_value();
    for (size_t i = 0; i + 1 < tiles.size(); i += 2)
      EXPECT_TRUE(mine[h].count(tiles.substr(i, 2)))
          << "the page was sent " << tiles.substr(i, 2) << " as its own in hand " << h + 1;
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
      for (const std::string& t : others[h])
        if (!laid.count(t)) {
          EXPECT_EQ(held.count(t), 0u) << "hidden tile " << t << " among the page's own";
          EXPECT_EQ(e.params.fields().at("data").string_value().find("\"" + t + "\""),
                    std::string::npos)
              << "hidden tile " << t << " in " << e.params.fields().at("data").string_value();
        }
    }
  }
  EXPECT_GT(messages, clicks) << "the browser recorded every message of the stream";
}

}  // namespace
}  // namespace allfives::e2e
