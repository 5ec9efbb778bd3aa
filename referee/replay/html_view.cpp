#include "replay/html_view.h"

#include "log/json_text.h"

#include <cmath>
#include <cstdio>
#include <string_view>

#include "review/review_file.h"
#include "review/review_words.h"

namespace allfives::referee {

// The page template (replay_template.html), embedded at build time by embed_file.cmake.
extern const unsigned char kReplayTemplate[];
extern const unsigned long kReplayTemplateSize;

namespace {

void json_ints(std::string& out, const int* begin, const int* end) {
  out += '[';
  for (const int* p = begin; p != end; ++p) {
    if (p != begin) out += ',';
    out += std::to_string(*p);
  }
  out += ']';
}

char kind_code(v1::LogRecord::KindCase k) {
  switch (k) {
    case v1::LogRecord::kHandStart:
      return 's';
    case v1::LogRecord::kPlay:
      return 'p';
    case v1::LogRecord::kDraw:
      return 'd';
    case v1::LogRecord::kPass:
      return 'x';
    case v1::LogRecord::kHandEnd:
      return 'e';
    case v1::LogRecord::kFault:
      return 'f';
    case v1::LogRecord::kMatchEnd:
      return 'm';
    default:
      return '?';
  }
}

// A seat's bot name, or its full label where two seats share a name (partners).
std::string short_seat(const Replay& r, int seat) {
  if (seat < 0 || seat >= r.header.bots_size()) return seat_label(r, seat);
  const std::string& name = r.header.bots(seat).display_name();
  int same = 0;
  for (const auto& b : r.header.bots()) same += b.display_name() == name;
  return name.empty() || same > 1 ? seat_label(r, seat) : name;
}

// A few words per hand for the hand list: how it ended.
std::string hand_result(const Replay& r, const Frame& end) {
  if (end.kind != v1::LogRecord::kHandEnd) return "cut short: the match ended";
  const auto& he = r.steps[static_cast<size_t>(end.step)].record.hand_end();
  if (he.kind() == v1::HAND_END_KIND_DOMINO)
    return short_seat(r, he.domino_seat()) + " out, +" + std::to_string(he.points());
  if (he.winner_side() < 0) return "blocked, a tie";
  return "blocked, " + side_label(r, he.winner_side()) + " +" + std::to_string(he.points());
}

// A play's decision: "y":{"o":[[words,count,points,chosen],...] in the order offered,
// "u":decision_us, "k":bank left ms (-1: not logged), "m":comment, "z":bytes dropped,
// "w":what the bot printed meanwhile, "x":bytes of it dropped, "r":the review's valuation
// (review_decision_json) where reviewed}; a fault's: "o" (the plays the seat had, none
// chosen), "w" and "x".
// Only what the viewer may see (frames.h: Decision::shown), and what HtmlOptions keeps.
void append_output_json(std::string& out, const Decision& d) {
  out += "\"w\":";
  append_json_string(out, d.output);
  out += ",\"x\":";
  out += std::to_string(d.output_dropped);
}

// Where `text`'s seat labels are, as the page's JavaScript counts (UTF-16 units):
// [[begin,length,seat],...], so the page colours them without searching the words.
void append_seat_marks_json(std::string& out, const MarkedText& text) {
  const auto units = [&](size_t from, size_t to) {
    size_t n = 0;
    for (size_t i = from; i < to && i < text.words.size(); ++i) {
      const auto c = static_cast<unsigned char>(text.words[i]);
      if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
    }
    return n;
  };
  out += '[';
  bool first = true;
  for (const TextMark& m : text.marks) {
    if (m.seat < 0) continue;
    out += first ? "[" : ",[";
    first = false;
    out += std::to_string(units(0, m.begin));
    out += ',';
    out += std::to_string(units(m.begin, m.begin + m.size));
    out += ',';
    out += std::to_string(m.seat);
    out += ']';
  }
  out += ']';
}

void append_options_json(std::string& out, const Frame& f) {
  const Decision& d = f.decision;
  // A play's frame shows the line after it, a fault's the line it faulted on.
  const bool opening = f.line.size() == (f.kind == v1::LogRecord::kFault ? 0 : 1);
  out += "\"o\":[";
  for (size_t i = 0; i < d.options.size(); ++i) {
    const DecisionOption& o = d.options[i];
    if (i) out += ',';
    out += '[';
    append_json_string(out, option_text(o, opening));
    // Appended piece by piece: GCC 12 warns (-Wrestrict) on a chain of string temporaries.
    out += ',';
    out += std::to_string(o.count);
    out += ',';
    out += std::to_string(o.points);
    out += o.chosen ? ",1]" : ",0]";
  }
  out += ']';
}

void append_decision_json(std::string& out, const Frame& f, bool output) {
  const Decision& d = f.decision;
  if (f.kind == v1::LogRecord::kFault) {
    if (!d.shown) return;
    out += ",\"y\":{";
    append_options_json(out, f);
    if (output && (!d.output.empty() || d.output_dropped > 0)) {
      out += ',';
      append_output_json(out, d);
    }
    out += '}';
    return;
  }
  out += ",\"y\":{";
  append_options_json(out, f);
  out += ",\"u\":";
  out += std::to_string(d.decision_us);
  out += ",\"k\":";
  out += std::to_string(d.bank_left_ms);
  out += ",\"m\":";
  append_json_string(out, d.comment);
  out += ",\"z\":";
  out += std::to_string(d.comment_dropped);
  if (output) {
    out += ',';
    append_output_json(out, d);
  }
  if (d.review) {
    out += ",\"r\":";
    out += review_decision_json(*d.review);
  }
  out += '}';
}

// A number from a review file for the page's JSON: a file anyone wrote may hold NaN or
// infinities, which JSON cannot carry.
void append_number(std::string& out, double v, const char* format) {
  char buf[40];
  std::snprintf(buf, sizeof buf, format, std::isfinite(v) ? v : 0.0);
  out += buf;
}

}  // namespace

std::string review_decision_json(const v1::ReviewDecision& d) {
  const bool opening = d.play_in_hand() == 1;
  std::string out =
      "{\"h\":" + std::to_string(d.hand_index()) + ",\"n\":" + std::to_string(d.play_in_hand()) +
      ",\"a\":" + std::to_string(d.seat()) + ",\"m\":" + std::to_string(d.mark()) +
      ",\"b\":" + std::to_string(d.best_option()) + ",\"p\":" + std::to_string(d.played_option()) +
      ",\"x\":" + (d.exact() ? "1" : "0") + ",\"l\":";
  append_number(out, d.loss(), "%.3f");
  out += ",\"e\":";
  append_number(out, d.loss_se(), "%.3f");
  out += ",\"k\":";
  append_json_string(out, std::string(mark_word(d.mark())));
  out += ",\"t\":";
  append_json_string(out, decision_words(d));
  out += ",\"v\":[";
  for (int i = 0; i < d.options_size(); ++i) {
    const v1::ReviewOption& o = d.options(i);
    out += i ? ",[" : "[";
    append_json_string(out, play_words(o.play(), opening));
    out += ',';
    out += std::to_string(o.points_now());
    out += ',';
    append_number(out, o.points(), "%.3f");
    out += ',';
    append_number(out, o.points_se(), "%.3f");
    out += ',';
    append_number(out, o.win(), "%.4f");
    out += ',';
    append_number(out, o.win_se(), "%.4f");
    out += ']';
  }
  out += "]}";
  return out;
}

std::string tile_pairs(TileSet s) {
  std::string out;
  for (int i = kNumTiles - 1; i >= 0; --i) {
    const Tile t = Tile::from_index(i);
    if (!s.contains(t)) continue;
    out += static_cast<char>('0' + t.hi());
    out += static_cast<char>('0' + t.lo());
  }
  return out;
}

std::string line_pairs(const Line& line) {
  std::string out;
  for (const LaidTile& t : line_layout(line)) {
    out += static_cast<char>('0' + t.left);
    out += static_cast<char>('0' + t.right);
  }
  return out;
}

std::string html_hands_json(const Replay& r, const std::vector<Frame>& frames) {
  std::string out = "[";
  // Each hand: its first and last step and how it ended.
  bool first_hand = true;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].kind != v1::LogRecord::kHandStart) continue;
    size_t last = i;
    while (last + 1 < frames.size() && frames[last + 1].kind != v1::LogRecord::kHandStart &&
           frames[last + 1].kind != v1::LogRecord::kMatchEnd &&
           frames[last].kind != v1::LogRecord::kHandEnd)
      ++last;
    if (!first_hand) out += ',';
    first_hand = false;
    out += "{\"first\":" + std::to_string(i) + ",\"last\":" + std::to_string(last) + ",\"result\":";
    // A hand without its end in an unfinished log is still being played (or was cut off).
    append_json_string(out, frames[last].kind != v1::LogRecord::kHandEnd && !r.finished
                                ? std::string("in play")
                                : hand_result(r, frames[last]));
    out += ",\"scores\":";
    json_ints(out, frames[last].scores.data(),
              frames[last].scores.data() + frames[last].scores.size());
    out += '}';
  }
  out += ']';
  return out;
}

