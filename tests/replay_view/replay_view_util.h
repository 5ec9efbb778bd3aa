// Shared by the `referee replay` end-to-end tests: the logs of sample-bot matches, what each
// step of them must show (followed from the records alone, without the replay code under
// test), and running `referee replay` with its output captured.
#pragma once

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "allfives/core/types.h"
#include "e2e/e2e_util.h"

namespace allfives::e2e::replay_view {

inline const std::string kReferee = ALLFIVES_REFEREE;
inline const std::string kGreedy = ALLFIVES_GREEDY_BOT;
inline const std::string kRandom = ALLFIVES_RANDOM_BOT;
inline const std::string kBadBot = ALLFIVES_MISBEHAVING_BOT;
inline const std::string kArtifacts = ALLFIVES_REPLAY_VIEW_OUT;  // the screenshot is kept here

// ---------------------------------------------------------------------------------------
// The logs, and what each step of them must show, followed from the records alone.

struct Logged {
  std::string path;
  std::vector<v1::LogRecord> records;  // every line, the header first
};

// One match of the sample bots per format, played once per test program.
inline const Logged& logged(const std::string& format) {
  static std::map<std::string, Logged> cache;
  auto it = cache.find(format);
  if (it != cache.end()) return it->second;
  const std::string dir = temp_dir("match-" + format);
  Logged l;
  l.path = dir + "/match.jsonl";
  std::vector<std::string> argv = {kReferee,         "match", "--seed",         "7",
                                   "--format",       format,  "--move-time-ms", "2000",
                                   "--time-bank-ms", "5000",  "--log",          l.path};
  if (format == "fault")  // seat 0 answers its third decision with a tile it does not hold
    argv = {kReferee,
            "match",
            "--seed",
            "7",
            "--move-time-ms",
            "2000",
            "--time-bank-ms",
            "5000",
            "--log",
            l.path,
            "bad=" + kBadBot + " --mode illegal --at 3",
            "random=" + kRandom};
  else if (format == "3p")
    argv.insert(argv.end(), {"greedy=" + kGreedy, "random=" + kRandom, "greedy2=" + kGreedy});
  else
    argv.insert(argv.end(), {"greedy=" + kGreedy, "random=" + kRandom});
  const RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  l.records = read_log(l.path);
  return cache.emplace(format, std::move(l)).first->second;
}

inline Tile tile(const v1::Tile& t) {
  return Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low()));
}
inline TileSet tiles(const google::protobuf::RepeatedPtrField<v1::Tile>& ts) {
  TileSet s;
  for (const auto& t : ts) s.add(tile(t));
  return s;
}

struct Step {
  int line = 0;  // 1-based log line
  v1::LogRecord::KindCase kind = v1::LogRecord::KIND_NOT_SET;
  int hand = 0;
  int plays = 0;  // plays in the hand so far
  std::vector<int> scores;
  std::optional<v1::LogPlay> last_play;  // the hand's last play so far
  std::array<TileSet, kMaxPlayers> hands{};
  TileSet boneyard;
  std::vector<Tile> played;  // this hand's tiles on the line, in play order
  bool revealed = false;     // the hand has ended: its hands are public
  int fault_seat = -1;       // a fault: the seat at fault
};

// The steps `referee replay` shows: every record but the header and the bots' output.
inline std::vector<Step> steps_of(const std::vector<v1::LogRecord>& log) {
  std::vector<Step> out;
  Step s;
  for (size_t i = 0; i < log.size(); ++i) {
    const v1::LogRecord& r = log[i];
    s.line = static_cast<int>(i) + 1;
    s.kind = r.kind_case();
    switch (r.kind_case()) {
      case v1::LogRecord::kHandStart: {
        const auto& h = r.hand_start();
        s.hand = static_cast<int>(h.hand_index());
        s.plays = 0;
        s.scores.assign(h.scores().begin(), h.scores().end());
        s.last_play.reset();
        s.hands = {};
        for (const auto& st : h.hands()) s.hands[st.seat()] = tiles(st.tiles());
        s.boneyard = tiles(h.boneyard());
        s.played.clear();
        s.revealed = false;
        break;
      }
      case v1::LogRecord::kPlay: {
        const auto& p = r.play();
        ++s.plays;
        s.scores[p.side()] = static_cast<int>(p.side_score());
        s.last_play = p;
        s.hands[p.seat()].remove(tile(p.play().tile()));
        s.played.push_back(tile(p.play().tile()));
        break;
      }
      case v1::LogRecord::kDraw:
        for (const auto& t : r.draw().tiles()) {
          s.hands[r.draw().seat()].add(tile(t));
          s.boneyard.remove(tile(t));
        }
        break;
      case v1::LogRecord::kHandEnd:
        s.scores.assign(r.hand_end().scores().begin(), r.hand_end().scores().end());
        s.revealed = true;
        break;
      case v1::LogRecord::kMatchEnd:
        s.scores.assign(r.match_end().scores().begin(), r.match_end().scores().end());
        break;
      case v1::LogRecord::kFault:
        s.fault_seat = static_cast<int>(r.fault().seat());
        break;
      case v1::LogRecord::kPass:
        break;
      default:
        continue;  // header, bot output
    }
    out.push_back(s);
  }
  return out;
}

inline std::string join(const std::vector<int>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a shell command line (for redirections) with a deadline.
inline RunResult sh(const std::string& command,
                    std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  return run({"/bin/sh", "-c", command}, deadline);
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `referee replay ARGS` with its standard output (not a terminal) in a file; returns it.
inline std::string replay_output(const std::vector<std::string>& args, int expect_exit = 0) {
  static int count = 0;
  const std::string out = temp_dir("replay-out-" + std::to_string(++count)) + "/out.txt";
  std::string command = quote(kReferee) + " replay";
  for (const auto& a : args) {
    command += ' ';
    command += quote(a);
  }
  const RunResult r = sh(command + " > " + quote(out));
  EXPECT_EQ(r.exit_code, expect_exit) << command << "\n" << r.output;
  return read_file(out);
}

// A printed replay cut into frames, each starting at its "── ... ──" rule.
struct PrintedFrame {
  int log_line = 0;
  std::string rule;
  std::string text;
};
inline std::vector<PrintedFrame> frames_of(const std::string& output) {
  std::vector<PrintedFrame> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("── ", 0) == 0) {
      PrintedFrame f;
      f.rule = line;
      const size_t at = line.find("log line ");
      if (at != std::string::npos) f.log_line = std::atoi(line.c_str() + at + 9);
      out.push_back(f);
    } else if (!out.empty()) {
      out.back().text += line + "\n";
    }
  }
  return out;
}

// Whether `text` names tile t: "6-4" (not inside a longer number) or drawn as [6|4] / [4|6],
// or a double drawn crosswise.
inline bool names_tile(const std::string& text, Tile t) {
  const std::string hi = std::to_string(t.hi()), lo = std::to_string(t.lo());
  const std::string name = hi + "-" + lo;
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool digit_before = at > 0 && std::isdigit(static_cast<unsigned char>(text[at - 1]));
    const bool digit_after = at + name.size() < text.size() &&
                             std::isdigit(static_cast<unsigned char>(text[at + name.size()]));
    if (!digit_before && !digit_after) return true;
  }
  if (text.find("[" + hi + "|" + lo + "]") != std::string::npos ||
      text.find("[" + lo + "|" + hi + "]") != std::string::npos)
    return true;
  return t.is_double() && text.find("┌" + hi + "┐") != std::string::npos;
}

}  // namespace allfives::e2e::replay_view
