#include "cli/new_bot_command.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// The guide's first bots (sdk/README.md), with the bot's name put in for @NAME@.
constexpr const char* kPythonBot =
    R"("""@NAME@: plays the play that scores the most right now, else the first legal play."""
import sys

from allfives_bot import Bot, run


class First(Bot):
    def choose_play(self, view, clock):
        points = [view.points_after(play) for play in view.legal_plays]
        return points.index(max(points))  # an index into view.legal_plays


if __name__ == "__main__":
    sys.exit(run(First, "@NAME@", "1.0"))
)";

constexpr const char* kJsBot =
    R"(// @NAME@: plays the play that scores the most right now, else the first legal play.
const { Bot, run } = require("allfives_bot");

class First extends Bot {
  choose_play(view, clock) {
    const points = view.legal_plays.map((play) => view.points_after(play));
    return points.indexOf(Math.max(...points));  // an index into view.legal_plays
  }
}

run(First, "@NAME@", "1.0");
)";

constexpr const char* kCppBot =
    R"(// @NAME@: plays the play that scores the most right now, else the first legal play.
#include <memory>

#include <allfives/bot/bot.h>

class First final : public allfives::bot::Bot {
 public:
  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    allfives::Play best = view.legal_plays()[0];
    for (const allfives::Play& play : view.legal_plays())
      if (view.points_after(play) > view.points_after(best)) best = play;
    return best;
  }
};

int main(int argc, char** argv) {
  return allfives::bot::run(argc, argv, {"@NAME@", "1.0"}, [](const allfives::bot::MatchInfo&) {
    return std::make_unique<First>();
  });
}
)";

constexpr const char* kCMakeLists = R"(cmake_minimum_required(VERSION 3.25)
project(bot CXX)
find_package(allfives REQUIRED)
add_executable(bot main.cpp)
target_link_libraries(bot PRIVATE allfives::bot)
)";

constexpr const char* kBuildSh = R"sh(#!/bin/sh
# Builds the bot into build/bot and its previous version (old/) into old/build/bot against the
# installed SDK: ALLFIVES_SDK, else the prefix below (sdk/README.md, "A first bot in C++").
set -e
cd "$(dirname "$0")"
sdk="${ALLFIVES_SDK:-@SDK@}"
generator=""
if command -v ninja >/dev/null; then generator="-G Ninja"; fi
for project in . old; do
  cmake -S "$project" -B "$project/build" $generator -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$sdk"
  cmake --build "$project/build"
done
)sh";

// `text` with every `key` replaced by `value`.
std::string replaced(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

// DIR's last component as the tournament files accept a bot's name (1-32 characters of
// A-Z a-z 0-9 . _ + - @, starting with a letter or digit), never one of the other bots' names.
std::string bot_name(const fs::path& dir) {
  std::string name;
  for (const char c : dir.filename().string()) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (name.empty() && !alnum) continue;
    name += alnum || std::string("._+-@").find(c) != std::string::npos ? c : '_';
  }
  name = name.substr(0, 32);
  if (name.empty()) name = "bot";
  if (name == "greedy" || name == "random" || name == "new" || name == "old") name += "_bot";
  return name;
}

// `word` as the shell reads it back unchanged.
std::string sh(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_./+-@:=,") == std::string::npos)
    return word;
  return "'" + replaced(word, "'", "'\\''") + "'";
}

// `s` as a string of protobuf's text format.
std::string pb(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// How the referee starts one bot: the entry of a tournament file, and its words for check-bot.
struct Launch {
  std::string command;
  std::vector<std::string> args;  // paths relative to DIR, as the tournament files read them
  std::vector<std::string> read_only;
};

std::string entry(const std::string& name, const Launch& l, bool candidate) {
  std::string out = "bots {\n  name: " + pb(name) + (candidate ? "\n  candidate: true" : "") +
                    "\n  command: " + pb(l.command);
  for (const std::string& a : l.args) out += "\n  args: " + pb(a);
  for (const std::string& d : l.read_only) out += "\n  read_only_dirs: " + pb(d);
  return out + "\n}\n";
}

// `target` as the scaffold's files name it: relative to the scaffold's folder `dir` (the
// tournament files read a relative path from their own folder), so the build and the scaffold
// can move together; absolute if the two share no folder but the root, so that the scaffold
// alone can move.
std::string from_scaffold(const fs::path& target, const fs::path& dir) {
  auto t = target.begin();
  int shared = 0;
  for (auto d = dir.begin(); d != dir.end() && t != target.end() && *d == *t; ++d, ++t) ++shared;
  return shared > 1 ? target.lexically_relative(dir).string() : target.string();
}

// What the scaffold's tournament files are written from.
struct Scaffold {
  fs::path dir, referee, build;
  std::string name, file;
  bool cpp = false;
  Launch bot, old;
};

// How to run `file` (a tournament file of the scaffold) from the scaffold's folder.
std::string run_line(const Scaffold& sc, const std::string& file) {
  const std::string referee = from_scaffold(sc.referee, sc.dir);
  return "#   " + sh(referee) + " tournament " +
         (fs::path(referee).is_absolute() ? sh((sc.dir / file).string()) : file) + "\n";
}

std::string tournament_text(const Scaffold& sc) {
  const std::string sample = from_scaffold(sc.build / "sample_bots", sc.dir);
  return "# " + sc.name + " against the sample bots: a gauntlet of matches in both seats. In " +
         "this folder:\n" + run_line(sc, "tournament.txtpb") +
         "# Logs and standings go to out/tournament; a second run needs --out ANOTHER_FOLDER.\n" +
         "name: " + pb(sc.name) + "\nformat: FORMAT_TWO_PLAYERS\n" + entry(sc.name, sc.bot, true) +
         entry("greedy", {sample + "/greedy_bot", {}, {}}, false) +
         entry("random", {sample + "/random_bot", {}, {}}, false) +
         "matches_per_pairing: 20\nout_dir: " + pb((sc.dir / "out/tournament").string()) + "\n";
}

std::string sprt_text(const Scaffold& sc) {
  const std::string sample = from_scaffold(sc.build / "sample_bots", sc.dir);
  const std::string copy = sc.cpp ? "cp main.cpp old/ && ./build.sh" : "cp " + sc.file + " old/";
  return "# Is the bot stronger than its previous version? Before changing it, copy the current\n"
         "# version into old/ (" +
         copy + "), then change it and run in this folder\n" + run_line(sc, "sprt.txtpb") +
         "# \"new\" (this folder's bot) plays \"old\" (old/) in mirrored pairs until the SPRT "
         "decides\n"
         "# between H0 \"no better than nElo 0\" and H1 \"better by nElo 10\"; greedy plays for\n"
         "# information only. Results go to out/sprt; a second run needs --out ANOTHER_FOLDER.\n" +
         "name: " + pb(sc.name + "-sprt") + "\nformat: FORMAT_TWO_PLAYERS\n" +
         entry("new", sc.bot, true) + entry("old", sc.old, false) +
         entry("greedy", {sample + "/greedy_bot", {}, {}}, false) +
         "sprt { elo0: 0 elo1: 10 alpha: 0.05 beta: 0.05 max_pairs: 10000 against: \"old\" }\n" +
         "out_dir: " + pb((sc.dir / "out/sprt").string()) + "\n";
}

// The first of `prefixes` holding the installed SDK's CMake package, else "".
std::string installed_sdk(const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes)
    if (!p.empty() && fs::exists(fs::path(p) / "lib/cmake/allfives/allfivesConfig.cmake")) return p;
  return "";
}

// The kit's npm packages that `run_bot` puts on NODE_PATH from the source tree, else the source
// tree's beside the build; "" if neither exists.
std::string node_modules(const fs::path& run_bot, const fs::path& build) {
  std::ifstream in(run_bot);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("NODE_PATH=\"", 0) != 0) continue;
    std::istringstream paths(line.substr(11, line.rfind('"') - 11));
    for (std::string p; std::getline(paths, p, ':');)
      if (p.ends_with("sdk/js/node_modules") && fs::is_directory(p)) return p;
  }
  const fs::path beside = (build / "../sdk/js/node_modules").lexically_normal();
  return fs::is_directory(beside) ? beside.string() : "";
}

struct NewBotFlags {
  std::string lang;
  std::string dir;
};

// Writes `text` to `path`; false after saying why.
bool write(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (out) return true;
  std::cerr << "referee new-bot: cannot write " << path.string() << ": " << std::strerror(errno)
            << "\n";
  return false;
}

// DIR made absolute; 0 if it is a new or empty folder, else 2 after saying why.
int check_folder(const std::string& given, fs::path& dir) {
  fs::path p = fs::absolute(given).lexically_normal();
  dir = p.has_filename() ? p : p.parent_path();
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    std::cerr << "referee new-bot: " << dir.string()
              << " is a file, not a folder; give the path of a new folder for the bot\n";
    return 2;
  }
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec)) {
    std::cerr << "referee new-bot: " << dir.string()
              << " is not empty; give a new or empty folder, so that nothing in it is "
                 "overwritten\n";
    return 2;
  }
  return 0;
}

// The language's file, its name in words, and how the bot and its old version are started;
// false after saying why the build lacks the language's kit.
struct LanguagePlan {
  std::string file, name;
  Launch bot, old;
  std::vector<std::string> notes;
};
bool plan_language(const std::string& lang, const fs::path& build, const fs::path& dir,
                   LanguagePlan& l) {
  if (lang == "py") {
    l.name = "Python", l.file = "bot.py";
    const fs::path runner = build / "python/run_bot";
    l.bot.command = fs::exists(runner) ? from_scaffold(runner, dir) : "/usr/bin/python3";
    if (!fs::exists(runner))
      l.notes.push_back("No " + runner.string() +
                        " beside this referee: the files run /usr/bin/python3, which needs the "
                        "SDK installed (sdk/README.md, \"A first bot in Python\"); from a virtual "
                        "environment, put its python3 in the files' command and its folder in "
                        "read_only_dirs.");
  } else if (lang == "js") {
    l.name = "JavaScript", l.file = "bot.js";
    const fs::path runner = build / "js/run_bot";
    const std::string modules = node_modules(runner, build);
    if (!fs::exists(runner) || modules.empty()) {
      std::cerr << "referee new-bot: this build has no JavaScript kit ("
                << (fs::exists(runner) ? "the source tree's sdk/js/node_modules is missing"
                                       : runner.string() + " is missing")
                << "); install nodejs and npm and build again (bash scripts/setup.sh)\n";
      return false;
    }
    l.bot.command = from_scaffold(runner, dir);
    l.bot.read_only = {from_scaffold(modules, dir)};
  } else {
    l.name = "C++", l.file = "main.cpp";
  }
  l.old = l.bot;
  if (lang == "cpp") {
    l.bot.command = "./build/bot", l.old.command = "./old/build/bot";
  } else {
    l.bot.args = {"./" + l.file}, l.old.args = {"./old/" + l.file};
  }
  return true;
}

// A C++ bot's project files and build script; false after saying why.
bool write_cpp_project(const fs::path& dir, const fs::path& build, LanguagePlan& l) {
  const char* home = std::getenv("HOME");
  const std::string sdk =
      installed_sdk({home ? std::string(home) + "/allfives-sdk" : "", "/usr/local", "/usr"});
  const bool ok = write(dir / "CMakeLists.txt", kCMakeLists) &&
                  write(dir / "old/CMakeLists.txt", kCMakeLists) &&
                  write(dir / "build.sh",
                        replaced(kBuildSh, "@SDK@", sdk.empty() ? "$HOME/allfives-sdk" : sdk));
  std::error_code ec;
  fs::permissions(dir / "build.sh",
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  if (sdk.empty())
    l.notes.push_back(
        "The C++ SDK is not installed where build.sh looks ($HOME/allfives-sdk); "
        "install it once with: cmake --install " +
        sh(build.string()) + " --prefix \"$HOME/allfives-sdk\"");
  return ok;
}

// What was written, and the next three commands.
void print_summary(const Scaffold& sc, const LanguagePlan& l, bool cpp) {
  const fs::path& dir = sc.dir;
  const std::string r = sh(sc.referee.string());
  auto row = [](const std::string& file, const std::string& what) {
    std::cout << "  " << file << std::string(file.size() < 18 ? 18 - file.size() : 1, ' ') << what
              << "\n";
  };
  std::cout << "Wrote a " << l.name << " bot \"" << sc.name << "\" into " << dir.string() << ":\n";
  row(l.file, "the bot: plays the play that scores the most right now");
  row("old/" + l.file, "its previous version, the \"old\" of sprt.txtpb");
  if (cpp) {
    row("CMakeLists.txt", "its project, built against the installed SDK (also in old/)");
    row("build.sh", "builds build/bot and old/build/bot");
  }
  row("tournament.txtpb", sc.name + " against the sample bots greedy and random");
  row("sprt.txtpb", "an SPRT of " + sc.name + " (\"new\") against old/ (\"old\")");
  for (const std::string& n : l.notes) std::cout << n << "\n";
  std::cout << "Next:\n";
  if (cpp) std::cout << "  " << sh((dir / "build.sh").string()) << "\n";
  std::cout << "  " << r << " check-bot";
  for (const std::string& ro : l.bot.read_only)
    std::cout << " --read-only " << sh((dir / ro).lexically_normal().string());
  std::cout << " " << sh((dir / fs::path(l.bot.command)).lexically_normal().string());
  for (const std::string& a : l.bot.args)
    std::cout << " " << sh((dir / a).lexically_normal().string());
  std::cout << "\n  " << r << " tournament " << sh((dir / "tournament.txtpb").string()) << "\n"
            << "  " << r << " tournament " << sh((dir / "sprt.txtpb").string()) << "\n";
}

int new_bot(const NewBotFlags& f) {
  fs::path dir;
  if (const int bad = check_folder(f.dir, dir)) return bad;
  // The build this referee belongs to holds the runners and the sample bots.
  std::error_code ec;
  const fs::path referee = fs::read_symlink("/proc/self/exe", ec);
  const fs::path build = referee.parent_path().parent_path();
  const std::string name = bot_name(dir);
  LanguagePlan l;
  if (!plan_language(f.lang, build, dir, l)) return 1;
  const bool cpp = f.lang == "cpp";
  const Scaffold sc{dir, referee, build, name, l.file, cpp, l.bot, l.old};
  const std::string source = replaced(f.lang == "py"   ? kPythonBot
                                      : f.lang == "js" ? kJsBot
                                                       : kCppBot,
                                      "@NAME@", name);
  if (!fs::create_directories(dir / "old", ec) && ec) {
    std::cerr << "referee new-bot: cannot make the folder " << (dir / "old").string() << ": "
              << ec.message() << "\n";
    return 1;
  }
  const bool ok = write(dir / l.file, source) && write(dir / "old" / l.file, source) &&
                  write(dir / "tournament.txtpb", tournament_text(sc)) &&
                  write(dir / "sprt.txtpb", sprt_text(sc)) &&
                  (!cpp || write_cpp_project(dir, build, l));
  if (!ok) return 1;
  print_summary(sc, l, cpp);
  return 0;
}

}  // namespace

void add_new_bot_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<NewBotFlags>();
  CLI::App* cmd = app.add_subcommand(
      "new-bot",
      "Write a first bot into DIR (a new or empty folder), ready to play: the bot of the guide\n"
      "(sdk/README.md; it plays the play that scores the most right now), named after DIR,\n"
      "with what runs or builds it; tournament.txtpb, the bot against the sample bots; and\n"
      "sprt.txtpb, an SPRT of the bot against its previous version, kept in DIR/old/. Then\n"
      "prints the commands that check the bot and play both files.\n"
      "Exit status: 0 written; 1 a file could not be written, or this build lacks the\n"
      "language's kit; 2 a mistake in the command line, or DIR is not empty.");
  cmd->add_option("--lang", f->lang,
                  "The bot's language: py (Python), cpp (C++) or js (JavaScript)")
      ->required()
      ->check(CLI::IsMember({"py", "cpp", "js"}));
  cmd->add_option("dir", f->dir, "The folder to write (made if missing; refused if not empty)")
      ->required();
  cmd->callback([f, &exit_code] { exit_code = new_bot(*f); });
}

}  // namespace allfives::referee
