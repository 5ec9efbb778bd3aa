// Browser tests of the human seat: a whole match played by clicking legal tiles, with every
// message the page received recorded by the browser and checked against the log; the person's
// play shown before the bot's paced reply; a hand's end held on its card until Continue, with
// the score chart; the strong bot's suggestion; at phone width, an opponent's forfeit, "play
// again" and a time-out, each explained on the page, and the session's tally. Screenshots are
// left in the build folder (ALLFIVES_SERVE_OUT).
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
              std::string("\"").append(hint.substr(0, 2)) + "\"");
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

}  // namespace
}  // namespace allfives::e2e
