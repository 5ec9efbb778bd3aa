// `referee serve` hands out a tournament's SPRT state with its standings (standings.json's
// "sprt"), the same state `referee tournament` wrote and `referee standings` prints, so the
// pages can show the test's LLR, bounds and verdict.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

TEST(ServeSprt, StandingsJsonCarriesTheSprtState) {
  const std::string dir = temp_dir("serve-sprt");
  std::ofstream(dir + "/t.txtpb") << "name: \"served-sprt\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << "bots { name: \"greedy\" candidate: true command: \""
                                  << ALLFIVES_GREEDY_BOT << "\" }\n"
                                  << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT
                                  << "\" }\n"
                                  << "seed: 3\ntarget_score: 61\n"
                                  << "sprt { elo0: 0 elo1: 40 max_pairs: 500 }\n";
  const std::string out = dir + "/out";
  const RunResult r =
      run({ALLFIVES_REFEREE, "tournament", dir + "/t.txtpb", "--out", out, "-j", "2", "-q"}, 120s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string written = read_file(out + "/standings.json");
  const std::string sprt = between(written, "\"sprt\": [", "]\n");
  ASSERT_NE(sprt.find("\"state\": \"h1_accepted\""), std::string::npos) << written;

  Child server({ALLFIVES_REFEREE, "serve", out, "--listen", "127.0.0.1:0"});
  const std::string line = server.wait_for_line("Serving", 10s);
  int port = 0;
  std::string target;
  ASSERT_TRUE(split_url(between(line + " ", "at ", " "), port, target)) << server.output();
  const HttpReply reply = http_get(port, "/standings/0/");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(between(reply.body, "\"sprt\": [", "]\n"), sprt) << reply.body;
  EXPECT_NE(reply.body.find("\"against\": \"random\""), std::string::npos) << reply.body;
  EXPECT_NE(reply.body.find("\"verdict\": \"greedy is stronger than random"), std::string::npos)
      << reply.body;
}

}  // namespace
}  // namespace allfives::e2e
