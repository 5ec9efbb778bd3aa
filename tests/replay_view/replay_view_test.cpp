// End-to-end tests of `referee replay`: the real referee binary plays matches between the
// sample bots, then shows their logs in the terminal (--print, --seat, --hand/--play, colour,
// interactive keys in a pseudo-terminal) and as an HTML page loaded in headless Chromium.
// Every check compares what is shown with the log's own records, followed here without the
// replay code under test.
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

namespace allfives::e2e {
namespace {

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kGreedy = ALLFIVES_GREEDY_BOT;
const std::string kRandom = ALLFIVES_RANDOM_BOT;
const std::string kBadBot = ALLFIVES_MISBEHAVING_BOT;
const std::string kArtifacts = ALLFIVES_REPLAY_VIEW_OUT;  // the screenshot is kept here

// ---------------------------------------------------------------------------------------
// The logs, and what each step of them must show, followed from the records alone.

struct Logged {
  std::string path;
  std::vector<v1::LogRecord> records;  // every line, the header first
};

// One match of the sample bots per format, played once per test program.
const Logged& logged(const std::string& format) {
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

Tile tile(const v1::Tile& t) {
  return Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low()));
}
TileSet tiles(const google::protobuf::RepeatedPtrField<v1::Tile>& ts) {
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
std::vector<Step> steps_of(const std::vector<v1::LogRecord>& log) {
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

std::string join(const std::vector<int>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a shell command line (for redirections) with a deadline.
RunResult sh(const std::string& command,
             std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  return run({"/bin/sh", "-c", command}, deadline);
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `referee replay ARGS` with its standard output (not a terminal) in a file; returns it.
std::string replay_output(const std::vector<std::string>& args, int expect_exit = 0) {
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
std::vector<PrintedFrame> frames_of(const std::string& output) {
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
bool names_tile(const std::string& text, Tile t) {
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

// ---------------------------------------------------------------------------------------
// The terminal printer

TEST(ReplayPrint, EveryPlayWithItsCountAndPointsThenTheFinalScores) {
  for (const std::string format : {"2p", "partners"}) {
    SCOPED_TRACE(format);
    const Logged& l = logged(format);
    const std::string out = replay_output({l.path, "--print"});
    // In log order, each play's words with its count and what it scored.
    size_t at = 0;
    int plays = 0;
    bool opening = false;
    for (const auto& r : l.records) {
      if (r.has_hand_start()) opening = true;
      if (!r.has_play()) continue;
      const auto& p = r.play();
      const std::string words =
          (opening ? "opens with " : "plays ") + to_string(tile(p.play().tile())) +
          (opening                           ? ""
           : p.play().end() == v1::END_RIGHT ? " on the right"
                                             : " on the left") +
          ": count " + std::to_string(p.count()) + ", " +
          (p.points() ? "scores " + std::to_string(p.points()) : std::string("no score"));
      opening = false;
      const size_t found = out.find(words, at);
      ASSERT_NE(found, std::string::npos)
          << "play " << plays << " (" << words << ") missing after offset " << at;
      at = found + words.size();
      ++plays;
    }
    EXPECT_GT(plays, 20);
    // The running scores after every step, and the final scores.
    const std::vector<Step> steps = steps_of(l.records);
    const std::vector<PrintedFrame> frames = frames_of(out);
    ASSERT_EQ(frames.size(), steps.size());
    const auto& end = only(l.records, v1::LogRecord::kMatchEnd).match_end();
    for (size_t i = 0; i < steps.size(); ++i) {
      EXPECT_EQ(frames[i].log_line, steps[i].line) << frames[i].rule;
      // "  scores: NAME 25 · NAME 10  (target 250)": the numbers in side order.
      const size_t line_at = frames[i].text.find("  scores: ");
      ASSERT_NE(line_at, std::string::npos) << frames[i].rule;
      const std::string line =
          frames[i].text.substr(line_at, frames[i].text.find('\n', line_at) - line_at);
      // "  scores: A 25 · B 10  (target 250)": the last word of each side's part.
      const std::string body = line.substr(10, line.find("  (target") - 10);
      std::vector<int> shown;
      for (size_t from = 0;;) {
        const size_t sep = body.find(" · ", from);
        const std::string part = body.substr(from, sep - from);
        shown.push_back(std::atoi(part.substr(part.rfind(' ') + 1).c_str()));
        if (sep == std::string::npos) break;
        from = sep + std::string(" · ").size();
      }
      EXPECT_EQ(shown, steps[i].scores) << frames[i].rule << "\n" << line;
    }
    std::string final_line = "final scores: ";
    EXPECT_NE(out.find(final_line), std::string::npos);
    const std::string last = frames.back().text;
    for (uint32_t s : end.scores())
      EXPECT_NE(last.find(" " + std::to_string(s)), std::string::npos);
    EXPECT_NE(last.find("winner: "), std::string::npos) << last;
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no colour when stdout is not a terminal";
  }
}

TEST(ReplayPrint, ColourOnlyWhenAskedOrOnATerminal) {
  const Logged& l = logged("2p");
  EXPECT_NE(replay_output({l.path, "--print", "--color=always"}).find("\x1b["), std::string::npos);
  EXPECT_EQ(replay_output({l.path, "--print", "--color=never"}).find('\x1b'), std::string::npos);
  EXPECT_EQ(replay_output({l.path, "--color=auto"}).find('\x1b'), std::string::npos);
}

TEST(ReplayPrint, HandEndsShowTheirScoring) {
  const Logged& l = logged("partners");
  const std::string out = replay_output({l.path, "--print"});
  for (const auto& r : l.records) {
    if (!r.has_hand_end()) continue;
    const auto& he = r.hand_end();
    const std::string title =
        "Hand " + std::to_string(he.hand_index() + 1) +
        (he.kind() == v1::HAND_END_KIND_DOMINO ? " ends: seat " : " is blocked");
    EXPECT_NE(out.find(title), std::string::npos) << title;
    if (he.winner_side() >= 0) {
      EXPECT_NE(out.find("= " + std::to_string(he.points())), std::string::npos);
    }
  }
}

// --seat S shows only what S could see: every tile named in a frame is S's own, on the line,
// or revealed by the hand's end. Also S's own hand is shown and the others' are counts.
void expect_seat_views_hide_hidden_tiles(const std::string& format, int n, int min_checked) {
  const Logged& l = logged(format);
  const std::vector<Step> steps = steps_of(l.records);
  std::map<int, const Step*> by_line;
  for (const Step& s : steps) by_line[s.line] = &s;
  for (int seat = 0; seat < n; ++seat) {
    SCOPED_TRACE(format + " seat " + std::to_string(seat));
    const std::string out = replay_output({l.path, "--print", "--seat", std::to_string(seat)});
    const std::vector<PrintedFrame> frames = frames_of(out);
    ASSERT_EQ(frames.size(), steps.size());
    int checked_own = 0;
    for (const PrintedFrame& f : frames) {
      ASSERT_TRUE(by_line.count(f.log_line)) << f.rule;
      const Step& s = *by_line[f.log_line];
      TileSet hidden = s.boneyard;
      if (!s.revealed)
        for (int other = 0; other < n; ++other)
          if (other != seat) hidden |= s.hands[other];
      // A seat's own fault quotes its bot's answer, which may name any tile: only the rest
      // of that frame is checked.
      const bool own_fault = s.kind == v1::LogRecord::kFault && s.fault_seat == seat;
      const std::string text = own_fault ? f.text.substr(f.text.find('\n') + 1) : f.text;
      for (Tile t : hidden)
        EXPECT_FALSE(names_tile(text, t)) << "seat " << seat << " sees hidden " << to_string(t)
                                          << " at log line " << f.log_line << ":\n"
                                          << f.rule << "\n"
                                          << f.text;
      if (s.revealed || s.kind == v1::LogRecord::kMatchEnd) continue;
      // Its own row lists its own tiles; the others' rows say hidden.
      const size_t you = f.text.find("(you)");
      ASSERT_NE(you, std::string::npos) << f.text;
      const std::string row = f.text.substr(you, f.text.find('\n', you) - you);
      for (Tile t : s.hands[seat]) EXPECT_TRUE(names_tile(row, t)) << to_string(t) << " in " << row;
      size_t hidden_rows = 0;
      for (size_t at = f.text.find("(hidden)"); at != std::string::npos;
           at = f.text.find("(hidden)", at + 1))
        ++hidden_rows;
      EXPECT_EQ(hidden_rows, static_cast<size_t>(n - 1)) << f.text;
      ++checked_own;
    }
    EXPECT_GE(checked_own, min_checked);
  }
}

TEST(ReplaySeat, NeverShowsATileTheSeatCouldNotSee) {
  expect_seat_views_hide_hidden_tiles("2p", 2, 20);
  expect_seat_views_hide_hidden_tiles("3p", 3, 20);
  expect_seat_views_hide_hidden_tiles("partners", 4, 20);
}

// An illegal play's fault names the faulting bot's hand: only that seat's view shows it.
TEST(ReplaySeat, AFaultsReasonIsShownOnlyToTheSeatAtFault) {
  const Logged& l = logged("fault");
  const auto& fault = only(l.records, v1::LogRecord::kFault).fault();
  ASSERT_EQ(fault.kind(), v1::FAULT_KIND_ILLEGAL_PLAY) << fault.reason();
  const std::string full = replay_output({l.path, "--print"});
  EXPECT_NE(full.find("commits a fault (illegal_play): " + fault.reason()), std::string::npos)
      << full;
  EXPECT_NE(replay_output({l.path, "--print", "--seat", "0"}).find(fault.reason()),
            std::string::npos);
  const std::string other = replay_output({l.path, "--print", "--seat", "1"});
  EXPECT_NE(other.find("commits a fault (illegal_play)\n"), std::string::npos) << other;
  EXPECT_EQ(other.find(fault.reason()), std::string::npos) << other;
  expect_seat_views_hide_hidden_tiles("fault", 2, 1);
}

TEST(ReplaySeat, OtherSeatsDrawsAreCountsOwnDrawsAreTiles) {
  const Logged& l = logged("2p");
  const std::string s0 = replay_output({l.path, "--print", "--seat", "0"});
  int draws = 0;
  for (const auto& r : l.records) {
    if (!r.has_draw()) continue;
    const auto& d = r.draw();
    std::string names;
    for (const auto& t : d.tiles()) {
      if (!names.empty()) names += ' ';
      names += to_string(tile(t));
    }
    const std::string count =
        std::to_string(d.tiles_size()) + (d.tiles_size() == 1 ? " tile" : " tiles");
    if (d.seat() == 0)
      EXPECT_NE(s0.find("draws " + count + ": " + names), std::string::npos) << names;
    else
      EXPECT_NE(s0.find("draws " + count + "\n"), std::string::npos) << count;
    ++draws;
  }
  EXPECT_GT(draws, 0);
}

TEST(ReplayJump, HandAndPlay) {
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  // The third play of hand 2 (hand_index 1).
  int third = 0;
  for (const Step& s : steps)
    if (s.hand == 1 && s.kind == v1::LogRecord::kPlay && s.plays == 3) third = s.line;
  ASSERT_GT(third, 0);
  const std::vector<PrintedFrame> one =
      frames_of(replay_output({l.path, "--print", "--hand", "2", "--play", "3"}));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NE(one[0].rule.find("Hand 2 · play 3 "), std::string::npos) << one[0].rule;
  EXPECT_EQ(one[0].log_line, third);
  // --play 0: the hand's start.
  const std::vector<PrintedFrame> start =
      frames_of(replay_output({l.path, "--print", "--hand", "2", "--play", "0"}));
  ASSERT_EQ(start.size(), 1u);
  EXPECT_NE(start[0].rule.find("Hand 2 · start"), std::string::npos) << start[0].rule;
  // --hand alone: the whole hand, from its start to its end.
  const std::vector<PrintedFrame> hand =
      frames_of(replay_output({l.path, "--print", "--hand", "2"}));
  size_t expected = 0;
  for (const Step& s : steps) expected += s.hand == 1 && s.kind != v1::LogRecord::kMatchEnd;
  ASSERT_EQ(hand.size(), expected);
  EXPECT_NE(hand.front().rule.find("Hand 2 · start"), std::string::npos);
  EXPECT_NE(hand.back().rule.find("Hand 2 · end"), std::string::npos);
  for (const auto& f : hand) EXPECT_NE(f.rule.find("Hand 2 ·"), std::string::npos) << f.rule;
  // Out of range.
  std::string none = replay_output({l.path, "--print", "--hand", "99"}, 2);
  EXPECT_TRUE(none.empty());
  const RunResult bad = run({kReferee, "replay", l.path, "--hand", "2", "--play", "999"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("hand 2 has"), std::string::npos) << bad.output;
  const RunResult no_hand = run({kReferee, "replay", l.path, "--play", "3"});
  EXPECT_NE(no_hand.exit_code, 0) << no_hand.output;
  const RunResult bad_seat = run({kReferee, "replay", l.path, "--seat", "2"});
  EXPECT_EQ(bad_seat.exit_code, 2);
  EXPECT_NE(bad_seat.output.find("--seat must be 0 to 1"), std::string::npos) << bad_seat.output;
}

TEST(ReplayErrors, ALogThatBreaksTheRulesIsRefusedWithItsLine) {
  const Logged& l = logged("2p");
  std::vector<std::string> lines;
  {
    std::ifstream in(l.path);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  // Change the count of the first scoring play.
  int edited = 0;
  for (size_t i = 0; i < lines.size() && !edited; ++i) {
    const size_t at = lines[i].find("\"count\":");
    if (lines[i].rfind("{\"play\"", 0) != 0 || at == std::string::npos) continue;
    lines[i].replace(at, 8, "\"count\":1");
    edited = static_cast<int>(i) + 1;
  }
  ASSERT_GT(edited, 0);
  const std::string path = temp_dir("bad-log") + "/edited.jsonl";
  {
    std::ofstream out(path);
    for (const auto& line : lines) out << line << "\n";
  }
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--print"}, {"--html", temp_dir("bad-html") + "/x.html"}}) {
    std::vector<std::string> argv = {kReferee, "replay", path};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(path + ":" + std::to_string(edited) + ":"), std::string::npos)
        << r.output;
  }
  const RunResult missing = run({kReferee, "replay", path + ".missing", "--print"});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
}

// ---------------------------------------------------------------------------------------
// Interactive stepping in a pseudo-terminal

struct Pty {
  pid_t pid = -1;
  int fd = -1;
  std::string seen;
  std::string all;  // everything read

  explicit Pty(const std::vector<std::string>& argv) {
    winsize ws{};
    ws.ws_row = 50;
    ws.ws_col = 120;
    pid = ::forkpty(&fd, nullptr, nullptr, &ws);
    if (pid == 0) {
      ::setenv("TERM", "xterm", 1);
      ::unsetenv("NO_COLOR");
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~Pty() {
    if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (fd >= 0) ::close(fd);
  }
  // Reads until `text` has been seen since the last call (true) or the deadline passes.
  bool wait_for(const std::string& text,
                std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    size_t from = 0;
    while (std::chrono::steady_clock::now() < until) {
      const size_t at = seen.find(text, from);
      if (at != std::string::npos) {
        seen.erase(0, at + text.size());
        return true;
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char buf[65536];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        seen.append(buf, static_cast<size_t>(n));
        all.append(buf, static_cast<size_t>(n));
      }
    }
    return seen.find(text, from) != std::string::npos;
  }
  void send(const std::string& keys) {
    ASSERT_EQ(::write(fd, keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
  }
  // Waits for the program to end; its wait status, or -1 at the deadline.
  int wait_exit(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return status;
      }
      wait_for("\x01never\x01", std::chrono::milliseconds(50));  // keep draining the output
    }
    return -1;
  }
  bool cooked() const {
    termios t{};
    if (::tcgetattr(fd, &t) != 0) return false;
    return (t.c_lflag & ECHO) && (t.c_lflag & ICANON);
  }
};

TEST(ReplayInteractive, KeysStepPlaysAndHandsAndQuitRestoresTheTerminal) {
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  const std::string total = "/" + std::to_string(steps.size()) + " ";
  int hand2 = 0, hand3 = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != v1::LogRecord::kHandStart) continue;
    if (steps[i].hand == 1) hand2 = static_cast<int>(i) + 1;
    if (steps[i].hand == 2) hand3 = static_cast<int>(i) + 1;
  }
  ASSERT_GT(hand3, 0);
  Pty p({kReferee, "replay", l.path});
  ASSERT_GT(p.pid, 0);
  ASSERT_TRUE(p.wait_for("step 1" + total)) << p.seen;
  EXPECT_FALSE(p.cooked()) << "raw mode while stepping";
  // The rest of the first frame may still be on its way.
  EXPECT_TRUE(p.all.find("\x1b[36mseat 0") != std::string::npos || p.wait_for("\x1b[36mseat 0"))
      << "colour on a terminal";
  p.send("n");
  ASSERT_TRUE(p.wait_for("step 2" + total)) << p.seen;
  p.send("\x1b[C");  // right arrow
  ASSERT_TRUE(p.wait_for("step 3" + total)) << p.seen;
  p.send("j");  // next hand
  ASSERT_TRUE(p.wait_for("step " + std::to_string(hand2) + total)) << p.seen;
  p.send("\x1b[B");  // down arrow: next hand
  ASSERT_TRUE(p.wait_for("step " + std::to_string(hand3) + total)) << p.seen;
  p.send("p");
  ASSERT_TRUE(p.wait_for("step " + std::to_string(hand3 - 1) + total)) << p.seen;
  p.send("k");  // back to the start of this hand
  ASSERT_TRUE(p.wait_for("step " + std::to_string(hand2) + total)) << p.seen;
  p.send("G");
  ASSERT_TRUE(p.wait_for("step " + std::to_string(steps.size()) + total)) << p.seen;
  p.send("q");
  const int status = p.wait_exit();
  ASSERT_NE(status, -1) << "did not quit";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(p.cooked()) << "the terminal is back in cooked mode with echo";
}

TEST(ReplayInteractive, CtrlCRestoresTheTerminal) {
  const Logged& l = logged("2p");
  Pty p({kReferee, "replay", l.path, "--hand", "2", "--play", "1"});
  ASSERT_TRUE(p.wait_for("Hand 2 · play 1 ")) << p.seen;
  EXPECT_FALSE(p.cooked());
  p.send("\x03");  // the terminal turns Ctrl-C into SIGINT
  const int status = p.wait_exit();
  ASSERT_NE(status, -1) << "Ctrl-C did not stop it";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_TRUE(p.cooked()) << "the terminal is back in cooked mode with echo";
}

// ---------------------------------------------------------------------------------------
// The HTML page

std::string write_html(const Logged& l, const std::string& name,
                       std::vector<std::string> extra = {}) {
  const std::string path = temp_dir("html-" + name) + "/replay.html";
  std::vector<std::string> argv = {kReferee, "replay", l.path, "--html", path};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

// The page's embedded data as a protobuf Struct (any JSON parses into one).
google::protobuf::Struct page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"replay-data\">";
  const size_t a = html.find(open);
  const size_t b = html.find("</script>", a);
  google::protobuf::Struct data;
  EXPECT_NE(a, std::string::npos);
  if (a == std::string::npos || b == std::string::npos) return data;
  const std::string json = html.substr(a + open.size(), b - a - open.size());
  const auto status = google::protobuf::util::JsonStringToMessage(json, &data);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return data;
}

TEST(ReplayHtml, OneSelfContainedCompactFile) {
  const Logged& l = logged("2p");
  const std::string html = read_file(write_html(l, "self"));
  ASSERT_FALSE(html.empty());
  for (const char* external : {"http://", "https://", "<link", " src=", "url(", "@import", "//cdn"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  EXPECT_NE(html.find("<svg"), std::string::npos);  // tiles are inline SVG, built by the page
  const auto data = page_data(html);
  const auto& page_steps = data.fields().at("steps").list_value();
  EXPECT_EQ(page_steps.values_size(), static_cast<int>(steps_of(l.records).size()));
  // Compact: the steps cost a few hundred bytes each.
  EXPECT_LT(html.size(), 40000 + 600 * static_cast<size_t>(page_steps.values_size()))
      << html.size();
}

TEST(ReplayHtml, SeatViewCarriesNoHiddenHand) {
  const Logged& l = logged("partners");
  const std::vector<Step> steps = steps_of(l.records);
  for (int seat = 0; seat < 4; ++seat) {
    const std::string html =
        read_file(write_html(l, "seat" + std::to_string(seat), {"--seat", std::to_string(seat)}));
    const auto data = page_data(html);
    const auto& ps = data.fields().at("steps").list_value();
    ASSERT_EQ(ps.values_size(), static_cast<int>(steps.size()));
    for (int i = 0; i < ps.values_size(); ++i) {
      const auto& hands = ps.values(i).struct_value().fields().at("d").list_value();
      ASSERT_EQ(hands.values_size(), 4);
      for (int other = 0; other < 4; ++other) {
        const auto& h = hands.values(other);
        if (other == seat || steps[static_cast<size_t>(i)].revealed) {
          EXPECT_TRUE(h.has_string_value()) << "step " << i << " seat " << other;
        } else {
          ASSERT_TRUE(h.has_number_value()) << "step " << i << " hides seat " << other << "'s hand";
          EXPECT_EQ(static_cast<int>(h.number_value()),
                    steps[static_cast<size_t>(i)].hands[other].size());
        }
      }
      // The step's words never name a hidden tile either.
      TileSet hidden = steps[static_cast<size_t>(i)].boneyard;
      if (!steps[static_cast<size_t>(i)].revealed)
        for (int other = 0; other < 4; ++other)
          if (other != seat) hidden |= steps[static_cast<size_t>(i)].hands[other];
      std::string words = ps.values(i).struct_value().fields().at("t").string_value();
      if (ps.values(i).struct_value().fields().count("o"))
        for (const auto& note : ps.values(i).struct_value().fields().at("o").list_value().values())
          words += "\n" + note.string_value();
      for (Tile t : hidden) EXPECT_FALSE(names_tile(words, t)) << to_string(t) << " in " << words;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The page in a real browser: headless Chromium (Debian's `chromium`, installed by
// scripts/setup.sh).

std::string chromium_path() {
  if (const char* env = std::getenv("ALLFIVES_CHROMIUM")) return env;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::string p = dir + "/" + name;
      if (::access(p.c_str(), X_OK) == 0) return p;
    }
  return "";
}

#define REQUIRE_CHROMIUM(var)                                                            \
  const std::string var = chromium_path();                                               \
  ASSERT_FALSE(var.empty())                                                              \
      << "Debian's chromium is not installed, so the HTML replay cannot be tested: run " \
         "scripts/setup.sh (it installs it), or set ALLFIVES_CHROMIUM to a Chromium binary"

// Runs headless Chromium on `url` with extra flags; returns its standard output.
std::string chromium(const std::string& browser, const std::string& url,
                     const std::vector<std::string>& flags, int budget_ms = 3000) {
  static int count = 0;
  const std::string dir = temp_dir("chromium-" + std::to_string(++count));
  std::string command = quote(browser) +
                        " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                        " --disable-background-networking --disable-component-update"
                        " --disable-sync --no-first-run --no-default-browser-check"
                        " --hide-scrollbars --user-data-dir=" +
                        quote(dir + "/profile") +
                        " --virtual-time-budget=" + std::to_string(budget_ms);
  for (const auto& f : flags) {
    command += ' ';
    command += quote(f);
  }
  command += " " + quote(url) + " > " + quote(dir + "/stdout") + " 2> " + quote(dir + "/stderr");
  const RunResult r = sh(command, std::chrono::seconds(90));
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << read_file(dir + "/stderr");
  return read_file(dir + "/stdout");
}

// The data attributes of #state in a dumped DOM.
std::map<std::string, std::string> page_state(const std::string& dom) {
  std::map<std::string, std::string> out;
  const size_t a = dom.find("<div id=\"state\"");
  if (a == std::string::npos) return out;
  const size_t b = dom.find('>', a);
  const std::string tag = dom.substr(a, b - a);
  for (size_t at = tag.find(" data-"); at != std::string::npos; at = tag.find(" data-", at + 1)) {
    const size_t eq = tag.find("=\"", at);
    const size_t end = tag.find('"', eq + 2);
    if (eq == std::string::npos || end == std::string::npos) break;
    std::string value = tag.substr(eq + 2, end - eq - 2);
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
      for (size_t p = value.find(from); p != std::string::npos; p = value.find(from, p + 1))
        value.replace(p, from.size(), to);
    out[tag.substr(at + 6, eq - at - 6)] = value;
  }
  return out;
}

std::string kind_name(v1::LogRecord::KindCase k) {
  switch (k) {
    case v1::LogRecord::kHandStart:
      return "hand_start";
    case v1::LogRecord::kPlay:
      return "play";
    case v1::LogRecord::kDraw:
      return "draw";
    case v1::LogRecord::kPass:
      return "pass";
    case v1::LogRecord::kHandEnd:
      return "hand_end";
    case v1::LogRecord::kFault:
      return "fault";
    case v1::LogRecord::kMatchEnd:
      return "match_end";
    default:
      return "?";
  }
}

// The page's state after step k agrees with the log.
void expect_state_matches(const std::map<std::string, std::string>& st,
                          const std::vector<Step>& steps, int k) {
  ASSERT_FALSE(st.empty()) << "no #state in the page";
  const Step& s = steps[static_cast<size_t>(k)];
  EXPECT_EQ(st.at("step"), std::to_string(k));
  EXPECT_EQ(st.at("steps"), std::to_string(steps.size()));
  EXPECT_EQ(st.at("log-line"), std::to_string(s.line));
  EXPECT_EQ(st.at("kind"), kind_name(s.kind));
  EXPECT_EQ(st.at("hand"), std::to_string(s.hand));
  EXPECT_EQ(st.at("play"), std::to_string(s.plays));
  EXPECT_EQ(st.at("scores"), join(s.scores, ","));
  EXPECT_EQ(st.at("boneyard"), std::to_string(s.boneyard.size()));
  EXPECT_EQ(st.at("count"), s.last_play ? std::to_string(s.last_play->count()) : "");
  EXPECT_EQ(st.at("points"), s.last_play ? std::to_string(s.last_play->points()) : "");
  if (s.last_play) {
    EXPECT_NE(st.at("last-play").find("count " + std::to_string(s.last_play->count())),
              std::string::npos);
  }
  // The line: this hand's played tiles, each touching its neighbour with equal halves.
  const std::string& line = st.at("line");
  ASSERT_EQ(line.size(), 2 * s.played.size()) << line;
  TileSet on_line, played;
  for (size_t i = 0; i + 1 < line.size(); i += 2) {
    on_line.add(Tile::of(line[i] - '0', line[i + 1] - '0'));
    if (i + 2 < line.size()) {
      EXPECT_EQ(line[i + 1], line[i + 2]) << "tiles do not join in " << line;
    }
  }
  for (Tile t : s.played) played.add(t);
  EXPECT_EQ(on_line, played) << line;
}

// Steps worth checking: the first, the first scoring play, a draw, a hand's end, the middle,
// the last.
std::vector<int> interesting_steps(const std::vector<Step>& steps) {
  std::vector<int> out = {0};
  auto first = [&](auto pred) {
    for (size_t i = 0; i < steps.size(); ++i)
      if (pred(steps[i])) return static_cast<int>(i);
    return -1;
  };
  for (int k : {first([](const Step& s) {
                  return s.last_play && s.kind == v1::LogRecord::kPlay && s.last_play->points() > 0;
                }),
                first([](const Step& s) { return s.kind == v1::LogRecord::kDraw; }),
                first([](const Step& s) { return s.kind == v1::LogRecord::kHandEnd; }),
                static_cast<int>(steps.size() / 2), static_cast<int>(steps.size()) - 1})
    if (k >= 0) out.push_back(k);
  return out;
}

TEST(ReplayBrowser, StateAfterGivenStepsMatchesTheLog) {
  REQUIRE_CHROMIUM(browser);
  for (const std::string format : {"2p", "partners"}) {
    SCOPED_TRACE(format);
    const Logged& l = logged(format);
    const std::vector<Step> steps = steps_of(l.records);
    const std::string url = "file://" + write_html(l, "browser-" + format);
    for (int k : interesting_steps(steps)) {
      SCOPED_TRACE("step " + std::to_string(k));
      const std::string dom = chromium(browser, url + "?step=" + std::to_string(k), {"--dump-dom"});
      EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos)
          << "the page's script did not finish";
      expect_state_matches(page_state(dom), steps, k);
    }
  }
}

TEST(ReplayBrowser, ButtonsAndKeysStepThroughThePage) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  std::vector<int> starts;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].kind == v1::LogRecord::kHandStart) starts.push_back(static_cast<int>(i));
  ASSERT_GE(starts.size(), 3u);
  const std::string url = "file://" + write_html(l, "buttons");
  const int k = starts[1] + 2;  // two steps into hand 2
  struct Case {
    std::string query;
    int expect;
  };
  for (const Case& c : std::vector<Case>{
           {"?step=" + std::to_string(k) + "&click=next,next", k + 2},
           {"?step=" + std::to_string(k) + "&click=nextHand,prev", starts[2] - 1},
           {"?step=" + std::to_string(k) + "&click=prevHand", starts[1]},
           {"?step=" + std::to_string(k) + "&click=prevHand,prevHand", starts[0]},
           {"?step=" + std::to_string(k) + "&keys=ArrowDown,ArrowRight,ArrowRight,ArrowLeft",
            starts[2] + 1},
           {"?step=" + std::to_string(k) + "&keys=End", static_cast<int>(steps.size()) - 1},
           {"?hand=3", starts[2]},
       }) {
    SCOPED_TRACE(c.query);
    expect_state_matches(page_state(chromium(browser, url + c.query, {"--dump-dom"})), steps,
                         c.expect);
  }
}

TEST(ReplayBrowser, PlayAdvancesStepByStep) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  const std::string url = "file://" + write_html(l, "autoplay");
  // At 1× the page steps every 800 ms of (virtual) time.
  const auto st = page_state(chromium(browser, url + "?step=5&autoplay", {"--dump-dom"}, 4500));
  ASSERT_FALSE(st.empty());
  const int at = std::atoi(st.at("step").c_str());
  EXPECT_GE(at, 8);
  EXPECT_LE(at, 12);
  EXPECT_EQ(st.at("playing"), "1");
  expect_state_matches(st, steps, at);
}

TEST(ReplayBrowser, SavesAScreenshot) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  const std::string url = "file://" + write_html(l, "screenshot");
  const std::string png = kArtifacts + "/replay.png";
  std::filesystem::remove(png);
  chromium(browser, url + "?step=" + std::to_string(steps.size() / 3),
           {"--screenshot=" + png, "--window-size=1280,800"});
  const std::string bytes = read_file(png);
  ASSERT_GT(bytes.size(), 10000u) << "no screenshot at " << png;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::cout << "screenshot: " << png << " (" << bytes.size() << " bytes)\n";
}

}  // namespace
}  // namespace allfives::e2e
