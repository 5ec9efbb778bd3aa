// Quiet by default: the socket folders that referees killed earlier left behind are removed
// without a word (they are not the user's mistake), and named with -v.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

// The id of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// A socket folder as a referee killed with SIGKILL leaves it, in `tmp`.
std::string stale_folder(const std::string& tmp) {
  const std::string dir = tmp + "/allfives-" + std::to_string(dead_pid()) + "-abcdef";
  fs::create_directories(dir + "/seat0");
  std::ofstream(dir + "/seat0/seat0.sock") << "";
  return dir;
}

RunResult match_in(const std::string& tmp, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {
      "/usr/bin/env", "TMPDIR=" + tmp, kReferee, "match", "--seed", "1", "--max-hands", "1",
      "--log",        tmp + "/m.jsonl"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(kRandom);
  argv.push_back(kRandom);
  return run(argv);
}

TEST(Quiet, LeftoversOfDeadRefereesAreRemovedSilentlyUnlessVerbose) {
  const std::string tmp = temp_dir("quiet-sweep");
  std::string stale = stale_folder(tmp);
  RunResult r = match_in(tmp, {});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(r.output.find("socket folder"), std::string::npos) << r.output;

  stale = stale_folder(tmp);
  r = match_in(tmp, {"-v"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_NE(r.output.find("referee match: removed the socket folder " + stale), std::string::npos)
      << r.output;
}

TEST(Quiet, ATournamentSweepsSilentlyUnlessVerbose) {
  const std::string tmp = temp_dir("quiet-tournament");
  const std::string file = tmp + "/t.txtpb";
  std::ofstream(file) << "format: FORMAT_TWO_PLAYERS\nmax_hands: 1\nseed: 3\n"
                      << "bots { name: \"a\" command: \"" << kRandom << "\" }\n"
                      << "bots { name: \"b\" command: \"" << kRandom << "\" }\n";
  std::string stale = stale_folder(tmp);
  RunResult r = run({"/usr/bin/env", "TMPDIR=" + tmp, kReferee, "tournament", file, "--out",
                     tmp + "/out1", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(r.output.find("socket folder"), std::string::npos) << r.output;
  stale = stale_folder(tmp);
  r = run({"/usr/bin/env", "TMPDIR=" + tmp, kReferee, "tournament", file, "--out", tmp + "/out2",
           "-q", "-v"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("referee tournament: removed the socket folder " + stale),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace allfives::e2e
