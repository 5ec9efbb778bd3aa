#include "replay/terminal_view.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <ostream>
#include <sstream>

#include "review/review_words.h"
#include "text/terminal_text.h"

namespace allfives::referee {

// ---------------------------------------------------------------------------------------
// Text rendering

namespace {

constexpr const char* kSeatColours[] = {"36", "33", "35", "34"};

struct Painter {
  bool on;
  std::string operator()(const std::string& text, const char* sgr) const {
    if (!on || text.empty()) return text;
    return "\x1b[" + std::string(sgr) + "m" + text + "\x1b[0m";
  }
};

// Seat labels in their seat's colour, points scored in bold green: the runs the frame marked
// as it wrote them.
std::string highlight(const MarkedText& text, const Painter& paint) {
  if (!paint.on) return text.words;
  std::string out;
  size_t at = 0;
  for (const TextMark& m : text.marks) {
    if (m.begin < at || m.begin + m.size > text.words.size()) continue;
    out.append(text.words, at, m.begin - at);
    const std::string run = text.words.substr(m.begin, m.size);
    const bool seat = m.seat >= 0 && m.seat < static_cast<int>(std::size(kSeatColours));
    out += m.seat < 0 ? paint(run, "1;32") : seat ? paint(run, kSeatColours[m.seat]) : run;
    at = m.begin + m.size;
  }
  out.append(text.words, at);
  return out;
}

// The line in three rows: tiles lengthwise as [a|b] on the middle row, doubles crosswise
// across all three rows, wrapped to `width` columns.
std::vector<std::string> draw_line(const Frame& f, int width, const Painter& paint) {
  const std::vector<LaidTile> tiles = line_layout(f.line);
  std::vector<std::string> out;
  if (tiles.empty()) {
    out.push_back("  (no tile on the line yet)");
    return out;
  }
  std::string rows[3];
  int used = 0;
  auto flush = [&] {
    for (auto& row : rows) {
      while (!row.empty() && row.back() == ' ') row.pop_back();
      if (!row.empty()) out.push_back("  " + row);
      row.clear();
    }
    used = 0;
  };
  for (size_t i = 0; i < tiles.size(); ++i) {
    const LaidTile t = tiles[i];
    const bool dbl = t.left == t.right;
    const int w = dbl ? 3 : 5;
    if (used > 0 && used + w > width - 2) flush();
    const char* sgr = static_cast<int>(i) == f.placed ? "1;7" : "";
    auto cell = [&](const std::string& s) { return *sgr ? paint(s, sgr) : s; };
    const std::string a = std::to_string(t.left), b = std::to_string(t.right);
    if (dbl) {
      rows[0] += cell("┌" + a + "┐");
      rows[1] += cell("├─┤");
      rows[2] += cell("└" + a + "┘");
    } else {
      rows[0] += "     ";
      rows[1] += cell("[" + a + "|" + b + "]");
      rows[2] += "     ";
    }
    used += w;
  }
  flush();
  return out;
}

std::string ends_text(const Frame& f) {
  if (f.line.empty()) return "";
  if (f.line.size() == 1)
    return "a lone tile counts all its pips: count " + std::to_string(f.line.count());
  auto end = [](LineEnd e) {
    return e.is_double ? std::to_string(e.value) + "-" + std::to_string(e.value) + " crosswise"
                       : std::to_string(e.value);
  };
  const LineEnd l = f.line.end(End::kLeft), r = f.line.end(End::kRight);
  return "ends " + end(l) + " and " + end(r) + ": count " + std::to_string(l.count()) + " + " +
         std::to_string(r.count()) + " = " + std::to_string(f.line.count());
}

std::string rule_title(const Frame& f) {
  const std::string hand = "Hand " + std::to_string(f.hand + 1);
  switch (f.kind) {
    case v1::LogRecord::kHandStart:
      return hand + " · start";
    case v1::LogRecord::kPlay:
      return hand + " · play " + std::to_string(f.play);
    case v1::LogRecord::kDraw:
      return hand + " · after play " + std::to_string(f.play) + ": draw";
    case v1::LogRecord::kPass:
      return hand + " · after play " + std::to_string(f.play) + ": pass";
    case v1::LogRecord::kHandEnd:
      return hand + " · end";
    case v1::LogRecord::kFault:
      return hand + " · fault";
    case v1::LogRecord::kMatchEnd:
      return "Match end";
    default:
      return hand;
  }
}

// Display width of UTF-8 text without escape sequences (one column per code point).
int columns(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string render_heading(const Replay& r, const TerminalOptions& o) {
  const Painter paint{o.color};
  std::ostringstream out;
  out << paint("Match " + r.header.match_id(), "1") << " · " << format_label(r.config.format);
  // The seed deals every hand: a seat sees it only once the match is over.
  if (o.viewer < 0 || r.finished) out << " · seed " << r.header.seed();
  out << " · target " << r.config.target << " · " << plural(r.hands, "hand", "hands") << ", "
      << plural(r.plays, "play", "plays") << "\n";
  const int n = num_players(r.config.format);
  for (int seat = 0; seat < n; ++seat) {
    out << "  " << paint(seat_label(r, seat), kSeatColours[seat]);
    if (seat < r.header.bots_size()) {
      const auto& b = r.header.bots(seat);
      if (!b.name().empty())
        out << "  bot " << terminal_text(b.name())
            << (b.version().empty() ? "" : " " + terminal_text(b.version()));
    }
    if (partner_of(r.config.format, seat) >= 0) out << "  side " << side_of(r.config.format, seat);
    out << "\n";
  }
  if (o.viewer >= 0)
    out << "Seen by " << paint(seat_label(r, o.viewer), kSeatColours[o.viewer % 4])
        << ": its own hand; other hands as counts until a hand's end reveals them\n";
  return out.str();
}

namespace {

// What the bot printed, a line each after "printed:", then the count the capture dropped (its
// own words in the text, a "[... N bytes dropped]" line among them, could be forged).
void add_output_lines(const Decision& d, std::vector<std::string>& lines) {
  if (d.output.empty() && d.output_dropped == 0) return;
  std::string_view text = d.output;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  size_t count = text.empty() ? 0 : 1;
  for (char c : text) count += c == '\n';
  lines.push_back("printed " + plural(static_cast<int>(count), "line", "lines") + ":");
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    lines.push_back("│ " + terminal_text(text.substr(0, end)));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  if (d.output_dropped > 0)
    lines.push_back("(the referee dropped " + std::to_string(d.output_dropped) +
                    " more bytes of it: the output caps)");
}

}  // namespace

std::string review_line(const v1::ReviewDecision& d) {
  return "review: " + decision_words(d);
}

namespace {

// "had 3 plays: 6-4 right 10 · ..." from the most points down.
std::string had_line(const Decision& d, bool opening) {
  std::string had = "had " + plural(static_cast<int>(d.options.size()), "play", "plays") + ":";
  const char* sep = " ";
  for (const DecisionOption& o : d.ranked()) {
    had += sep + option_text(o, opening) + " " + std::to_string(o.points);
    if (d.review) {
      const v1::ReviewOption& v = d.review->options(o.offered);
      had += " (" + value_words(v.points(), v.points_se(), d.review->exact()) + ")";
    }
    had += o.chosen ? " (played)" : "";
    sep = " · ";
  }
  return had;
}

}  // namespace

std::vector<std::string> decision_lines(const Frame& f, bool output) {
  std::vector<std::string> lines;
  const Decision& d = f.decision;
  if (f.kind == v1::LogRecord::kFault) {  // the line is still the one the seat faulted on
    if (d.shown && !d.options.empty()) lines.push_back(had_line(d, f.line.empty()));
    if (d.shown && output) add_output_lines(d, lines);
    return lines;
  }
  if (f.kind != v1::LogRecord::kPlay || (d.options.empty() && d.bank_left_ms < 0)) return lines;
  const bool opening = f.line.size() == 1;
  if (!d.options.empty()) {
    lines.push_back(had_line(d, opening));
    if (d.higher_existed()) {
      const DecisionOption best = d.ranked().front();
      lines.push_back("a higher-scoring play existed: " + option_text(best, opening) + " for " +
                      std::to_string(best.points));
    }
  }
  if (d.review) lines.push_back(review_line(*d.review));
  lines.push_back("took " + decision_time_text(d.decision_us) + ", bank left " +
                  std::to_string(d.bank_left_ms) + " ms");
  if (!d.comment.empty() || d.comment_dropped > 0)
    lines.push_back(
        "comment: " + terminal_text(d.comment) +
        (d.comment_dropped ? " (+" + std::to_string(d.comment_dropped) + " bytes dropped)" : ""));
  if (output && d.shown) add_output_lines(d, lines);
  return lines;
}

std::string render_frame(const Replay& r, const Frame& f, const TerminalOptions& o) {
  const Painter paint{o.color};
  const int width = std::max(40, o.width);
  std::ostringstream out;
  const std::string left = "── " + rule_title(f) + " ";
  const std::string right = " step " + std::to_string(f.step + 1) + "/" +
                            std::to_string(r.steps.size()) + " · log line " +
                            std::to_string(f.log_line) + " ──";
  const int fill = std::max(2, width - columns(left) - columns(right));
  std::string rule = left;
  for (int i = 0; i < fill; ++i) rule += "─";
  out << paint(rule + right, "1") << "\n";
  out << highlight(f.text, paint) << "\n";
  for (const MarkedText& note : f.notes) out << "  " << highlight(note, paint) << "\n";
  if (o.decisions) {
    // A marked decision's review line in red (a mistake or blunder) or yellow, so it stands out.
    const v1::ReviewMark mark = review_mark(f);
    const char* marked = mark >= v1::REVIEW_MARK_MISTAKE ? "1;31" : mark ? "1;33" : "36";
    for (const std::string& line : decision_lines(f, o.output))
      out << "  " << paint(line, line.starts_with("review: ") ? marked : "36") << "\n";
  }
  for (const std::string& row : draw_line(f, width, paint)) out << row << "\n";
  if (!f.line.empty()) out << "  " << ends_text(f) << "\n";
  const int n = num_players(r.config.format);
  int label_width = 0;
  for (int seat = 0; seat < n; ++seat)
    label_width = std::max(label_width, columns(seat_label(r, seat)) + (seat == o.viewer ? 6 : 0));
  for (int seat = 0; seat < n; ++seat) {
    const auto s = static_cast<size_t>(seat);
    std::string label = seat_label(r, seat) + (seat == o.viewer ? " (you)" : "");
    const int pad = label_width - columns(label);
    const bool marked =
        o.to_move >= 0 ? seat == o.to_move : seat == f.seat && f.kind != v1::LogRecord::kMatchEnd;
    out << (marked ? "▶ " : "  ") << paint(label, kSeatColours[seat])
        << std::string(static_cast<size_t>(pad) + 2, ' ');
    const std::string count =
        f.hand_sizes[s] == 0 ? "no tiles" : plural(f.hand_sizes[s], "tile ", "tiles");
    if (f.shown[s] && f.hand_sizes[s] > 0)
      out << count << "  " << tiles_text(f.hands[s]);
    else if (f.shown[s])
      out << count;
    else
      out << paint(count + "  (hidden)", "2");
    out << "\n";
  }
  out << "  boneyard: " << plural(f.boneyard, "tile", "tiles") << "\n";
  out << "  scores: " << scores_text(r, f.scores) << "  (target " << r.config.target << ")\n";
  return out.str();
}

void print_frames(const Replay& r, const std::vector<Frame>& frames, int first, int last,
                  const TerminalOptions& o, std::ostream& out) {
  out << render_heading(r, o);
  for (int i = std::max(0, first); i <= last && i < static_cast<int>(frames.size()); ++i)
    out << "\n" << render_frame(r, frames[static_cast<size_t>(i)], o);
  if (!r.finished && last >= static_cast<int>(frames.size()) - 1)
    out << "\nThe log ends here: the match did not finish (the referee was stopped).\n";
  out.flush();
}

// ---------------------------------------------------------------------------------------
// Interactive stepping

namespace {

termios g_saved_termios;
volatile sig_atomic_t g_raw = 0;
volatile sig_atomic_t g_redraw = 0;
constexpr char kEnterScreen[] = "\x1b[?1049h\x1b[?25l";
constexpr char kLeaveScreen[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

void write_all(const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Async-signal-safe: only tcsetattr and write.
void leave_raw() {
  if (!g_raw) return;
  g_raw = 0;
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved_termios);
  write_all(kLeaveScreen, sizeof kLeaveScreen - 1);
}

bool enter_raw() {
  termios t = g_saved_termios;
  t.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  t.c_iflag &= ~static_cast<tcflag_t>(IXON | ICRNL);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) != 0) return false;
  g_raw = 1;
  write_all(kEnterScreen, sizeof kEnterScreen - 1);
  return true;
}

extern "C" void on_fatal_signal(int sig) {
  leave_raw();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

extern "C" void on_stop_signal(int sig) {
  const bool was_raw = g_raw;
  leave_raw();
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);  // stops here; continues when resumed
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
  if (was_raw) enter_raw();
  g_redraw = 1;
}

extern "C" void on_resize(int) {
  g_redraw = 1;
}

struct SignalGuard {
  struct sigaction old[6];
  static constexpr int kSignals[6] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGWINCH};
  SignalGuard() {
    for (int i = 0; i < 6; ++i) {
      struct sigaction sa {};
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = 0;  // no SA_RESTART: a resize interrupts the read so the screen redraws
      sa.sa_handler = kSignals[i] == SIGWINCH  ? on_resize
                      : kSignals[i] == SIGTSTP ? on_stop_signal
                                               : on_fatal_signal;
      ::sigaction(kSignals[i], &sa, &old[i]);
    }
  }
  ~SignalGuard() {
    for (int i = 0; i < 6; ++i) ::sigaction(kSignals[i], &old[i], nullptr);
  }
};

enum class Key { kNone, kNext, kPrev, kNextHand, kPrevHand, kFirst, kLast, kQuit };

Key parse_key(const char* buf, ssize_t n) {
  if (n <= 0) return Key::kNone;
  const std::string s(buf, static_cast<size_t>(n));
  if (s == "\x1b[C" || s == "\x1bOC") return Key::kNext;
  if (s == "\x1b[D" || s == "\x1bOD") return Key::kPrev;
  if (s == "\x1b[B" || s == "\x1bOB" || s == "\x1b[6~") return Key::kNextHand;
  if (s == "\x1b[A" || s == "\x1bOA" || s == "\x1b[5~") return Key::kPrevHand;
  if (s == "\x1b[H" || s == "\x1b[1~" || s == "\x1bOH") return Key::kFirst;
  if (s == "\x1b[F" || s == "\x1b[4~" || s == "\x1bOF") return Key::kLast;
  if (s == "\x1b") return Key::kQuit;
  switch (s[0]) {
    case 'n':
    case 'l':
    case ' ':
    case '\r':
    case '\n':
      return Key::kNext;
    case 'p':
    case 'h':
    case 'b':
    case 127:
    case 8:
      return Key::kPrev;
    case 'N':
    case 'j':
    case ']':
      return Key::kNextHand;
    case 'P':
    case 'k':
    case '[':
      return Key::kPrevHand;
    case 'g':
      return Key::kFirst;
    case 'G':
      return Key::kLast;
    case 'q':
    case 'Q':
    case 3:
    case 4:
      return Key::kQuit;
    default:
      return Key::kNone;
  }
}

void terminal_size(int& rows, int& cols) {
  winsize ws{};
  rows = 24;
  cols = 80;
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    rows = ws.ws_row;
    cols = ws.ws_col;
  }
}

std::string screen(const Replay& r, const std::vector<Frame>& frames, int at, TerminalOptions o) {
  int rows, cols;
  terminal_size(rows, cols);
  o.width = cols;
  const Painter paint{o.color};
  std::string text = render_frame(r, frames[static_cast<size_t>(at)], o);
  // Earlier events of the hand, most recent last, as many as fit.
  int used = 1;
  for (char c : text) used += c == '\n';
  const int room = rows - used - 3;
  std::vector<std::string> earlier;
  for (int i = at - 1; i >= 0 && static_cast<int>(earlier.size()) < room; --i) {
    const Frame& e = frames[static_cast<size_t>(i)];
    if (e.hand != frames[static_cast<size_t>(at)].hand) break;
    earlier.push_back("  " + highlight(e.text, paint));
    if (e.kind == v1::LogRecord::kHandStart) break;
  }
  if (!earlier.empty()) {
    text += paint("earlier in this hand:", "2");
    text += "\n";
    for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) text += *it + "\n";
  }
  std::string out = "\x1b[H\x1b[2J";
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  out += "\r\n" + paint(
                      "→/n/space next · ←/p previous · ↓/j next hand · ↑/k previous hand · "
                      "g/G first/last · q quit",
                      "2");
  return out;
}

}  // namespace