std::string html_step_json(const Replay& r, const Frame& f, const HtmlOptions& o) {
  const int n = num_players(r.config.format);
  std::string out;
  out += "{\"k\":\"";
  out += kind_code(f.kind);
  out += "\",\"h\":" + std::to_string(f.hand) + ",\"n\":" + std::to_string(f.play) +
         ",\"a\":" + std::to_string(f.seat) + ",\"g\":" + std::to_string(f.log_line) + ",\"l\":\"" +
         line_pairs(f.line) + "\"";
  if (f.placed >= 0) out += ",\"x\":" + std::to_string(f.placed);
  out += ",\"d\":[";
  for (int seat = 0; seat < n; ++seat) {
    const auto s = static_cast<size_t>(seat);
    if (seat) out += ',';
    // A hidden hand is just its size.
    if (f.shown[s]) {
      out += '"';
      out += tile_pairs(f.hands[s]);
      out += '"';
    } else {
      out += std::to_string(f.hand_sizes[s]);
    }
  }
  out += "],\"b\":" + std::to_string(f.boneyard) + ",\"s\":";
  json_ints(out, f.scores.data(), f.scores.data() + f.scores.size());
  if (f.kind == v1::LogRecord::kPlay)
    out += ",\"c\":" + std::to_string(f.count) + ",\"p\":" + std::to_string(f.points) +
           ",\"q\":" + std::to_string(f.side);
  if (f.kind == v1::LogRecord::kHandEnd)
    out += ",\"p\":" + std::to_string(f.points) + ",\"q\":" + std::to_string(f.side);
  if (o.decisions && (f.kind == v1::LogRecord::kPlay || f.kind == v1::LogRecord::kFault))
    append_decision_json(out, f, o.output);
  out += ",\"t\":";
  append_json_string(out, f.text.words);
  out += ",\"tm\":";
  append_seat_marks_json(out, f.text);
  if (!f.notes.empty()) {
    out += ",\"o\":[";
    for (size_t j = 0; j < f.notes.size(); ++j) {
      if (j) out += ',';
      append_json_string(out, f.notes[j].words);
    }
    out += "],\"om\":[";
    for (size_t j = 0; j < f.notes.size(); ++j) {
      if (j) out += ',';
      append_seat_marks_json(out, f.notes[j]);
    }
    out += ']';
  }
  out += '}';
  return out;
}

