#include "replay/terminal_view.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <ostream>
#include <sstream>

#include "match/match_runner.h"

namespace allfives::referee {
namespace {

// A decision time from the log: "0.84 ms", "12.3 ms", "1.25 s".
std::string decision_text(uint32_t us) {
  char buf[32];
  if (us < 10000) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000.0);
  } else if (us < 1000000) {
    std::snprintf(buf, sizeof buf, "%.1f ms", us / 1000.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  }
  return buf;
}

// load_replay has checked every tile, so these conversions only guard against misuse.
Tile tile_of(const v1::Tile& t) {
  const int hi = static_cast<int>(std::min<uint32_t>(t.high(), kMaxPips));
  const int lo = static_cast<int>(std::min<uint32_t>(t.low(), kMaxPips));
  return Tile::of(hi, lo);
}

TileSet set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& tiles) {
  TileSet s;
  for (const auto& t : tiles) s.add(tile_of(t));
  return s;
}

// A hand from the heaviest tile down, as players sort them: "6-6 6-5 5-5 6-4".
std::string tiles_text(TileSet s) {
  std::string out;
  for (int i = kNumTiles - 1; i >= 0; --i) {
    if (!s.contains(Tile::from_index(i))) continue;
    if (!out.empty()) out += ' ';
    out += to_string(Tile::from_index(i));
  }
  return out;
}

