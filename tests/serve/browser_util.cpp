#include "serve/browser_util.h"

#include <gtest/gtest.h>

namespace allfives::e2e::browser {

using namespace std::chrono_literals;

ServeProcess serve(const std::string& dir) {
  ServeProcess s = start_serve(kReferee, {dir}, 50);
  EXPECT_GT(s.port, 0) << s.child->output();
  return s;
}

std::string pair_of(const v1::Tile& t) {
  return std::to_string(t.high()) + std::to_string(t.low());
}

// The page's state attribute `name` (#state data-NAME) as JSON text.
std::string state(CdpBrowser& b, const std::string& name) {
  return b.eval("document.getElementById('state').dataset." + name);
}

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

}  // namespace allfives::e2e::browser