int run_interactive(const Replay& r, const std::vector<Frame>& frames, int start,
                    TerminalOptions o) {
  if (frames.empty()) return 0;
  if (::tcgetattr(STDIN_FILENO, &g_saved_termios) != 0) return 1;
  SignalGuard signals;
  if (!enter_raw()) return 1;
  struct Restore {
    ~Restore() { leave_raw(); }
  } restore;
  const int last = static_cast<int>(frames.size()) - 1;
  int at = std::clamp(start, 0, last);
  auto hand_start = [&](int i) {
    while (i > 0 && frames[static_cast<size_t>(i)].kind != v1::LogRecord::kHandStart) --i;
    return i;
  };
  for (bool draw = true;;) {
    if (draw || g_redraw) {
      g_redraw = 0;
      const std::string s = screen(r, frames, at, o);
      write_all(s.data(), s.size());
      draw = false;
    }
    char buf[32];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const int before = at;
    switch (parse_key(buf, n)) {
      case Key::kNext:
        at = std::min(at + 1, last);
        break;
      case Key::kPrev:
        at = std::max(at - 1, 0);
        break;
      case Key::kNextHand: {
        int i = at + 1;
        while (i <= last && frames[static_cast<size_t>(i)].kind != v1::LogRecord::kHandStart) ++i;
        at = i <= last ? i : last;
        break;
      }
      case Key::kPrevHand: {
        const int s = hand_start(at);
        at = s < at ? s : hand_start(std::max(s - 1, 0));
        break;
      }
      case Key::kFirst:
        at = 0;
        break;
      case Key::kLast:
        at = last;
        break;
      case Key::kQuit:
        return 0;
      case Key::kNone:
        break;
    }
    draw = at != before;
  }
  return 0;
}

}  // namespace allfives::referee
