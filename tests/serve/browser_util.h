// What the browser tests share (browser_test.cpp, human_seat_browser_test.cpp,
// review_browser_test.cpp): `referee serve` on a folder, and a person's seat driven in the
// browser as a person drives it (cdp_client.h).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allfives/v1/common.pb.h"
#include "e2e/e2e_util.h"
#include "serve/cdp_client.h"
#include "serve/serve_util.h"

namespace allfives::e2e::browser {

// `referee serve DIR` polling its logs every 50 ms, its port read from what it prints.
ServeProcess serve(const std::string& dir);

// A tile as its two halves' digits, the high first ("64").
std::string pair_of(const v1::Tile& t);

// The page's state attribute `name` (#state data-NAME) as JSON text.
std::string state(CdpBrowser& b, const std::string& name);

// A person's seat in the browser: the referee started with `human` and `bots`, the page open.
struct HumanTable {
  std::unique_ptr<Child> referee;
  std::unique_ptr<CdpBrowser> b;
  std::string url;
  std::string log;
};
// `referee match ARGS --serve` with the page open at `width` px (a phone below 1000).
HumanTable open_seat(const std::string& name, const std::vector<std::string>& args, int width);

// Clicks one legal play (the last highlighted tile; where it fits both ends, the end given by
// `left`) and waits for the page's next table. Returns the tile and the end chosen ("").
std::pair<std::string, std::string> click_a_play(CdpBrowser& b, bool left);

bool my_turn(CdpBrowser& b);
bool over(CdpBrowser& b);

// The page's next moment for the person: their turn, a hand's end on its card, or the end.
inline constexpr const char* kPersonsMoment =
    "+document.getElementById('state').dataset.legal > 0 || "
    "document.getElementById('state').dataset.handOver === '1' || "
    "document.getElementById('state').dataset.over === '1'";

// Closes the hand-over card if it is up: the next hand waits on the page for it.
bool continue_hand(CdpBrowser& b);

// Waits until the page's animations (the result card rising) have played.
void settle(CdpBrowser& b);

}  // namespace allfives::e2e::browser
