#include "replay/log_words.h"

namespace allfives::referee::log_words {
namespace {

template <class E>
std::string enum_words(E v, bool (*valid)(int), const std::string& (*name)(E)) {
  return valid(static_cast<int>(v)) ? name(v) : num(static_cast<int>(v));
}

}  // namespace

std::string printable(std::string_view s, size_t limit) {
  std::string out;
  for (const char ch : s) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string num(int64_t v) {
  return std::to_string(v);
}

std::string tile_words(const v1::Tile& t) {
  return num(t.high()) + "-" + num(t.low());
}

std::string tiles_words(const google::protobuf::RepeatedPtrField<v1::Tile>& ts) {
  std::string out = "[";
  for (int i = 0; i < ts.size(); ++i) {
    if (i > 0) out += ' ';
    if (i == 32) {
      out += "...";
      break;
    }
    out += tile_words(ts[i]);
  }
  return out + "]";
}

std::string end_words(End e) {
  return e == End::kLeft ? "left" : "right";
}

std::string end_words(v1::End e) {
  switch (e) {
    case v1::END_LEFT:
      return "left";
    case v1::END_RIGHT:
      return "right";
    case v1::END_UNSPECIFIED:
      return "no end";
    default:
      return "end " + num(e);
  }
}

std::string line_end_words(uint32_t value, bool is_double) {
  return num(value) + (is_double ? " (double)" : "");
}

std::string words(v1::MatchEndReason r) {
  return enum_words(r, v1::MatchEndReason_IsValid, v1::MatchEndReason_Name<v1::MatchEndReason>);
}
std::string words(v1::HandEndKind k) {
  return enum_words(k, v1::HandEndKind_IsValid, v1::HandEndKind_Name<v1::HandEndKind>);
}
std::string words(v1::OpenRule k) {
  return enum_words(k, v1::OpenRule_IsValid, v1::OpenRule_Name<v1::OpenRule>);
}
std::string words(v1::FaultKind k) {
  return enum_words(k, v1::FaultKind_IsValid, v1::FaultKind_Name<v1::FaultKind>);
}
std::string words(v1::Format k) {
  return enum_words(k, v1::Format_IsValid, v1::Format_Name<v1::Format>);
}

std::string what(const v1::LogRecord& r) {
  switch (r.kind_case()) {
    case v1::LogRecord::kHeader:
      return "a header";
    case v1::LogRecord::kHandStart:
      return "the start of hand " + num(r.hand_start().hand_index());
    case v1::LogRecord::kPlay:
      return "a play of " + tile_words(r.play().play().tile()) + " by seat " + num(r.play().seat());
    case v1::LogRecord::kDraw:
      return "a draw of " + num(r.draw().tiles_size()) + " tile" +
             (r.draw().tiles_size() == 1 ? "" : "s") + " by seat " + num(r.draw().seat());
    case v1::LogRecord::kPass:
      return "a pass by seat " + num(r.pass().seat());
    case v1::LogRecord::kHandEnd:
      return "the end of hand " + num(r.hand_end().hand_index());
    case v1::LogRecord::kFault:
      return "a fault of seat " + num(r.fault().seat());
    case v1::LogRecord::kMatchEnd:
      return "the end of the match";
    case v1::LogRecord::kBotOutput:
      return "a bot's output";
    case v1::LogRecord::KIND_NOT_SET:
      break;
  }
  return "an empty record";
}

std::string what(const Event& e) {
  switch (e.kind) {
    case EventKind::kHandStart:
      return "the start of hand " + num(e.hand_index);
    case EventKind::kPlay:
      return "a play of " + to_string(e.play.tile) + " by seat " + num(e.seat);
    case EventKind::kDraw:
      return "a draw of " + num(e.count) + " tile" + (e.count == 1 ? "" : "s") + " by seat " +
             num(e.seat);
    case EventKind::kPass:
      return "a pass by seat " + num(e.seat);
    case EventKind::kHandEnd:
      return "the end of hand " + num(e.hand_index) +
             (static_cast<HandEndKind>(e.reason) == HandEndKind::kDomino
                  ? " (seat " + num(e.seat) + " went out)"
                  : std::string(" (blocked)"));
    case EventKind::kMatchEnd:
      return "the end of the match";
  }
  return "an event";
}

std::string scores_words(const google::protobuf::RepeatedField<uint32_t>& v) {
  std::string out;
  for (int i = 0; i < v.size() && i < 8; ++i) {
    if (i) out += ' ';
    out += num(v[i]);
  }
  if (v.size() > 8) out += " ...";
  return "[" + out + "]";
}

}  // namespace allfives::referee::log_words