// Tiles in the order given (drawing order).
std::string tiles_text(const google::protobuf::RepeatedPtrField<v1::Tile>& tiles) {
  std::string out;
  for (const auto& t : tiles) {
    if (!out.empty()) out += ' ';
    out += to_string(tile_of(t));
  }
  return out;
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string points_text(int points) {
  return points > 0 ? "scores " + std::to_string(points) : std::string("no score");
}

// Whether the core's state after a step is the table the records describe (it is not after
// a hand's last play, where the core has already dealt the next hand, nor once the match is
// over).
bool state_is_table(const State& s, int hand, const Line& line,
                    const std::array<TileSet, kMaxPlayers>& hands, int boneyard, int n) {
  if (s.is_terminal() || s.hand_index() != hand || !(s.line() == line) ||
      s.boneyard_size() != boneyard)
    return false;
  for (int seat = 0; seat < n; ++seat)
    if (s.hand(seat) != hands[static_cast<size_t>(seat)]) return false;
  return true;
}

std::string scores_text(const Replay& r, const std::vector<int>& scores) {
  std::string out;
  for (size_t side = 0; side < scores.size(); ++side) {
    if (side) out += " · ";
    out += side_label(r, static_cast<int>(side)) + " " + std::to_string(scores[side]);
  }
  return out;
}

void describe_hand_start(const Replay& r, const v1::LogHandStart& hs, int viewer, Frame& f) {
  const int opener = static_cast<int>(hs.opener_seat());
  const bool sees_tile = viewer < 0 || viewer == opener;
  const std::string tile = hs.has_open_with() ? to_string(tile_of(hs.open_with())) : "";
  f.text = "Hand " + std::to_string(hs.hand_index() + 1) + ": " + seat_label(r, opener) + " opens";
  switch (hs.open_rule()) {
    case v1::OPEN_RULE_HIGHEST_DOUBLE:
      f.text += " with the highest double" + (sees_tile ? " " + tile : std::string());
      break;
    case v1::OPEN_RULE_HEAVIEST_TILE:
      f.text += ", nobody holding a double, with the heaviest tile" +
                (sees_tile ? " " + tile : std::string());
      break;
    default:
      f.text += " with any tile (went out in the last hand)";
      break;
  }
  if (viewer < 0 && hs.boneyard_size() > 0)
    f.notes.push_back("boneyard in drawing order: " + tiles_text(hs.boneyard()));
}

void describe_hand_end(const Replay& r, const v1::LogHandEnd& he, Frame& f) {
  const Format format = r.config.format;
  const int n = num_players(format);
  f.text = "Hand " + std::to_string(he.hand_index() + 1);
  f.side = he.winner_side();
  f.points = static_cast<int>(he.points());
  auto pips = [&](int seat) {
    return seat < he.seat_pips_size() ? static_cast<int>(he.seat_pips(seat)) : 0;
  };
  auto holds = [&](int seat) {
    const TileSet t = f.hands[static_cast<size_t>(seat)];
    return seat_label(r, seat) + (t.empty() ? " holds nothing" : " holds " + tiles_text(t)) + ": " +
           plural(pips(seat), "pip", "pips");
  };
  if (he.kind() == v1::HAND_END_KIND_DOMINO) {
    const int out = he.domino_seat();
    f.text += " ends: " + seat_label(r, out) + " went out (domino)";
    std::string sum;
    for (int seat = 0; seat < n; ++seat) {
      if (side_of(format, seat) == side_of(format, out)) continue;
      f.notes.push_back(holds(seat) + " → " + std::to_string(round5(pips(seat))));
      sum += (sum.empty() ? "" : " + ") + std::to_string(round5(pips(seat)));
    }
    f.notes.push_back(
        side_label(r, he.winner_side()) + " scores " + sum +
        (sum.find('+') != std::string::npos ? " = " + std::to_string(he.points()) : std::string()));
  } else {
    f.text += " is blocked: the boneyard is empty and nobody can play";
    for (int seat = 0; seat < n; ++seat) f.notes.push_back(holds(seat));
    const int sides = num_sides(format);
    if (format == Format::kPartnerships)
      for (int side = 0; side < sides && side < he.side_pips_size(); ++side)
        f.notes.push_back(side_label(r, side) + ": " +
                          plural(static_cast<int>(he.side_pips(side)), "pip", "pips"));
    if (he.winner_side() < 0) {
      f.notes.push_back("a tie for the fewest pips: nobody scores");
    } else {
      const int w = he.winner_side();
      std::string calc;
      for (int side = 0; side < sides && side < he.side_pips_size(); ++side)
        if (side != w)
          calc += (calc.empty() ? "" : " + ") +
                  std::to_string(round5(static_cast<int>(he.side_pips(side))));
      const int own = w < he.side_pips_size() ? round5(static_cast<int>(he.side_pips(w))) : 0;
      calc += " − " + std::to_string(own);
      f.notes.push_back(side_label(r, w) + " has the fewest pips and scores " + calc + " = " +
                        std::to_string(he.points()));
    }
  }
}

void describe_match_end(const Replay& r, const v1::LogMatchEnd& me, Frame& f) {
  switch (me.reason()) {
    case v1::MATCH_END_REASON_TARGET:
      f.text = "Match over: the target was reached";
      break;
    case v1::MATCH_END_REASON_HAND_LIMIT:
      f.text = "Match over: the hand limit was reached";
      break;
    case v1::MATCH_END_REASON_FAULT:
      f.text = "Match over: ended by a fault";
      break;
    default:
      f.text = "Match over: aborted, no result";
      break;
  }
  f.text += " after " + plural(static_cast<int>(me.hands_played()), "hand", "hands");
  std::vector<int> final_scores(me.scores().begin(), me.scores().end());
  f.notes.push_back("final scores: " + scores_text(r, final_scores));
  if (me.reason() != v1::MATCH_END_REASON_ABORTED)
    f.notes.push_back(me.winner_side() >= 0 ? "winner: " + side_label(r, me.winner_side())
                                            : std::string("a draw"));
  if (me.fault_seat() >= 0)
    f.notes.push_back(seat_label(r, me.fault_seat()) + " forfeited (" + describe(me.fault_kind()) +
                      ")");
}

}  // namespace

std::string format_label(Format format) {
  switch (format) {
    case Format::kTwoPlayers:
      return "2 players";
    case Format::kThreePlayers:
      return "3 players";
    case Format::kFourPlayers:
      return "4 players";
    case Format::kPartnerships:
      return "partnerships";
  }
  return "?";
}

std::string seat_label(const Replay& r, int seat) {
  std::string name;
  if (seat >= 0 && seat < r.header.bots_size()) name = r.header.bots(seat).display_name();
  return "seat " + std::to_string(seat) + (name.empty() ? "" : " (" + name + ")");
}

std::string side_label(const Replay& r, int side) {
  auto name = [&](int seat) {
    std::string n = seat < r.header.bots_size() ? r.header.bots(seat).display_name() : "";
    return n.empty() ? "seat " + std::to_string(seat) : n;
  };
  if (r.config.format != Format::kPartnerships) return name(side);
  return "side " + std::to_string(side) + " (" + name(side) + " + " + name(side + 2) + ")";
}

