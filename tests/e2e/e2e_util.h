// Helpers for end-to-end tests: run the real referee binary, read its match logs, and
// re-check a log against the rules core.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "allfives/v1/log.pb.h"

namespace allfives::e2e {

// The programs the suites run, as the build gives their paths (tests/CMakeLists.txt): each
// suite defines the macros of those it uses.
#ifdef ALLFIVES_REFEREE
inline const std::string kReferee = ALLFIVES_REFEREE;
#endif
#ifdef ALLFIVES_GREEDY_BOT
inline const std::string kGreedy = ALLFIVES_GREEDY_BOT;
#endif
#ifdef ALLFIVES_RANDOM_BOT
inline const std::string kRandom = ALLFIVES_RANDOM_BOT;
#endif
#ifdef ALLFIVES_STRONG_BOT
inline const std::string kStrong = ALLFIVES_STRONG_BOT;
#endif
#ifdef ALLFIVES_GREEDY_PY
inline const std::string kGreedyPy = ALLFIVES_GREEDY_PY;  // "" where Python bots are not built
#endif
#ifdef ALLFIVES_MISBEHAVING_BOT
inline const std::string kBadBot = ALLFIVES_MISBEHAVING_BOT;  // tests/bots/misbehaving_bot.cpp
#endif
#ifdef ALLFIVES_HOSTILE_BOT
inline const std::string kHostile = ALLFIVES_HOSTILE_BOT;  // tests/bots/hostile_bot.cpp
#endif
#ifdef ALLFIVES_PARTNER_BOT
inline const std::string kPartnerBot = ALLFIVES_PARTNER_BOT;  // tests/bots/partner_bot.cpp
#endif
#ifdef ALLFIVES_ZIP_BOMB_BOT
inline const std::string kZipBomb = ALLFIVES_ZIP_BOMB_BOT;  // tests/bots/zip_bomb_bot.cpp
#endif

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct RunResult {
  int exit_code = -1;  // -1 if it did not exit by itself (killed at the deadline)
  std::string output;  // stdout and stderr together
};

// Runs `argv` (argv[0] a path) with a deadline; a run past the deadline is killed and fails
// the test.
RunResult run(const std::vector<std::string>& argv,
              std::chrono::milliseconds deadline = std::chrono::seconds(60));

// The same with the program's standard output and error on a pseudo-terminal (as a person at
// a terminal sees it: a progress line redrawn in place); output holds every byte written.
RunResult run_in_terminal(const std::vector<std::string>& argv,
                          std::chrono::milliseconds deadline = std::chrono::seconds(60));

// A fresh empty folder for one test, removed at the end of the test program.
std::string temp_dir(const std::string& name);
// A folder holding only a file that lists `targets`, one per line; returns the file's path.
// (Given as arguments, the targets' folders would be readable: the sandbox lets a bot read
// the folder of every path among its arguments.)
std::string targets_file(const std::string& name, const std::vector<std::string>& targets);

// A whole file as text ("" if it cannot be read).
std::string read_file(const std::string& path);

// A tournament folder's index as comparable text: sorted by ordinal, without the wall-clock
// durations and decision times; fails the test if it cannot be read cleanly.
std::string normalized_index(const std::string& out_dir);

// Every line of a log as a record. Each line must parse strictly (unknown fields fail).
std::vector<v1::LogRecord> read_log(const std::string& path);

// Replays the log's plays with the rules core from its header's seed and checks that every
// deal, play, draw, pass, score, hand end and the match end agree with the rules.
void expect_log_follows_rules(const std::vector<v1::LogRecord>& log);

// Everything the bot of `seat` printed in the match as its log keeps it: the output of each of
// its decisions (plays, then the fault's), then its bot_output record. A negative seat: every
// seat's.
std::string printed_by(const std::vector<v1::LogRecord>& log, int seat);

// The single record of a kind (fails the test if there is not exactly one).
const v1::LogRecord& only(const std::vector<v1::LogRecord>& log, v1::LogRecord::KindCase kind);

// Whether a process group still has members.
bool group_alive(int pgid);
// Waits up to `limit` for every group in `pgids` to be gone.
bool wait_groups_gone(const std::vector<int>& pgids, std::chrono::milliseconds limit);

// What one `referee match` run gave: its exit and output, and its parsed log.
struct PlayedMatch {
  RunResult run;
  std::vector<v1::LogRecord> log;
  std::string log_path;  // the log's file
};

// Runs `referee match --seed 7` (the program `referee`) in a fresh folder named after `name`,
// with the given time limits, then `extra` flags, then the bots; returns the run and its log.
PlayedMatch play_match(const std::string& referee, const std::string& name,
                       const std::vector<std::string>& bots, int move_time_ms, int time_bank_ms,
                       const std::vector<std::string>& extra = {});

}  // namespace allfives::e2e
