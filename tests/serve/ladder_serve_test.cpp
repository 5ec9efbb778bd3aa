// `referee serve` on a ladder folder: the list names it, its leaderboard, a bot's page with
// its rating plot, its matches' replays and its versions' gate reports (a hostile bot's output
// in its report shown as text, never as markup), a user's page; unknown names are 404.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

TEST(ServeLadder, TheLeaderboardABotsPageAndItsReplays) {
  const std::string d = temp_dir("serve-ladder");
  std::ofstream(d + "/club.txtpb") << "name: \"club\"\nformat: FORMAT_TWO_PLAYERS\n"
                                   << "move_time_ms: 300\ncheck_decisions: 10\n"
                                   << "placement_opponents: 2\nhistory_every: 2\n";
  const std::string ladder = d + "/L";
  ASSERT_EQ(run({kReferee, "ladder", "init", ladder, d + "/club.txtpb"}).exit_code, 0);
  const RunResult user = run({kReferee, "ladder", "add-user", ladder, "alice"});
  std::istringstream lines(user.output);
  std::string token;
  std::getline(lines, token);
  std::getline(lines, token);
  for (const auto& [name, program] : {std::pair{"fox", kGreedy}, std::pair{"owl", kRandom}}) {
    fs::create_directories(d + "/" + name);
    fs::copy_file(program, d + "/" + name + "/bot");
    ASSERT_EQ(run({kReferee, "ladder", "submit", ladder, "--token", token, name, d + "/" + name})
                  .exit_code,
              0);
  }
  // A bot whose output, kept in its check report, is markup.
  fs::create_directories(d + "/xss");
  std::ofstream(d + "/xss/bot") << "#!/bin/sh\necho '<script>alert(1)</script>' >&2\nexit 3\n";
  fs::permissions(d + "/xss/bot", fs::perms(0755));
  ASSERT_EQ(
      run({kReferee, "ladder", "submit", ladder, "--token", token, "xss", d + "/xss"}).exit_code,
      1);
  ASSERT_EQ(run({kReferee, "ladder", "run", ladder, "--rounds", "3"}, std::chrono::seconds(120))
                .exit_code,
            0);

  ServeProcess s = start_serve(kReferee, {ladder});
  ASSERT_NE(s.port, 0);
  const HttpReply list = http_get(s.port, "/");
  EXPECT_TRUE(contains(list.body, "href=\"/ladder/0/\">ladder club")) << list.body;

  const HttpReply board = http_get(s.port, "/ladder/0/");
  ASSERT_EQ(board.status, 200);
  EXPECT_TRUE(contains(board.body, "<a href=\"/ladder/0/bot/fox\">fox@1</a>")) << board.body;
  EXPECT_TRUE(contains(board.body, "<a href=\"/ladder/0/user/alice\">alice</a>")) << board.body;
  EXPECT_FALSE(contains(board.body, "xss@1</a></td>")) << "a refused version is rated";

  const HttpReply fox = http_get(s.port, "/ladder/0/bot/fox");
  ASSERT_EQ(fox.status, 200);
  EXPECT_TRUE(contains(fox.body, "<svg class=\"plot\"")) << fox.body;
  EXPECT_TRUE(contains(fox.body, "<polyline class=\"rating\"")) << fox.body;
  std::smatch replay;
  ASSERT_TRUE(std::regex_search(fox.body, replay, std::regex("href=\"(/m/0/rounds/[^\"]+)\"")))
      << fox.body;
  EXPECT_EQ(http_get(s.port, replay[1]).status, 200) << replay[1];

  const HttpReply xss = http_get(s.port, "/ladder/0/bot/xss");
  ASSERT_EQ(xss.status, 200);
  EXPECT_TRUE(contains(xss.body, "&lt;script&gt;alert(1)&lt;/script&gt;")) << xss.body;
  EXPECT_FALSE(contains(xss.body, "<script>alert(1)")) << xss.body;

  const HttpReply alice = http_get(s.port, "/ladder/0/user/alice");
  EXPECT_TRUE(contains(alice.body, "href=\"/ladder/0/bot/owl\"")) << alice.body;
  for (const char* missing : {"/ladder/0/bot/nobody", "/ladder/0/bot/..%2f..%2fetc",
                              "/ladder/0/bot/%3Cb%3E", "/ladder/1/", "/ladder/0/elsewhere"})
    EXPECT_EQ(http_get(s.port, missing).status, 404) << missing;
}

}  // namespace
}  // namespace allfives::e2e