std::vector<LaidTile> line_layout(const Line& line) {
  std::deque<LaidTile> d;
  int left = 0, right = 0;
  for (int i = 0; i < line.size(); ++i) {
    const LinePlay& p = line[i];
    if (i == 0) {
      d.push_back({p.tile.lo(), p.tile.hi()});
      left = p.tile.lo();
      right = p.tile.hi();
    } else if (p.end == End::kLeft) {
      const int o = p.tile.has(left) ? p.tile.other(left) : p.tile.lo();
      d.push_front({o, left});
      left = o;
    } else {
      const int o = p.tile.has(right) ? p.tile.other(right) : p.tile.hi();
      d.push_back({right, o});
      right = o;
    }
  }
  return {d.begin(), d.end()};
}

std::vector<Frame> build_frames(const Replay& r, int viewer) {
  const int n = num_players(r.config.format);
  std::vector<Frame> frames;
  frames.reserve(r.steps.size());
  bool revealed = false;  // between a hand's end and the next deal every hand is public
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const ReplayStep& step = r.steps[i];
    const ReplayTable& table = step.table;  // the table right after the record
    const v1::LogRecord& rec = step.record;
    Frame f;
    f.step = static_cast<int>(i);
    f.log_line = step.line;
    f.kind = rec.kind_case();
    f.scores = step.scores;
    f.hand = table.hand_index;
    f.line = table.line;
    f.boneyard = table.boneyard_size;
    switch (rec.kind_case()) {
      case v1::LogRecord::kHandStart: {
        const auto& hs = rec.hand_start();
        revealed = false;
        f.seat = static_cast<int>(hs.opener_seat());
        describe_hand_start(r, hs, viewer, f);
        break;
      }
      case v1::LogRecord::kPlay: {
        const auto& p = rec.play();
        const int seat = static_cast<int>(p.seat());
        const Tile t = tile_of(p.play().tile());
        const bool opening = table.line.size() == 1;
        const bool left = opening || p.play().end() != v1::END_RIGHT;
        f.seat = seat;
        f.placed = left ? 0 : table.line.size() - 1;
        f.count = static_cast<int>(p.count());
        f.points = static_cast<int>(p.points());
        f.side = static_cast<int>(p.side());
        f.text = seat_label(r, seat) +
                 (opening ? " opens with " + to_string(t)
                          : " plays " + to_string(t) + (left ? " on the left" : " on the right")) +
                 ": count " + std::to_string(f.count) + ", " + points_text(f.points);
        if (seat >= 0 && seat < n && table.hands[static_cast<size_t>(seat)].empty())
          f.text += ", and has no tiles left";
        f.text += " (decided in " + decision_text(p.decision_time_us()) + ")";
        break;
      }
      case v1::LogRecord::kDraw: {
        const auto& d = rec.draw();
        f.seat = static_cast<int>(d.seat());
        f.text = seat_label(r, f.seat) + " draws " + plural(d.tiles_size(), "tile", "tiles");
        if (viewer < 0 || viewer == f.seat) f.text += ": " + tiles_text(d.tiles());
        break;
      }
      case v1::LogRecord::kPass:
        f.seat = static_cast<int>(rec.pass().seat());
        f.text = seat_label(r, f.seat) + " passes: no playable tile and the boneyard is empty";
        break;
      case v1::LogRecord::kHandEnd: {
        const auto& he = rec.hand_end();
        revealed = true;
        f.seat = he.domino_seat();
        for (const auto& st : he.hands())
          if (st.seat() < static_cast<uint32_t>(n)) f.hands[st.seat()] = set_of(st.tiles());
        describe_hand_end(r, he, f);
        break;
      }
      case v1::LogRecord::kFault: {
        const auto& fa = rec.fault();
        f.seat = static_cast<int>(fa.seat());
        f.text = seat_label(r, f.seat) + " commits a fault (" + describe(fa.kind()) + ")";
        // The reason may name the faulting seat's tiles (an illegal play lists its hand).
        if (viewer < 0 || viewer == f.seat) f.text += ": " + fa.reason();
        break;
      }
      case v1::LogRecord::kMatchEnd:
        describe_match_end(r, rec.match_end(), f);
        break;
      default:
        break;
    }
    f.play = static_cast<int>(std::max(0, f.line.size()));
    for (int seat = 0; seat < n; ++seat) {
      const auto s = static_cast<size_t>(seat);
      f.hand_sizes[s] = table.hands[s].size();
      f.shown[s] = viewer < 0 || viewer == seat || revealed;
      f.hands[s] = f.shown[s] ? table.hands[s] : TileSet{};
    }
    // One seat's view comes from the rules core's View of the step's state, which carries
    // nothing that seat may not see. The core's state exists only where a seat must decide;
    // for a record in the middle of one of its steps (see ReplayTable) the table above,
    // filtered to what the seat sees, stands in.
    if (viewer >= 0 && viewer < n && !revealed &&
        state_is_table(step.state, table.hand_index, table.line, table.hands, table.boneyard_size,
                       n)) {
      const View v = step.state.view(viewer);
      f.line = v.line();
      f.boneyard = v.boneyard_size();
      f.hands[static_cast<size_t>(viewer)] = v.hand();
      for (int seat = 0; seat < n; ++seat)
        f.hand_sizes[static_cast<size_t>(seat)] = v.hand_size(seat);
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

int find_frame(const std::vector<Frame>& frames, int hand, int play, std::string* error) {
  int first = -1, last = -1, plays = 0;
  for (const Frame& f : frames) {
    if (f.hand != hand - 1 || f.kind == v1::LogRecord::kMatchEnd) continue;
    if (first < 0) first = f.step;
    last = f.step;
    if (f.kind == v1::LogRecord::kPlay) plays = f.play;
    if (play == 0 && f.kind == v1::LogRecord::kHandStart) return f.step;
    if (play > 0 && f.kind == v1::LogRecord::kPlay && f.play == play) return f.step;
  }
  if (error) {
    int hands = 0;
    for (const Frame& f : frames) hands = std::max(hands, f.hand + 1);
    if (first < 0)
      *error = "the match has " + plural(hands, "hand", "hands") + ", numbered from 1; no hand " +
               std::to_string(hand);
    else
      *error = "hand " + std::to_string(hand) + " has " + plural(plays, "play", "plays") +
               "; --play must be 0 (its start) to " + std::to_string(plays);
  }
  (void)last;
  return -1;
}

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

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

// Seat labels in their seat's colour, points scored in bold green.
std::string highlight(const Replay& r, const std::string& text, const Painter& paint) {
  if (!paint.on) return text;
  std::string out = text;
  const int n = num_players(r.config.format);
  for (int seat = n - 1; seat >= 0; --seat)
    replace_all(out, seat_label(r, seat), paint(seat_label(r, seat), kSeatColours[seat]));
  const size_t pos = out.find(", scores ");
  if (pos != std::string::npos) {
    size_t end = pos + 9;
    while (end < out.size() && std::isdigit(static_cast<unsigned char>(out[end]))) ++end;
    out.replace(pos + 2, end - pos - 2, paint(out.substr(pos + 2, end - pos - 2), "1;32"));
  }
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
  out << paint("Match " + r.header.match_id(), "1") << " · " << format_label(r.config.format)
      << " · seed " << r.header.seed() << " · target " << r.config.target << " · "
      << plural(r.hands, "hand", "hands") << ", " << plural(r.plays, "play", "plays") << "\n";
  const int n = num_players(r.config.format);
  for (int seat = 0; seat < n; ++seat) {
    out << "  " << paint(seat_label(r, seat), kSeatColours[seat]);
    if (seat < r.header.bots_size()) {
      const auto& b = r.header.bots(seat);
      if (!b.name().empty())
        out << "  bot " << b.name() << (b.version().empty() ? "" : " " + b.version());
    }
    if (r.config.format == Format::kPartnerships) out << "  side " << seat % 2;
    out << "\n";
  }
  if (o.viewer >= 0)
    out << "Seen by " << paint(seat_label(r, o.viewer), kSeatColours[o.viewer % 4])
        << ": its own hand; other hands as counts until a hand's end reveals them\n";
  return out.str();
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
  out << highlight(r, f.text, paint) << "\n";
  for (const std::string& note : f.notes) out << "  " << highlight(r, note, paint) << "\n";
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
    out << (seat == f.seat && f.kind != v1::LogRecord::kMatchEnd ? "▶ " : "  ")
        << paint(label, kSeatColours[seat]) << std::string(static_cast<size_t>(pad) + 2, ' ');
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
    earlier.push_back("  " + highlight(r, e.text, paint));
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
