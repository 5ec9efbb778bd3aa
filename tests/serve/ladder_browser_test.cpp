// A served ladder in a real browser (Debian's headless Chromium, cdp_client.h), as a newcomer
// uses it: sign in with a printed token, upload the README's Python bot through the form,
// watch it pass the gate, find it on the leaderboard once it has played, open its page (the
// rating plot, head to head) and one of its matches; an upload refused by the gate shows its
// reason; the pages at 390 and 1280 px. Any script error, console error or blocked resource
// on any page fails the test (CdpBrowser). Screenshots go to the build folder
// (ALLFIVES_SERVE_OUT); docs/LADDER.md's pictures come from them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"
#include "serve/cdp_client.h"
#include "serve/ladder_web_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

const std::string kOut = ALLFIVES_SERVE_OUT;

// Chooses `path` in the page's file input `selector`, as a person picking a file does.
bool choose_file(CdpBrowser& b, const std::string& selector, const std::string& path) {
  const auto doc = b.call("DOM.getDocument");
  const auto root = doc.fields().at("root").struct_value().fields().at("nodeId").number_value();
  const auto node = b.call("DOM.querySelector", "{\"nodeId\":" + std::to_string(int(root)) +
                                                    ",\"selector\":" + json_quote(selector) + "}");
  if (!node.fields().count("nodeId")) return false;
  const auto r = b.call("DOM.setFileInputFiles",
                        "{\"files\":[" + json_quote(path) + "],\"nodeId\":" +
                            std::to_string(int(node.fields().at("nodeId").number_value())) + "}");
  return !r.fields().count("error");
}

// Fills the upload form and sends it; true once the upload's page shows it is over.
bool upload_through_the_form(CdpBrowser& b, const std::string& bot, const std::string& file) {
  if (!b.wait_for("!!document.getElementById('upload-form')", 10s)) return false;
  b.eval("document.querySelector('input[name=bot]').value = " + json_quote(bot));
  if (!choose_file(b, "input[name=file]", file)) return false;
  b.click("#upload-form button");
  return b.wait_for(
      "['passed', 'refused', 'failed'].includes(document.getElementById('upload-job')"
      "?.dataset.state)",
      90s);
}

TEST(LadderBrowser, ANewcomerSignsInUploadsTheReadmesBotAndSeesItRated) {
  ASSERT_TRUE(ALLFIVES_PYTHON_BOTS) << "the Python SDK is built by scripts/setup.sh";
  WebLadder w = make_web_ladder("browser-ladder");
  ASSERT_GT(w.serve.port, 0);
  std::filesystem::create_directories(w.dir + "/fox");
  std::filesystem::copy_file(kGreedy, w.dir + "/fox/bot");
  ASSERT_EQ(run({kReferee, "ladder", "submit", w.ladder, "--token", w.tokens["bob"], "fox",
                 w.dir + "/fox"})
                .exit_code,
            0);
  std::ofstream(w.dir + "/first.py") << kFirstPy;
  std::ofstream(w.dir + "/broken.py") << "import sys\nsys.exit(3)\n";

  std::string why;
  auto b = CdpBrowser::start(&why);
  ASSERT_TRUE(b) << why;
  ASSERT_TRUE(b->navigate(w.serve.base + "/ladder/0/"));
  ASSERT_TRUE(b->click("#signin"));
  ASSERT_TRUE(b->wait_for("!!document.getElementById('signin-form')", 10s));
  b->eval("document.querySelector('input[name=token]').value = " + json_quote(w.tokens["alice"]));
  ASSERT_TRUE(b->click("#signin-form button"));
  // The redirect's page, loaded (the path changes before its document is parsed).
  ASSERT_TRUE(b->wait_for(
      "location.pathname === '/ladder/0/user/alice' && document.readyState === 'complete'", 10s));
  EXPECT_EQ(b->eval("document.getElementById('me').textContent"), "\"alice\"");
  EXPECT_EQ(b->eval("document.cookie"), "\"\"") << "the session cookie is HttpOnly";
  ASSERT_TRUE(b->click("#upload-link"));
  b->screenshot(kOut + "/ladder-upload-1280.png");

  ASSERT_TRUE(upload_through_the_form(*b, "first", w.dir + "/first.py"));
  EXPECT_EQ(b->eval("document.getElementById('upload-job').dataset.state"), "\"passed\"");
  EXPECT_NE(b->eval("document.getElementById('message').textContent").find("median"),
            std::string::npos);
  b->screenshot(kOut + "/ladder-gate-1280.png");

  // A bot that exits at once is refused, with the gate's reason on the page.
  ASSERT_TRUE(b->navigate(w.serve.base + "/ladder/0/upload"));
  ASSERT_TRUE(upload_through_the_form(*b, "broken", w.dir + "/broken.py"));
  EXPECT_EQ(b->eval("document.getElementById('upload-job').dataset.state"), "\"refused\"");
  EXPECT_NE(b->eval("document.getElementById('message').textContent").find("FAIL"),
            std::string::npos)
      << b->eval("document.getElementById('message').textContent");

  const RunResult rounds =
      run({kReferee, "ladder", "run", w.ladder, "--rounds", "2"}, std::chrono::seconds(180));
  ASSERT_EQ(rounds.exit_code, 0) << rounds.output;
  ASSERT_TRUE(b->navigate(w.serve.base + "/ladder/0/"));
  const std::string first_row =
      "[...document.querySelectorAll('#leaderboard a')].some(a => a.textContent === 'first@1')";
  ASSERT_TRUE(b->wait_for(first_row, 10s));
  b->screenshot(kOut + "/ladder-board-1280.png");
  ASSERT_TRUE(b->navigate(w.serve.base + "/ladder/0/bot/first"));
  EXPECT_EQ(b->eval("document.querySelectorAll('svg.plot polyline.rating').length > 0"), "true");
  EXPECT_EQ(b->eval("document.querySelectorAll('#head-to-head tr').length"), "2");
  b->screenshot(kOut + "/ladder-bot-1280.png");
  const std::string replay = b->eval("document.querySelector('ul.matches a').href");
  ASSERT_NE(replay, "null");
  ASSERT_TRUE(b->navigate(parse_json_value(replay).string_value()));
  ASSERT_TRUE(b->wait_for("document.body.dataset.ready === '1'", 10s));

  // At phone width nothing scrolls sideways but the tables in their own boxes.
  ASSERT_TRUE(b->set_viewport(390, 844, true));
  for (const auto& [page, shot] : {std::pair{"/ladder/0/", "ladder-board-390"},
                                   std::pair{"/ladder/0/bot/first", "ladder-bot-390"},
                                   std::pair{"/ladder/0/upload", "ladder-upload-390"}}) {
    ASSERT_TRUE(b->navigate(w.serve.base + page));
    EXPECT_FALSE(b->scrolls_sideways()) << page;
    b->screenshot(kOut + "/" + shot + ".png");
  }
}

}  // namespace
}  // namespace allfives::e2e
