// The human seat's choice of opponent in a real browser (cdp_client.h): at a match's end the
// page names the bot just played and offers the sample bots beside the referee; the person
// picks another, plays again, and the next match (its log and its page) is against that bot.
// Each match ends at the person's first turn (a short move time, no bank), so the test is
// about the choice, not about play. Screenshots at 1280 and 390 px are left in the build
// folder (ALLFIVES_SERVE_OUT); docs/serve-human-opponent-*.png come from them.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "e2e/e2e_util.h"
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

const std::string kOut = ALLFIVES_SERVE_OUT;

// The page's #state data-NAME, as JSON text.
std::string state(CdpBrowser& b, const std::string& name) {
  return b.eval("document.getElementById('state').dataset." + name);
}

std::string text_of(CdpBrowser& b, const std::string& id) {
  return parse_json_value(b.eval("document.getElementById('" + id + "').textContent"))
      .string_value();
}

// The match `n` is over and "Play again" can be clicked.
bool wait_for_end(CdpBrowser& b, int n) {
  return b.wait_for("document.getElementById('state').dataset.match === '" + std::to_string(n) +
                        "' && document.getElementById('state').dataset.over === '1' && "
                        "!document.getElementById('playAgain').disabled",
                    30s);
}

// Waits until the page's animations (the result card rising) have played.
void settle(CdpBrowser& b) {
  b.wait_for(
      "document.getAnimations().every(a => a.playState !== 'running' || "
      "a.effect.getComputedTiming().iterations === Infinity)",
      5s);
}

TEST(HumanOpponentBrowserTest, APersonPicksAnotherSampleBotAndPlaysAgainstIt) {
  const std::string log = temp_dir("browser-human-opponent") + "/human.jsonl";
  Child referee({kReferee, "match", "--log", log, "--serve", "127.0.0.1:0", "--move-time-ms",
                 "1500", "--time-bank-ms", "0", "--human-pace-ms", "0", "human",
                 "greedy=" + kGreedy});
  const std::string line = referee.wait_for_line("http://", 10s);
  ASSERT_FALSE(line.empty()) << referee.output();
  auto browser = browser_or_fail();
  ASSERT_TRUE(browser);
  CdpBrowser& b = *browser;
  ASSERT_TRUE(b.navigate(line.substr(line.find("http://"))));
  ASSERT_TRUE(b.wait_for("document.body.dataset.ready === '1'", 20s));
  ASSERT_TRUE(wait_for_end(b, 1)) << referee.output();
  // The bot of this match by name; the choice offers the command line's bot (chosen: the same
  // as now) and the sample bots built beside the referee.
  EXPECT_NE(text_of(b, "opponentNow").find("against greedy"), std::string::npos)
      << text_of(b, "opponentNow");
  EXPECT_EQ(b.eval("document.getElementById('opponentChoice').value"), "\"\"");
  EXPECT_NE(text_of(b, "opponentChoice").find("greedy (command line): the same as now"),
            std::string::npos)
      << text_of(b, "opponentChoice");
  const std::string offered = parse_json_value(state(b, "opponents")).string_value();
  EXPECT_EQ(offered.rfind(",", 0), 0u) << offered;  // "" first
  EXPECT_NE(offered.find("random"), std::string::npos) << offered;
  EXPECT_NE(b.eval("getComputedStyle(document.getElementById('opponentPick')).display"),
            "\"none\"");
  // The person picks the random bot, as with the select's own list.
  b.eval(
      "(() => { const s = document.getElementById('opponentChoice'); s.focus(); s.value = "
      "'random'; s.dispatchEvent(new Event('change', {bubbles: true})); })()");
  EXPECT_EQ(b.eval("document.getElementById('opponentChoice').value"), "\"random\"");
  settle(b);
  EXPECT_TRUE(b.screenshot(kOut + "/serve-human-opponent-1280.png"));
  ASSERT_TRUE(b.click("#playAgain"));
  ASSERT_TRUE(wait_for_end(b, 2)) << referee.output();
  // The next match is against it: its log, the referee's line, the page.
  const std::string second = log.substr(0, log.size() - 6) + "-2.jsonl";
  const auto records = read_log(second);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0].header().bots(1).display_name(), "random");
  EXPECT_EQ(std::filesystem::path(records[0].header().bots(1).command()).filename(), "random_bot");
  EXPECT_TRUE(records[0].header().bots(1).confinement().sandboxed());
  EXPECT_NE(referee.wait_for_line("Another match: ", 5s).find("against random"), std::string::npos)
      << referee.output();
  EXPECT_EQ(state(b, "opponent"), "\"random\"");
  EXPECT_NE(text_of(b, "opponentNow").find("against random"), std::string::npos);
  EXPECT_NE(text_of(b, "meta").find("you vs random"), std::string::npos) << text_of(b, "meta");
  EXPECT_EQ(b.eval("document.getElementById('opponentChoice').value"), "\"random\"");
  EXPECT_NE(text_of(b, "opponentChoice").find("random: the same as now"), std::string::npos);
  // At phone width the card fits.
  ASSERT_TRUE(b.set_viewport(390, 844, true));
  settle(b);
  EXPECT_FALSE(b.scrolls_sideways());
  EXPECT_TRUE(b.screenshot(kOut + "/serve-human-opponent-390.png"));
  ASSERT_TRUE(b.click("#done"));
  EXPECT_EQ(referee.wait_exit(30s), 0) << referee.output();
}

}  // namespace
}  // namespace allfives::e2e