std::string html_data_json(const Replay& r, const std::vector<Frame>& frames,
                           const HtmlOptions& o) {
  const Format format = r.config.format;
  const int n = num_players(format);
  std::string out;
  out.reserve(frames.size() * 200 + 1024);
  out += "{\"match\":{\"id\":";
  append_json_string(out, r.header.match_id());
  out += ",\"format\":";
  append_json_string(out, format_label(format));
  out += ",\"seed\":";
  // The seed deals every hand: a seat sees it only once the match is over.
  append_json_string(out, o.viewer < 0 || r.finished ? std::to_string(r.header.seed())
                                                     : "shown when the match is over");
  out += ",\"target\":" + std::to_string(r.config.target);
  out += ",\"viewer\":" + std::to_string(o.viewer);
  out += ",\"start\":" + std::to_string(o.start);
  out += ",\"finished\":" + std::string(r.finished ? "true" : "false");
  out += ",\"onlySeat\":" + std::to_string(o.filter.seat);
  out += ",\"onlyMissed\":" + std::string(o.filter.higher_only ? "true" : "false");
  out += ",\"decisions\":" + std::string(o.decisions ? "true" : "false");
  out += ",\"onlyMistakes\":" + std::string(o.filter.marked_only ? "true" : "false");
  bool reviewed = false;
  for (const Frame& f : frames) reviewed = reviewed || f.decision.review.has_value();
  out += ",\"reviewed\":" + std::string(reviewed && o.decisions ? "true" : "false");
  if (!o.review_url.empty()) {
    out += ",\"reviewUrl\":";
    append_json_string(out, o.review_url);
  }
  if (!o.live_url.empty()) {
    out += ",\"live\":";
    append_json_string(out, o.live_url);
  }
  out += ",\"started\":";
  append_json_string(out, r.header.started_at());
  out += "},\"seats\":[";
  for (int seat = 0; seat < n; ++seat) {
    if (seat) out += ',';
    out += "{\"label\":";
    append_json_string(out, seat_label(r, seat));
    out += ",\"name\":";
    append_json_string(out, seat < r.header.bots_size() ? r.header.bots(seat).display_name() : "");
    out += ",\"side\":" + std::to_string(side_of(format, seat)) + "}";
  }
  out += "],\"sides\":[";
  for (int side = 0; side < num_sides(format); ++side) {
    if (side) out += ',';
    append_json_string(out, side_label(r, side));
  }
  out += "],\"hands\":";
  out += html_hands_json(r, frames);
  out += ",\"steps\":[";
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i) out += ",\n";
    out += html_step_json(r, frames[i], o);
  }
  out += "]}";
  return out;
}

std::string render_html(const Replay& r, const std::vector<Frame>& frames, const HtmlOptions& o) {
  const std::string_view page(reinterpret_cast<const char*>(kReplayTemplate), kReplayTemplateSize);
  constexpr std::string_view kSlot = "/*REPLAY_DATA*/";
  constexpr std::string_view kTitle = "<!--TITLE-->";
  std::string title;
  for (char c : "Replay " + r.header.match_id()) {
    switch (c) {
      case '<':
        title += "&lt;";
        break;
      case '>':
        title += "&gt;";
        break;
      case '&':
        title += "&amp;";
        break;
      default:
        title += c;
    }
  }
  std::string out;
  const std::string data = html_data_json(r, frames, o);
  out.reserve(page.size() + data.size() + title.size());
  const size_t slot = page.find(kSlot);
  const size_t at_title = page.find(kTitle);
  if (slot == std::string_view::npos || at_title == std::string_view::npos || at_title > slot)
    return std::string(page);  // a broken template: caught by the tests
  out.append(page.substr(0, at_title));
  out += title;
  out.append(page.substr(at_title + kTitle.size(), slot - at_title - kTitle.size()));
  out += data;
  out.append(page.substr(slot + kSlot.size()));
  return out;
}

}  // namespace allfives::referee
