// End-to-end tests of `referee replay` in the terminal: the real referee binary plays matches
// between the sample bots, then shows their logs (--print, --seat, --hand/--play, colour,
// interactive keys in a pseudo-terminal). Every check compares what is shown with the log's
// own records.
#include <algorithm>

#include "replay_view/replay_view_util.h"

namespace allfives::e2e::replay_view {
namespace {

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
    for (uint32_t s : end.scores()) {
      // Built with append: GCC 12 warns falsely (-Wrestrict) about `" " + std::to_string(s)`.
      std::string score = " ";
      score.append(std::to_string(s));
      EXPECT_NE(last.find(score), std::string::npos);
    }
    EXPECT_NE(last.find("winner: "), std::string::npos) << last;
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no colour when stdout is not a terminal";
  }
}

// The log's options of `p` as `referee replay` words them, from the most points down, the
// play made marked: "had 3 plays: 6-4 right 10 (played) · 5-5 left 0 · 2-1 right 0".
std::string options_words(const v1::LogPlay& p, bool opening) {
  std::vector<std::pair<int, int>> order;  // (-points, index): a stable ranking
  for (int i = 0; i < p.options_size(); ++i)
    order.emplace_back(-static_cast<int>(p.options(i).points()), i);
  std::sort(order.begin(), order.end());
  std::string out =
      "had " + std::to_string(p.options_size()) + (p.options_size() == 1 ? " play:" : " plays:");
  for (size_t k = 0; k < order.size(); ++k) {
    const v1::LogOption& o = p.options(order[k].second);
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on `" " + std::string`.
    out += k ? " · " : " ";
    out += to_string(tile(o.play().tile()));
    if (!opening) out += o.play().end() == v1::END_RIGHT ? " right" : " left";
    out += ' ';
    out.append(std::to_string(o.points()));
    if (o.play().SerializeAsString() == p.play().SerializeAsString()) out += " (played)";
  }
  return out;
}

// Under each play: the options ranked by points with the play made, a line when one scored
// more, the time and bank, the comment; --no-decisions hides them.
TEST(ReplayDecisions, UnderEachPlayItsOptionsTimeBankAndComment) {
  const Logged& l = logged("2p");
  const std::string out = replay_output({l.path, "--print"});
  size_t at = 0;
  int plays = 0, missed = 0;
  bool opening = false;
  for (const auto& r : l.records) {
    if (r.has_hand_start()) opening = true;
    if (!r.has_play()) continue;
    const v1::LogPlay& p = r.play();
    std::string lines = "  " + options_words(p, opening) + "\n";
    uint32_t best = 0;
    for (const auto& o : p.options()) best = std::max(best, o.points());
    if (best > p.points()) {
      lines += "  a higher-scoring play existed: ";
      ++missed;
    } else {
      lines += "  took ";
    }
    opening = false;
    const size_t found = out.find(lines, at);
    ASSERT_NE(found, std::string::npos) << "play " << plays << ": " << lines;
    at = found + lines.size();
    const std::string bank = "bank left " + std::to_string(p.time_bank_left_ms()) + " ms\n";
    EXPECT_EQ(out.find(bank, at), out.find("bank left ", at)) << bank;
    if (!p.comment().empty()) {
      const size_t c = out.find("  comment: " + p.comment() + "\n", at);
      EXPECT_EQ(c, out.find("  comment: ", at)) << p.comment();
    }
    ++plays;
  }
  EXPECT_GT(plays, 20);
  EXPECT_GT(missed, 0) << "the random bot should have missed points";
  const std::string hidden = replay_output({l.path, "--print", "--no-decisions"});
  EXPECT_EQ(hidden.find("had "), std::string::npos);
  EXPECT_EQ(hidden.find("comment: "), std::string::npos);
  EXPECT_EQ(frames_of(hidden).size(), frames_of(out).size());
}

// --only-bot keeps one seat's plays; --only-missed those where a play scored more; a name
// that is no seat's is refused with the seats.
TEST(ReplayDecisions, FiltersKeepOneBotsDecisionsOrTheMissedOnes) {
  const Logged& l = logged("2p");
  int random_plays = 0, random_missed = 0, missed = 0;
  for (const auto& r : l.records) {
    if (!r.has_play()) continue;
    uint32_t best = 0;
    for (const auto& o : r.play().options()) best = std::max(best, o.points());
    const bool m = best > r.play().points();
    missed += m;
    if (r.play().seat() == 1) {
      ++random_plays;
      random_missed += m;
    }
  }
  ASSERT_GT(random_missed, 0);
  const auto count = [](const std::string& text, const std::string& word) {
    int n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  const std::string by_name = replay_output({l.path, "--print", "--only-bot", "random"});
  EXPECT_EQ(static_cast<int>(frames_of(by_name).size()), random_plays);
  EXPECT_EQ(count(by_name, "\nseat 1 (random) "), random_plays) << by_name.substr(0, 2000);
  EXPECT_EQ(replay_output({l.path, "--print", "--only-bot", "1"}), by_name);
  const std::string both =
      replay_output({l.path, "--print", "--only-bot", "random", "--only-missed"});
  EXPECT_EQ(static_cast<int>(frames_of(both).size()), random_missed);
  EXPECT_EQ(count(both, "a higher-scoring play existed"), random_missed);
  const std::string all_missed = replay_output({l.path, "--print", "--only-missed"});
  EXPECT_EQ(static_cast<int>(frames_of(all_missed).size()), missed);
  const RunResult bad = run({kReferee, "replay", l.path, "--print", "--only-bot", "nobody"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("names no seat of this match; its seats: 0 (greedy), 1 (random)"),
            std::string::npos)
      << bad.output;
}

// As seat 1 saw it, seat 0's decisions show their time only: options and comment would show
// seat 0's tiles.
TEST(ReplayDecisions, ASeatsViewShowsOnlyItsOwnOptions) {
  const Logged& l = logged("2p");
  const std::string seat1 = replay_output({l.path, "--print", "--seat", "1", "--only-bot", "0"});
  EXPECT_EQ(seat1.find("had "), std::string::npos);
  EXPECT_EQ(seat1.find("comment: "), std::string::npos);
  EXPECT_NE(seat1.find("took "), std::string::npos);
  const std::string own = replay_output({l.path, "--print", "--seat", "0", "--only-bot", "0"});
  EXPECT_NE(own.find("had "), std::string::npos);
  EXPECT_NE(own.find("comment: most points now: "), std::string::npos);
}

// A hostile comment (a screen clear and a window-title escape first, 1 MiB long) reaches the
// terminal as \xNN text, never as a control sequence, with the bytes dropped counted.
TEST(ReplayDecisions, ABotsCommentNeverDrivesTheTerminal) {
  const std::string dir = temp_dir("replay-long-comment");
  const std::string log = dir + "/m.jsonl";
  const RunResult m = run({kReferee, "match", "--seed", "3", "--max-hands", "1", "--log", log,
                           "--no-sandbox", kBadBot + " --mode long-comment", kRandom});
  ASSERT_EQ(m.exit_code, 0) << m.output;
  const std::string out = replay_output({log, "--print", "--only-bot", "0"});
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_NE(out.find("comment: \\x1b[2J\\x1b]0;pwned\\x07aaaa"), std::string::npos)
      << out.substr(0, 3000);
  EXPECT_NE(out.find("(+" + std::to_string((1 << 20) - 254) + " bytes dropped)"),
            std::string::npos);
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

}  // namespace
}  // namespace allfives::e2e::replay_view
