// The list of served folders says of each tournament what a person looks for first: its name,
// its bots, its state (finished, stopped with how to continue, running) and its verdict.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// The row of the list whose link is `url`.
std::string row_of(const std::string& page, const std::string& url) {
  const size_t at = page.find("<a href=\"" + url + "\"");
  if (at == std::string::npos) return "";
  const size_t from = page.rfind("<tr>", at);
  return page.substr(from, page.find("</tr>", at) - from);
}

TEST(ServeFolderList, ATournamentsRowNamesItsBotsStateAndVerdict) {
  const std::string d = temp_dir("folder-list");
  std::ofstream(d + "/t.txtpb") << "name: \"club-night\"\nformat: FORMAT_TWO_PLAYERS\nseed: 5\n"
                                << "matches_per_pairing: 4\ntarget_score: 61\n"
                                << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                                << "bots { name: \"random\" command: \"" << kRandom << "\" }\n";
  for (const char* out : {"done", "cut", "busy"})
    ASSERT_EQ(run({kReferee, "tournament", d + "/t.txtpb", "--out", d + "/" + out, "-q"}).exit_code,
              0);
  // "cut": stopped after one match, as Ctrl-C leaves it.
  const std::string index = read_file(d + "/cut/index.jsonl");
  std::ofstream(d + "/cut/index.jsonl", std::ios::trunc) << index.substr(0, index.find('\n') + 1);
  fs::remove_all(d + "/cut/standings.csv");
  ServeProcess s = start_serve(kReferee, {d});
  ASSERT_GT(s.port, 0);
  // "busy": its lock names a live referee (this server, a referee process).
  std::ofstream(d + "/busy/referee.lock", std::ios::trunc) << s.child->pid() << "\n";

  const std::string page = http_get(s.port, "/").body;
  const std::string done = row_of(page, "/t/0/done/");
  EXPECT_TRUE(contains(done, "<strong>club-night</strong>")) << done;
  EXPECT_TRUE(contains(done, "greedy, random")) << done;
  EXPECT_TRUE(contains(done, "finished, 4 of 4")) << done;
  EXPECT_TRUE(contains(done, "greedy leads (Elo +")) << done;
  EXPECT_TRUE(contains(done, " UTC")) << done;
  const std::string cut = row_of(page, "/t/0/cut/");
  EXPECT_TRUE(contains(cut, "stopped at 1 of 4")) << cut;
  EXPECT_TRUE(contains(cut, "continue: referee tournament FILE --resume --out")) << cut;
  const std::string busy = row_of(page, "/t/0/busy/");
  EXPECT_TRUE(contains(busy, "● running")) << busy;
  // A lock left by a referee that is gone is no run.
  std::ofstream(d + "/busy/referee.lock", std::ios::trunc) << "999999999\n";
  EXPECT_TRUE(contains(row_of(http_get(s.port, "/").body, "/t/0/busy/"), "finished, 4 of 4"));
}

}  // namespace
}  // namespace allfives::e2e
