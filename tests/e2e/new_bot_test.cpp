// `referee new-bot` end to end: the folder it writes for each language holds a bot that passes
// `referee check-bot` when started by the printed command, a tournament file that plays at
// once, and an SPRT file the referee accepts; a build and a scaffold moved together still play; a
// folder that is not empty is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/e2e_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kBuild = fs::path(kReferee).parent_path().parent_path().string();

// The words of one line the shell would read (plain words and '...' quotes, as new-bot writes).
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false, escaped = false;
  for (const char c : line) {
    if (escaped) {
      word += c;
      escaped = false;
    } else if (quoted) {
      if (c == '\'')
        quoted = false;
      else
        word += c;
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == '\\') {
      escaped = in_word = true;
    } else if (c == ' ') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// The printed command line that holds `part` after "Next:", as words; empty if there is none.
std::vector<std::string> next_command(const std::string& output, const std::string& part) {
  const size_t next = output.find("\nNext:\n");
  if (next == std::string::npos) return {};
  std::istringstream lines(output.substr(next + 7));
  for (std::string line; std::getline(lines, line);)
    if (contains(line, part)) return shell_words(line);
  return {};
}

// Makes a `lang` bot in a fresh folder (its name with a space, so the printed commands must
// quote it); returns new-bot's run and the folder.
std::pair<RunResult, std::string> new_bot(const std::string& lang) {
  const std::string dir = temp_dir("new-bot-" + lang) + "/my " + lang + " bot";
  return {run({kReferee, "new-bot", "--lang", lang, dir}), dir};
}

// Checks the bot with the printed command, then plays the tournament file and one pair of the
// SPRT file, each as printed.
void expect_checks_and_plays(const std::string& output) {
  const std::vector<std::string> check = next_command(output, " check-bot ");
  ASSERT_FALSE(check.empty()) << output;
  EXPECT_EQ(check[0], kReferee);
  const RunResult c = run(check, std::chrono::seconds(90));
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(contains(c.output, "The bot conforms.")) << c.output;

  const std::vector<std::string> tournament = next_command(output, "tournament.txtpb");
  ASSERT_EQ(tournament.size(), 3u) << output;
  const RunResult t = run(tournament, std::chrono::seconds(100));
  EXPECT_EQ(t.exit_code, 0) << t.output;

  std::vector<std::string> sprt = next_command(output, "sprt.txtpb");
  ASSERT_EQ(sprt.size(), 3u) << output;
  sprt.insert(sprt.end(), {"--sprt-max-pairs", "1", "-q"});
  const RunResult s = run(sprt, std::chrono::seconds(60));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(contains(s.output, "SPRT")) << s.output;
}

TEST(NewBot, PythonBotChecksAndPlays) {
  const auto [r, dir] = new_bot("py");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(read_file(dir + "/bot.py"), "run(First, \"my_py_bot\", \"1.0\")"));
  EXPECT_EQ(read_file(dir + "/old/bot.py"), read_file(dir + "/bot.py"));
  EXPECT_TRUE(contains(read_file(dir + "/tournament.txtpb"), "/python/run_bot\""));
  EXPECT_TRUE(contains(read_file(dir + "/sprt.txtpb"), "copy the current"));
  expect_checks_and_plays(r.output);
}

TEST(NewBot, JavaScriptBotChecksAndPlays) {
  const auto [r, dir] = new_bot("js");
  if (r.exit_code == 1 && contains(r.output, "no JavaScript kit"))
    GTEST_SKIP() << "this build has no JavaScript kit (node and sdk/js/node_modules):\n"
                 << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(read_file(dir + "/bot.js"), "run(First, \"my_js_bot\", \"1.0\")"));
  EXPECT_TRUE(contains(read_file(dir + "/tournament.txtpb"), "read_only_dirs: \""));
  expect_checks_and_plays(r.output);
}

// The SDK installed into a temporary prefix (as the sdk_install test does), the scaffold's
// build.sh builds the bot and its old copy against it, and the bot then checks and plays.
TEST(NewBot, CppBotBuildsAgainstTheInstalledSdk) {
  const auto [r, dir] = new_bot("cpp");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(read_file(dir + "/CMakeLists.txt"), "find_package(allfives REQUIRED)"));
  EXPECT_TRUE(contains(read_file(dir + "/main.cpp"), "{\"my_cpp_bot\", \"1.0\"}"));
  const std::vector<std::string> build_sh = next_command(r.output, "build.sh");
  ASSERT_EQ(build_sh, std::vector<std::string>{dir + "/build.sh"}) << r.output;

  const std::string prefix = temp_dir("new-bot-cpp-sdk");
  const RunResult install = run({"/usr/bin/env", "cmake", "--install", kBuild, "--prefix", prefix});
  ASSERT_EQ(install.exit_code, 0) << install.output;
  const RunResult built =
      run({"/usr/bin/env", "ALLFIVES_SDK=" + prefix, build_sh[0]}, std::chrono::seconds(110));
  ASSERT_EQ(built.exit_code, 0) << built.output;
  EXPECT_TRUE(fs::exists(dir + "/old/build/bot"));
  expect_checks_and_plays(r.output);
}

// The referee, its sample bots and the Python runner copied into a folder of their own, a
// scaffold made beside them, and the whole folder renamed: the files name the build relative to
// themselves, so the tournament still finds every program.
TEST(NewBot, TheBuildAndTheScaffoldMovedTogetherStillPlay) {
  const std::string base = temp_dir("new-bot-move");
  for (const char* part :
       {"referee/referee", "sample_bots/greedy_bot", "sample_bots/random_bot", "python/run_bot"}) {
    fs::create_directories(fs::path(base + "/a/build/" + part).parent_path());
    fs::copy_file(kBuild + "/" + part, base + "/a/build/" + part);
  }
  const RunResult r =
      run({base + "/a/build/referee/referee", "new-bot", "--lang", "py", base + "/a/bot"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string tournament = read_file(base + "/a/bot/tournament.txtpb");
  EXPECT_FALSE(contains(tournament, base + "/a/build")) << tournament;
  fs::rename(base + "/a", base + "/b");
  // Unsandboxed: the copied runner imports the SDK from the real build, which a sandbox hides.
  const RunResult t =
      run({base + "/b/build/referee/referee", "tournament", base + "/b/bot/tournament.txtpb",
           "--out", base + "/out", "-q", "--no-sandbox"},
          std::chrono::seconds(100));
  EXPECT_EQ(t.exit_code, 0) << t.output;
  EXPECT_TRUE(contains(read_file(base + "/out/standings.txt"), "bot")) << t.output;
}

TEST(NewBot, RefusesAFolderThatIsNotEmpty) {
  const std::string dir = temp_dir("new-bot-full");
  { std::ofstream(dir + "/notes.txt") << "mine\n"; }
  const RunResult r = run({kReferee, "new-bot", "--lang", "py", dir});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, dir + " is not empty; give a new or empty folder")) << r.output;
  EXPECT_EQ(read_file(dir + "/notes.txt"), "mine\n");
  EXPECT_FALSE(fs::exists(dir + "/bot.py"));

  const RunResult lang = run({kReferee, "new-bot", "--lang", "rust", dir + "/x"});
  EXPECT_EQ(lang.exit_code, 2) << lang.output;
  EXPECT_TRUE(contains(lang.output, "--lang")) << lang.output;
  const RunResult help = run({kReferee, "new-bot", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_TRUE(contains(help.output, "sprt.txtpb")) << help.output;
}

}  // namespace
}  // namespace allfives::e2e
