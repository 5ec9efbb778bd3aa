#include "replay/replay.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "allfives/wire/convert.h"
#include "log/match_log.h"

namespace allfives::referee {

std::string LogError::describe() const {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
  return file + ": " + message;
}

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// ---------------------------------------------------------------------------------------------
// The fast line reader.
//
// protobuf 3.21's JsonStringToMessage turns the JSON into a binary message through a type
// resolver and a stream writer: tens of microseconds a line, which would make verifying slower
// than reading. This reader fills the message directly by reflection, for the strict subset of
// JSON the referee writes: objects with proto field names, integers, enum names, ASCII strings
// with the usual escapes, booleans. On anything else (camelCase names, numbers in other forms,
// null, a key given twice, non-ASCII text, ...) it gives up and the library decides, so the
// answer is always the library's. The fuzz target checks that the two agree.

// What the reader needs of each message type of the log, looked up once: its fields by proto
// name (in declaration order, which is the order the referee writes them), the reflection, the
// entry of each message field's type and the names of each enum field's values.
struct FieldInfo;
struct TypeInfo {
  const Descriptor* descriptor = nullptr;
  const Reflection* reflection = nullptr;
  std::vector<FieldInfo> fields;
};
struct FieldInfo {
  std::string_view name;
  const FieldDescriptor* field = nullptr;
  const TypeInfo* type = nullptr;                       // message fields
  std::vector<std::pair<std::string_view, int>> enums;  // enum fields: name, number
};

class TypeTable {
 public:
  static const TypeTable& get() {
    static const TypeTable table;
    return table;
  }
  const TypeInfo& root() const { return *types_.front(); }

 private:
  TypeTable() { add(v1::LogRecord::descriptor()); }
  TypeInfo* add(const Descriptor* d) {
    for (const auto& t : types_)
      if (t->descriptor == d) return t.get();
    types_.push_back(std::make_unique<TypeInfo>());
    TypeInfo* t = types_.back().get();
    t->descriptor = d;
    t->reflection =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(d)->GetReflection();
    t->fields.resize(static_cast<size_t>(d->field_count()));
    for (int i = 0; i < d->field_count(); ++i) {
      FieldInfo& fi = t->fields[static_cast<size_t>(i)];
      fi.field = d->field(i);
      fi.name = fi.field->name();
      if (fi.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
        fi.type = add(fi.field->message_type());
      if (fi.field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
        const auto* e = fi.field->enum_type();
        for (int k = 0; k < e->value_count(); ++k)
          fi.enums.emplace_back(e->value(k)->name(), e->value(k)->number());
      }
    }
    return t;
  }
  std::vector<std::unique_ptr<TypeInfo>> types_;
};

class FastReader {
 public:
  explicit FastReader(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}

  // True if the whole text was one object of the subset, now in `m`.
  bool read(Message* m) {
    const TypeInfo& root = TypeTable::get().root();
    if (m->GetDescriptor() != root.descriptor || !object(m, root, 0)) return false;
    skip_ws();
    return p_ == end_;
  }

  // The records that make up most of a log (play, draw, pass), with exactly the referee's
  // fields in its order, straight into the generated message without reflection. Anything
  // else returns false, and read() (then the library) decides.
  bool read_common(v1::LogRecord& r) {
    std::string_view kind;
    uint32_t hand, seat;
    if (!take('{') || !plain_string(kind) || !take(':') || !take('{') || !key("hand_index") ||
        !u32(hand) || !next("seat") || !u32(seat))
      return false;
    if (kind == "pass") {
      v1::LogPass* p = r.mutable_pass();
      p->set_hand_index(hand);
      p->set_seat(seat);
    } else if (kind == "draw") {
      v1::LogDraw* d = r.mutable_draw();
      d->set_hand_index(hand);
      d->set_seat(seat);
      if (!next("tiles") || !take('[')) return false;
      if (!take(']')) {
        do {
          if (!tile(d->add_tiles())) return false;
        } while (take(','));
        if (!take(']')) return false;
      }
    } else if (kind == "play") {
      v1::LogPlay* p = r.mutable_play();
      p->set_hand_index(hand);
      p->set_seat(seat);
      v1::Play* play = p->mutable_play();
      v1::End end;
      if (!next("play") || !take('{') || !key("tile") || !tile(play->mutable_tile()) ||
          !next("end") || !end_name(end) || !take('}'))
        return false;
      play->set_end(end);
      uint32_t count, points, side, side_score, us, legal;
      if (!next("count") || !u32(count) || !next("points") || !u32(points) || !next("side") ||
          !u32(side) || !next("side_score") || !u32(side_score) || !next("decision_time_us") ||
          !u32(us) || !next("legal_play_count") || !u32(legal))
        return false;
      p->set_count(count);
      p->set_points(points);
      p->set_side(side);
      p->set_side_score(side_score);
      p->set_decision_time_us(us);
      p->set_legal_play_count(legal);
      if (!next("left_end") || !line_end(p->mutable_left_end()) || !next("right_end") ||
          !line_end(p->mutable_right_end()))
        return false;
    } else {
      return false;
    }
    if (!take('}') || !take('}')) return false;
    skip_ws();
    return p_ == end_;
  }

 private:
  static constexpr int kMaxDepth = 8;  // the log's messages nest 4 deep

  // `"name":` (compared in place: the names are short and known).
  bool key(std::string_view name) {
    skip_ws();
    const size_t n = name.size();
    if (static_cast<size_t>(end_ - p_) < n + 2 || p_[0] != '"' || p_[n + 1] != '"') return false;
    for (size_t i = 0; i < n; ++i)
      if (p_[i + 1] != name[i]) return false;
    p_ += n + 2;
    return take(':');
  }
  bool next(std::string_view name) { return take(',') && key(name); }
  bool u32(uint32_t& v) {
    bool neg;
    uint64_t mag;
    if (!integer(neg, mag) || neg || mag > UINT32_MAX) return false;
    v = static_cast<uint32_t>(mag);
    return true;
  }
  bool boolean(bool& v) {
    if (literal("true")) {
      v = true;
    } else if (literal("false")) {
      v = false;
    } else {
      return false;
    }
    return true;
  }
  bool tile(v1::Tile* t) {
    uint32_t high, low;
    if (!take('{') || !key("high") || !u32(high) || !next("low") || !u32(low) || !take('}'))
      return false;
    t->set_high(high);
    t->set_low(low);
    return true;
  }
  bool line_end(v1::LineEnd* e) {
    uint32_t value;
    bool is_double;
    if (!take('{') || !key("value") || !u32(value) || !next("is_double") || !boolean(is_double) ||
        !take('}'))
      return false;
    e->set_value(value);
    e->set_is_double(is_double);
    return true;
  }
  bool end_name(v1::End& e) {
    std::string_view n;
    if (!plain_string(n)) return false;
    if (n == "END_LEFT") {
      e = v1::END_LEFT;
    } else if (n == "END_RIGHT") {
      e = v1::END_RIGHT;
    } else if (n == "END_UNSPECIFIED") {
      e = v1::END_UNSPECIFIED;
    } else {
      return false;
    }
    return true;
  }

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool take(char c) {
    skip_ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // A string without escapes (keys, enum names).
  bool plain_string(std::string_view& out) {
    if (!take('"')) return false;
    const char* start = p_;
    while (p_ < end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool string(std::string& out) {
    if (!take('"')) return false;
    out.clear();
    for (;;) {
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_++);
      if (c == '"') return true;
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (p_ == end_) return false;
      switch (*p_++) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (end_ - p_ < 4) return false;
          int v = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = hex(*p_++);
            if (h < 0) return false;
            v = v * 16 + h;
          }
          // Only what the referee's printer writes: \u00XX for ASCII control characters,
          // DEL, < and >. Anything else is the library's business.
          if (v == 0 || v >= 0x80) return false;
          out += static_cast<char>(v);
          break;
        }
        default:
          return false;
      }
    }
  }

  // An integer: digits with an optional minus, bare or in quotes. No leading zeros, no
  // fraction, no exponent.
  bool integer(bool& negative, uint64_t& magnitude) {
    skip_ws();
    const bool quoted = p_ < end_ && *p_ == '"';
    if (quoted) ++p_;
    negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    const char* start = p_;
    magnitude = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const auto d = static_cast<uint64_t>(*p_ - '0');
      if (magnitude > (UINT64_MAX - d) / 10) return false;
      magnitude = magnitude * 10 + d;
      ++p_;
    }
    const auto digits = p_ - start;
    if (digits == 0 || (digits > 1 && *start == '0') || (negative && magnitude == 0)) return false;
    if (quoted) {
      if (p_ == end_ || *p_ != '"') return false;
      ++p_;
    }
    // A number must end here: no fraction, exponent or other character glued to it.
    return p_ == end_ || !(*p_ == '.' || *p_ == 'e' || *p_ == 'E' || (*p_ >= '0' && *p_ <= '9'));
  }

  bool literal(std::string_view word) {
    skip_ws();
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    return true;
  }

  // One value of field `f` of `m` (appended if `f` is repeated).
  bool value(Message* m, const Reflection* r, const FieldInfo& fi, int depth) {
    const FieldDescriptor* f = fi.field;
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64: {
        bool neg;
        uint64_t mag;
        if (!integer(neg, mag)) return false;
        switch (f->cpp_type()) {
          case FieldDescriptor::CPPTYPE_INT32: {
            if (mag > (neg ? 2147483648ull : 2147483647ull)) return false;
            const auto v =
                static_cast<int32_t>(neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag));
            rep ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
            return true;
          }
          case FieldDescriptor::CPPTYPE_UINT32: {
            if (neg || mag > UINT32_MAX) return false;
            const auto v = static_cast<uint32_t>(mag);
            rep ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
            return true;
          }
          case FieldDescriptor::CPPTYPE_INT64: {
            if (mag > (neg ? 9223372036854775808ull : 9223372036854775807ull)) return false;
            const int64_t v = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
            rep ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
            return true;
          }
          default: {
            if (neg) return false;
            rep ? r->AddUInt64(m, f, mag) : r->SetUInt64(m, f, mag);
            return true;
          }
        }
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        bool v;
        if (literal("true")) {
          v = true;
        } else if (literal("false")) {
          v = false;
        } else {
          return false;
        }
        rep ? r->AddBool(m, f, v) : r->SetBool(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        std::string_view name;
        if (!plain_string(name)) return false;
        for (const auto& [n, number] : fi.enums)
          if (n == name) {
            rep ? r->AddEnumValue(m, f, number) : r->SetEnumValue(m, f, number);
            return true;
          }
        return false;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        if (f->type() == FieldDescriptor::TYPE_BYTES) return false;
        std::string s;
        if (!string(s)) return false;
        rep ? r->AddString(m, f, std::move(s)) : r->SetString(m, f, std::move(s));
        return true;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return object(rep ? r->AddMessage(m, f) : r->MutableMessage(m, f), *fi.type, depth + 1);
      default:
        return false;
    }
  }

  bool object(Message* m, const TypeInfo& type, int depth) {
    if (depth > kMaxDepth || !take('{')) return false;
    if (type.descriptor->file()->package() == "google.protobuf") return false;  // well-known
    const Reflection* r = type.reflection;
    if (take('}')) return true;
    uint64_t seen = 0;
    const size_t count = type.fields.size();
    size_t next = 0;  // fields usually come in declaration order: try the next one first
    for (;;) {
      std::string_view key;
      if (!plain_string(key) || !take(':')) return false;
      const FieldInfo* fi = nullptr;
      for (size_t k = 0; k < count && !fi; ++k) {
        const FieldInfo& candidate = type.fields[(next + k) % count];
        if (candidate.name == key) {
          fi = &candidate;
          next = (next + k + 1) % count;
        }
      }
      if (!fi) return false;
      const FieldDescriptor* f = fi->field;
      if (f->is_map() || f->number() >= 64) return false;
      const uint64_t bit = uint64_t{1} << f->number();
      if (seen & bit) return false;
      seen |= bit;
      if (f->containing_oneof() && r->GetOneofFieldDescriptor(*m, f->containing_oneof()))
        return false;
      if (f->is_repeated()) {
        if (!take('[')) return false;
        if (!take(']')) {
          do {
            if (!value(m, r, *fi, depth)) return false;
          } while (take(','));
          if (!take(']')) return false;
        }
      } else if (!value(m, r, *fi, depth)) {
        return false;
      }
      if (take(',')) continue;
      return take('}');
    }
  }

  const char* p_;
  const char* end_;
};

// ---------------------------------------------------------------------------------------------
// Words for messages.

// Log bytes may be anything: keep messages printable and short.
std::string printable(std::string_view s, size_t limit = 300) {
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

template <class E>
std::string enum_words(E v, bool (*valid)(int), const std::string& (*name)(E)) {
  return valid(static_cast<int>(v)) ? name(v) : num(static_cast<int>(v));
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

// What a record is, in a few words.
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

// What the core reported, in the same words.
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

// Collects the fields where the log and the rules disagree, and says so in one sentence.
class Diff {
 public:
  void num(std::string_view name, int64_t log, int64_t rules) {
    if (log != rules) add(name, referee::num(log), referee::num(rules));
  }
  void add(std::string_view name, const std::string& log, const std::string& rules) {
    log_ += (log_.empty() ? "" : ", ") + std::string(name) + (name.empty() ? "" : " ") + log;
    rules_ += (rules_.empty() ? "" : ", ") + std::string(name) + (name.empty() ? "" : " ") + rules;
  }
  bool empty() const { return log_.empty(); }
  std::string text() const { return "the log says " + log_ + "; the rules say " + rules_; }

 private:
  std::string log_, rules_;
};

// A log tile as a core tile: halves 0..6, the high half first.
bool tile_of(const v1::Tile& m, Tile& out) {
  if (m.high() > kMaxPips || m.low() > m.high()) return false;
  out = Tile::of(static_cast<int>(m.high()), static_cast<int>(m.low()));
  return true;
}

// A log list of tiles as a set; false if a tile is malformed or listed twice.
bool set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet& out) {
  TileSet s;
  if (ts.size() > kNumTiles) return false;
  for (const v1::Tile& m : ts) {
    Tile t;
    if (!tile_of(m, t) || s.contains(t)) return false;
    s.add(t);
  }
  out = s;
  return true;
}

bool same_tiles(const google::protobuf::RepeatedPtrField<v1::Tile>& ts, TileSet expected) {
  TileSet s;
  return set_of(ts, s) && s == expected;
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

template <class V>
std::string scores_words(const V& v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += num(v[i]);
  }
  return "[" + out + "]";
}

// Places per side, 1 = first: by score, equal scores sharing a place, a faulting side last.
std::array<int, kMaxPlayers> places(const std::array<int, kMaxPlayers>& scores, int sides,
                                    int faulting_side) {
  std::array<int, kMaxPlayers> place{};
  for (int a = 0; a < sides; ++a) {
    if (a == faulting_side) {
      place[a] = sides;
      continue;
    }
    place[a] = 1;
    for (int b = 0; b < sides; ++b)
      if (b != a && b != faulting_side && scores[b] > scores[a]) ++place[a];
  }
  return place;
}

// ---------------------------------------------------------------------------------------------
// The check: the log's records against the core, one record at a time.

constexpr int kMaxHands = kMaxHandLimit;

class Checker {
 public:
  Checker(const std::string& file, Replay& out, LogError& error, bool keep_steps)
      : file_(file), out_(out), error_(error), keep_steps_(keep_steps) {}

  // Checks one record; with keep_steps it is moved into a new step.
  bool record(int line, v1::LogRecord& r);
  bool finish(int last_line);

 private:
  enum class Phase { kHeader, kPlaying, kFaulted, kEnded };

  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = printable(message, 600);
    return false;
  }
  bool header(int line, const v1::LogHeader& h);
  bool hand_start(int line, const v1::LogHandStart& h);
  bool play(int line, const v1::LogPlay& p);
  bool draw(int line, const v1::LogDraw& d);
  bool pass(int line, const v1::LogPass& p);
  bool hand_end(int line, const v1::LogHandEnd& h);
  bool fault(int line, const v1::LogFault& f);
  bool match_end(int line, const v1::LogMatchEnd& m);
  bool bot_output(int line, const v1::LogBotOutput& b);

  // The next event the core reported that the log has not shown yet (match ends aside).
  const Event* peek() {
    while (next_ < pending_.size() && pending_[next_].kind == EventKind::kMatchEnd) ++next_;
    return next_ < pending_.size() ? &pending_[next_] : nullptr;
  }
  std::string expected() {
    if (const Event* e = peek()) return what(*e);
    if (state_->is_terminal()) return "the end of the match";
    return "a play by seat " + num(state_->seat_to_move());
  }
  // The next pending event, if it is of `kind`; else fails naming what the log has (words
  // built only then) and what the rules expect.
  template <class Words>
  const Event* take(int line, EventKind kind, const Words& log_words) {
    const Event* e = peek();
    if (!e || e->kind != kind) {
      fail(line, "the log has " + log_words() + " here; the rules expect " + expected());
      return nullptr;
    }
    ++next_;
    return e;
  }
  template <class Words>
  bool check_hand_index(int line, const Words& what, uint32_t log, int rules) {
    if (log == static_cast<uint32_t>(rules)) return true;
    return fail(line,
                what() + ": the log says hand " + num(log) + "; the rules say hand " + num(rules));
  }
  template <class Words>
  bool check_scores(int line, const Words& what,
                    const google::protobuf::RepeatedField<uint32_t>& log) {
    bool same = log.size() == sides_;
    for (int s = 0; same && s < sides_; ++s) same = log[s] == static_cast<uint32_t>(scores_[s]);
    if (same) return true;
    return fail(line, what() + ": the log says scores " + scores_words(log) +
                          "; the rules say scores " + scores_words(scores_, sides_));
  }

  const std::string& file_;
  Replay& out_;
  LogError& error_;
  const bool keep_steps_;

  Phase phase_ = Phase::kHeader;
  Config config_;
  int n_ = 0;
  int sides_ = 0;
  uint64_t seed_ = 0;
  std::optional<State> state_;
  EventList pending_;
  int next_ = 0;
  std::array<int, kMaxPlayers> scores_{};
  Deal deal_;
  int drawn_ = 0;
  ReplayTable table_;
  int hands_started_ = 0;
  Event last_hand_end_{};
  v1::LogRecord::KindCase last_kind_ = v1::LogRecord::KIND_NOT_SET;
  std::optional<v1::LogFault> fault_;
  int fault_line_ = 0;
  std::array<bool, kMaxPlayers> output_seen_{};
};

bool Checker::record(int line, v1::LogRecord& r) {
  const auto kind = r.kind_case();
  if (kind == v1::LogRecord::KIND_NOT_SET)
    return fail(line,
                "the record is empty: it is none of header, hand_start, play, draw, pass, "
                "hand_end, fault, match_end, bot_output");
  if (phase_ == Phase::kHeader) {
    if (kind != v1::LogRecord::kHeader)
      return fail(line, "the log starts with " + what(r) + "; a log starts with its header");
    if (!header(line, r.header())) return false;
    out_.header = std::move(*r.mutable_header());
    phase_ = Phase::kPlaying;
    last_kind_ = kind;
    return true;
  }
  if (kind == v1::LogRecord::kHeader)
    return fail(line, "a second header; the header is the first line only");
  if (phase_ == Phase::kEnded && kind != v1::LogRecord::kBotOutput)
    return fail(line, "the log has " + what(r) +
                          " after the end of the match; only bots' output may follow it");
  if (phase_ == Phase::kFaulted && kind != v1::LogRecord::kMatchEnd)
    return fail(line, "the log has " + what(r) + " after the fault of line " + num(fault_line_) +
                          "; the end of the match must follow a fault");
  bool ok = false;
  switch (kind) {
    case v1::LogRecord::kHandStart:
      ok = hand_start(line, r.hand_start());
      break;
    case v1::LogRecord::kPlay:
      ok = play(line, r.play());
      break;
    case v1::LogRecord::kDraw:
      ok = draw(line, r.draw());
      break;
    case v1::LogRecord::kPass:
      ok = pass(line, r.pass());
      break;
    case v1::LogRecord::kHandEnd:
      ok = hand_end(line, r.hand_end());
      break;
    case v1::LogRecord::kFault:
      ok = fault(line, r.fault());
      break;
    case v1::LogRecord::kMatchEnd:
      ok = match_end(line, r.match_end());
      break;
    case v1::LogRecord::kBotOutput:
      if (!bot_output(line, r.bot_output())) return false;
      out_.bot_output.push_back(std::move(*r.mutable_bot_output()));
      return true;
    default:
      break;
  }
  if (!ok) return false;
  last_kind_ = kind;
  if (!keep_steps_) return true;
  table_.seat_to_move = peek() || phase_ != Phase::kPlaying ? -1 : state_->seat_to_move();
  std::vector<int> scores(scores_.begin(), scores_.begin() + sides_);
  out_.steps.push_back(ReplayStep{line, std::move(r), *state_, std::move(scores), table_});
  return true;
}

bool Checker::header(int line, const v1::LogHeader& h) {
  Diff d;
  d.num("log_version", h.log_version(), wire::kLogVersion);
  if (h.rules_version() != wire::kRulesVersion)
    d.add("rules_version", "\"" + printable(h.rules_version(), 40) + "\"",
          std::string("\"") + wire::kRulesVersion + "\"");
  if (!d.empty()) return fail(line, "header: " + d.text() + " (this verifier reads only these)");
  // The records do not depend on the bot protocol, so logs of every version so far are read.
  if (h.protocol_version() < 1 || h.protocol_version() > wire::kProtocolVersion)
    return fail(line, "header: protocol_version " + std::to_string(h.protocol_version()) +
                          ", expected 1 to " + std::to_string(wire::kProtocolVersion) +
                          " (this verifier reads only these)");
  if (!wire::from_proto(h.format(), config_.format, nullptr))
    return fail(line, "header: the log says format " + words(h.format()) +
                          "; the rules know FORMAT_TWO_PLAYERS, FORMAT_THREE_PLAYERS, "
                          "FORMAT_FOUR_PLAYERS and FORMAT_PARTNERSHIPS");
  n_ = num_players(config_.format);
  sides_ = num_sides(config_.format);
  d.num("num_players", h.num_players(), n_);
  d.num("num_sides", h.num_sides(), sides_);
  d.num("bots", h.bots_size(), n_);
  if (!d.empty()) return fail(line, "header of a " + words(h.format()) + " match: " + d.text());
  for (int s = 0; s < n_; ++s) {
    const v1::LogBot& b = h.bots(s);
    Diff db;
    db.num("seat", b.seat(), s);
    db.num("side", b.side(), side_of(config_.format, s));
    if (!db.empty()) return fail(line, "header, bot " + num(s) + ": " + db.text());
  }
  if (h.target_score() < 1 || h.target_score() > kMaxTarget)
    return fail(line, "header: the log says target_score " + num(h.target_score()) +
                          "; a target must be 1.." + num(kMaxTarget) +
                          " (RULES.md: " + num(standard_target(config_.format)) + ")");
  if (h.max_hands() < 1 || h.max_hands() > kMaxHands)
    return fail(line, "header: the log says max_hands " + num(h.max_hands()) + "; it must be 1.." +
                          num(kMaxHands) + " (RULES.md: 200)");
  config_.target = static_cast<int>(h.target_score());
  config_.max_hands = static_cast<int>(h.max_hands());
  seed_ = h.seed();
  out_.config = config_;
  state_ = State::new_match(config_, seed_, &pending_);
  next_ = 0;
  return true;
}

bool Checker::hand_start(int line, const v1::LogHandStart& h) {
  const Event* e = peek();
  if (!e || e->kind != EventKind::kHandStart)
    return fail(line, "the log has the start of hand " + num(h.hand_index()) +
                          " here; the rules expect " + expected());
  ++next_;
  const auto what = [&] { return "hand " + num(e->hand_index) + " start"; };
  if (!check_hand_index(line, what, h.hand_index(), e->hand_index)) return false;
  // The deal.
  if (h.hands_size() != n_)
    return fail(line, what() + ": the log deals " + num(h.hands_size()) +
                          " hands; the rules deal " + num(n_) + ", one per seat");
  const std::string by_seed = " (seed " + std::to_string(seed_) + ")";
  for (int s = 0; s < n_; ++s) {
    const v1::SeatTiles& st = h.hands(s);
    if (st.seat() != static_cast<uint32_t>(s))
      return fail(line, what() + ": the log says hand " + num(s) + " is seat " + num(st.seat()) +
                            "'s; the rules list the hands in seat order");
    if (!same_tiles(st.tiles(), e->deal.hands[s]))
      return fail(line, what() + ", seat " + num(s) + "'s deal: the log says " +
                            tiles_words(st.tiles()) + "; the rules" + by_seed + " deal " +
                            to_string(e->deal.hands[s]));
  }
  bool same = h.boneyard_size() == e->deal.boneyard_size;
  for (int i = 0; same && i < e->deal.boneyard_size; ++i) {
    Tile t;
    same = tile_of(h.boneyard(i), t) && t == e->deal.boneyard[i];
  }
  if (!same) {
    std::string rules = "[";
    for (int i = 0; i < e->deal.boneyard_size; ++i) {
      if (i) rules += ' ';
      rules += to_string(e->deal.boneyard[i]);
    }
    return fail(line, what() + ", the boneyard in drawing order: the log says " +
                          tiles_words(h.boneyard()) + "; the rules" + by_seed + " say " + rules +
                          "]");
  }
  // Who opens, and with what.
  const auto rule = static_cast<OpenRule>(e->reason);
  Diff d;
  d.num("opener_seat", h.opener_seat(), e->seat);
  if (h.open_rule() != wire::to_proto(rule))
    d.add("open_rule", words(h.open_rule()), words(wire::to_proto(rule)));
  if (rule == OpenRule::kWinnerChooses) {
    if (h.has_open_with()) d.add("open_with", tile_words(h.open_with()), "none (any tile)");
  } else {
    Tile t;
    if (!h.has_open_with() || !tile_of(h.open_with(), t) || t != e->open_with)
      d.add("open_with", h.has_open_with() ? tile_words(h.open_with()) : "none",
            to_string(e->open_with));
  }
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (!check_scores(line, what, h.scores())) return false;

  deal_ = e->deal;
  drawn_ = 0;
  ++hands_started_;
  ++out_.hands;
  if (keep_steps_) out_.hand_starts.push_back(static_cast<int>(out_.steps.size()));
  table_.hand_index = e->hand_index;
  table_.hands = deal_.hands;
  table_.line = Line{};
  table_.boneyard_size = deal_.boneyard_size;
  return true;
}

bool Checker::play(int line, const v1::LogPlay& p) {
  if (peek() || state_->is_terminal())
    return fail(line, "the log has a play of " + tile_words(p.play().tile()) + " by seat " +
                          num(p.seat()) + " here; the rules expect " + expected());
  const State& st = *state_;
  const int hand = st.hand_index();
  const auto what = [&] {
    return "play of " + tile_words(p.play().tile()) + " by seat " + num(p.seat()) + " (hand " +
           num(hand) + ")";
  };
  if (!check_hand_index(line, what, p.hand_index(), st.hand_index())) return false;
  if (p.seat() != static_cast<uint32_t>(st.seat_to_move()))
    return fail(line, what() + ": the log says seat " + num(p.seat()) +
                          " plays; the rules say seat " + num(st.seat_to_move()) + " is to play");
  Play play;
  if (!p.has_play() || !p.play().has_tile() || !tile_of(p.play().tile(), play.tile))
    return fail(line, what() + ": the log's tile " +
                          (p.play().has_tile() ? tile_words(p.play().tile()) : "(none)") +
                          " is not a tile; the rules want halves 0..6, the high half first");
  const bool opening = st.line().empty();
  const v1::End end = p.play().end();
  if (opening ? end != v1::END_LEFT : end != v1::END_LEFT && end != v1::END_RIGHT)
    return fail(line, what() + ": the log says " + end_words(end) + "; the rules say " +
                          (opening ? "an opening play is recorded on the left end"
                                   : "a play goes on the left or the right end"));
  play.end = end == v1::END_RIGHT ? End::kRight : End::kLeft;
  const int legal = st.legal_plays().size();
  if (const PlayError err = st.check(play); err != PlayError::kNone) {
    std::string why = std::string(describe(err));
    if (err == PlayError::kMustOpenWith) {
      why += ": " + to_string(st.legal_plays()[0].tile);
    } else if (!opening) {
      why += " (open ends: left " + num(st.line().end(End::kLeft).value) + ", right " +
             num(st.line().end(End::kRight).value) + ")";
    }
    return fail(line, what() + ": the log says seat " + num(p.seat()) + " plays " +
                          to_string(play.tile) + (opening ? "" : " on the " + end_words(play.end)) +
                          "; the rules say no: " + why + "; hand " +
                          to_string(st.hand(st.seat_to_move())));
  }
  pending_.clear();
  next_ = 0;
  state_->apply(play, &pending_);
  const Event& e = pending_[0];  // the play itself
  next_ = 1;
  const int side_score = scores_[e.side] + e.points;
  Diff d;
  d.num("count", p.count(), e.count);
  d.num("points", p.points(), e.points);
  d.num("side", p.side(), e.side);
  d.num("side_score", p.side_score(), side_score);
  // The line after the play (the core's state may already be in the next hand).
  Line ln = table_.line;
  ln.place(play.tile, play.end, e.seat);
  const LineEnd le = ln.end(End::kLeft), re = ln.end(End::kRight);
  if (!p.has_left_end() || p.left_end().value() != le.value ||
      p.left_end().is_double() != le.is_double)
    d.add(
        "left end",
        p.has_left_end() ? line_end_words(p.left_end().value(), p.left_end().is_double()) : "none",
        line_end_words(le.value, le.is_double));
  if (!p.has_right_end() || p.right_end().value() != re.value ||
      p.right_end().is_double() != re.is_double)
    d.add("right end",
          p.has_right_end() ? line_end_words(p.right_end().value(), p.right_end().is_double())
                            : "none",
          line_end_words(re.value, re.is_double));
  d.num("legal_play_count", p.legal_play_count(), legal);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  scores_[e.side] = side_score;
  ++out_.plays;
  table_.hands[e.seat].remove(play.tile);
  table_.line = ln;
  return true;
}

bool Checker::draw(int line, const v1::LogDraw& dr) {
  const Event* e = take(line, EventKind::kDraw, [&] {
    return "a draw of " + num(dr.tiles_size()) + " tile" + (dr.tiles_size() == 1 ? "" : "s") +
           " by seat " + num(dr.seat());
  });
  if (!e) return false;
  const auto what = [&] {
    return "draw by seat " + num(e->seat) + " (hand " + num(e->hand_index) + ")";
  };
  if (!check_hand_index(line, what, dr.hand_index(), e->hand_index)) return false;
  if (dr.seat() != static_cast<uint32_t>(e->seat))
    return fail(line, "draw: the log says seat " + num(dr.seat()) + " draws; the rules say seat " +
                          num(e->seat) + " draws");
  bool same = dr.tiles_size() == e->count && drawn_ + e->count <= deal_.boneyard_size;
  for (int i = 0; same && i < e->count; ++i) {
    Tile t;
    same = tile_of(dr.tiles(i), t) && t == deal_.boneyard[drawn_ + i];
  }
  if (!same) {
    std::string rules = "[";
    for (int i = 0; i < e->count && drawn_ + i < deal_.boneyard_size; ++i) {
      if (i) rules += ' ';
      rules += to_string(deal_.boneyard[drawn_ + i]);
    }
    return fail(line, what() + ": the log says the tiles drawn were " + tiles_words(dr.tiles()) +
                          "; the rules say " + rules + "] (the next tiles of the boneyard, until " +
                          "one fits or none is left)");
  }
  drawn_ += e->count;
  table_.hands[e->seat] |= e->tiles;
  table_.boneyard_size -= e->count;
  return true;
}

bool Checker::pass(int line, const v1::LogPass& p) {
  const Event* e = take(line, EventKind::kPass, [&] { return "a pass by seat " + num(p.seat()); });
  if (!e) return false;
  const auto what = [&] {
    return "pass by seat " + num(e->seat) + " (hand " + num(e->hand_index) + ")";
  };
  if (!check_hand_index(line, what, p.hand_index(), e->hand_index)) return false;
  if (p.seat() != static_cast<uint32_t>(e->seat))
    return fail(line, "pass: the log says seat " + num(p.seat()) + " passes; the rules say seat " +
                          num(e->seat) + " passes");
  return true;
}

bool Checker::hand_end(int line, const v1::LogHandEnd& h) {
  const Event* e =
      take(line, EventKind::kHandEnd, [&] { return "the end of hand " + num(h.hand_index()); });
  if (!e) return false;
  const auto what = [&] { return "end of hand " + num(e->hand_index); };
  if (!check_hand_index(line, what, h.hand_index(), e->hand_index)) return false;
  const auto kind = static_cast<HandEndKind>(e->reason);
  Diff d;
  if (h.kind() != wire::to_proto(kind)) d.add("kind", words(h.kind()), words(wire::to_proto(kind)));
  d.num("domino_seat", h.domino_seat(), kind == HandEndKind::kDomino ? e->seat : -1);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (h.hands_size() != n_)
    return fail(line, what() + ": the log reveals " + num(h.hands_size()) +
                          " hands; the rules reveal " + num(n_) + ", one per seat");
  for (int s = 0; s < n_; ++s) {
    const v1::SeatTiles& st = h.hands(s);
    if (st.seat() != static_cast<uint32_t>(s))
      return fail(line, what() + ": the log says revealed hand " + num(s) + " is seat " +
                            num(st.seat()) + "'s; the rules list the hands in seat order");
    if (!same_tiles(st.tiles(), e->hands[s]))
      return fail(line, what() + ", seat " + num(s) + "'s tiles left: the log says " +
                            tiles_words(st.tiles()) + "; the rules say " + to_string(e->hands[s]));
  }
  std::array<int, kMaxPlayers> side_pips{};
  for (int s = 0; s < n_; ++s) side_pips[side_of(config_.format, s)] += e->values[s];
  bool same = h.seat_pips_size() == n_;
  for (int s = 0; same && s < n_; ++s) same = h.seat_pips(s) == static_cast<uint32_t>(e->values[s]);
  if (!same) d.add("seat_pips", scores_words(h.seat_pips()), scores_words(e->values, n_));
  same = h.side_pips_size() == sides_;
  for (int s = 0; same && s < sides_; ++s)
    same = h.side_pips(s) == static_cast<uint32_t>(side_pips[s]);
  if (!same) d.add("side_pips", scores_words(h.side_pips()), scores_words(side_pips, sides_));
  d.num("winner_side", h.winner_side(), e->side);
  d.num("points", h.points(), e->points);
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  if (e->side >= 0) scores_[e->side] += e->points;
  if (!check_scores(line, what, h.scores())) return false;
  last_hand_end_ = *e;
  return true;
}

bool Checker::fault(int line, const v1::LogFault& f) {
  // A fault comes where the referee stops asking: at a decision, before the first deal, or
  // while it tells the bots about a hand's start or end (then the rest of that step is cut).
  const bool at_decision = !peek();
  const bool cut = last_kind_ == v1::LogRecord::kHandStart ||
                   last_kind_ == v1::LogRecord::kHandEnd || hands_started_ == 0;
  if (!at_decision && !cut)
    return fail(line, "the log has a fault of seat " + num(f.seat()) + " here; the rules expect " +
                          expected() + " first");
  if (f.seat() >= static_cast<uint32_t>(n_))
    return fail(line,
                "fault: the log says seat " + num(f.seat()) + "; the seats are 0.." + num(n_ - 1));
  Diff d;
  d.num("side", f.side(), side_of(config_.format, static_cast<int>(f.seat())));
  if (f.kind() == v1::FAULT_KIND_UNSPECIFIED || !v1::FaultKind_IsValid(f.kind()))
    d.add("kind", words(f.kind()), "one of the fault kinds of common.proto");
  d.num("hand_index", f.hand_index(), std::max(0, hands_started_ - 1));
  if (f.reason().empty()) d.add("reason", "nothing", "what the bot did");
  if (!d.empty()) return fail(line, "fault of seat " + num(f.seat()) + ": " + d.text());
  fault_ = f;
  fault_line_ = line;
  phase_ = Phase::kFaulted;
  return true;
}

bool Checker::match_end(int line, const v1::LogMatchEnd& m) {
  const State& st = *state_;
  const auto what = [] { return std::string("end of the match"); };
  const auto reason = m.reason();
  // Why it ended.
  const bool board_end =
      reason == v1::MATCH_END_REASON_TARGET || reason == v1::MATCH_END_REASON_HAND_LIMIT;
  if (board_end || reason == v1::MATCH_END_REASON_ABORTED) {
    if (fault_)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say MATCH_END_REASON_FAULT (line " + num(fault_line_) +
                            " records a fault)");
    if (peek() && !(reason == v1::MATCH_END_REASON_ABORTED && hands_started_ == 0))
      return fail(line, "the log has the end of the match here; the rules expect " + expected());
  }
  if (board_end) {
    if (!st.is_terminal())
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say the match goes on (scores " +
                            scores_words(scores_, sides_) + ", target " + num(config_.target) +
                            ", hand " + num(st.hand_index() + 1) + " of " + num(config_.max_hands) +
                            "), seat " + num(st.seat_to_move()) + " is to play");
    const auto rules = wire::to_proto(st.outcome().reason);
    if (reason != rules)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say reason " + words(rules));
  } else if (reason == v1::MATCH_END_REASON_ABORTED) {
    if (st.is_terminal() && !peek())
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say the match was over: reason " +
                            words(wire::to_proto(st.outcome().reason)));
  } else if (reason == v1::MATCH_END_REASON_FAULT) {
    if (!fault_)
      return fail(line, what() + ": the log says reason " + words(reason) +
                            "; the rules say there was no fault (no fault record)");
  } else {
    return fail(line, what() + ": the log says reason " + words(reason) +
                          "; the rules know TARGET, HAND_LIMIT, FAULT and ABORTED");
  }
  if (!check_scores(line, what, m.scores())) return false;

  // The result.
  Diff d;
  const int faulting_side = fault_ ? side_of(config_.format, static_cast<int>(fault_->seat())) : -1;
  if (reason == v1::MATCH_END_REASON_ABORTED) {
    if (m.placements_size() != 0) d.add("placements", scores_words(m.placements()), "none");
    d.num("winner_side", m.winner_side(), -1);
  } else {
    const auto place = places(scores_, sides_, faulting_side);
    bool same = m.placements_size() == sides_;
    for (int s = 0; same && s < sides_; ++s)
      same = m.placements(s) == static_cast<uint32_t>(place[s]);
    if (!same) d.add("placements", scores_words(m.placements()), scores_words(place, sides_));
    int firsts = 0, winner = -1;
    for (int s = 0; s < sides_; ++s)
      if (place[s] == 1) {
        ++firsts;
        winner = s;
      }
    if (firsts != 1) winner = -1;
    if (board_end) winner = st.outcome().winner_side;  // the same, by the core's own account
    d.num("winner_side", m.winner_side(), winner);
  }
  d.num("hands_played", m.hands_played(), hands_started_);
  d.num("fault_seat", m.fault_seat(), fault_ ? static_cast<int64_t>(fault_->seat()) : -1);
  const v1::FaultKind fk = fault_ ? fault_->kind() : v1::FAULT_KIND_UNSPECIFIED;
  if (m.fault_kind() != fk) d.add("fault_kind", words(m.fault_kind()), words(fk));
  if (!d.empty()) return fail(line, what() + ": " + d.text());
  out_.match_end = m;
  out_.finished = true;
  phase_ = Phase::kEnded;
  return true;
}

bool Checker::bot_output(int line, const v1::LogBotOutput& b) {
  if (phase_ != Phase::kEnded)
    return fail(line, "the log has a bot's output here; the rules expect " + expected() +
                          " (bots' output comes after the end of the match)");
  if (b.seat() >= static_cast<uint32_t>(n_))
    return fail(line, "bot output: the log says seat " + num(b.seat()) + "; the seats are 0.." +
                          num(n_ - 1));
  if (output_seen_[b.seat()])
    return fail(line, "bot output: the log gives seat " + num(b.seat()) +
                          "'s output twice; the referee writes it once");
  output_seen_[b.seat()] = true;
  return true;
}

bool Checker::finish(int last_line) {
  if (phase_ == Phase::kEnded) return true;
  if (phase_ == Phase::kHeader) return fail(0, "the file is empty: a log starts with its header");
  return fail(last_line, "the log ends at line " + num(last_line) +
                             " before the match ended (no match_end record): the match did not "
                             "finish or the file was cut; the rules expect " +
                             expected() + " next");
}

}  // namespace

bool parse_log_line(std::string_view line, v1::LogRecord& out, std::string* error) {
  out.Clear();
  if (FastReader(line).read_common(out)) return true;
  out.Clear();
  if (FastReader(line).read(&out)) return true;
  out.Clear();
  return from_json_line(std::string(line), &out, error);
}

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error) {
  return load_replay(text, file, out, error, ReplayOptions{});
}

namespace {

// The reading of a log line by line, shared by the in-memory and the streaming readers so both
// give the same verdict on the same bytes.
class LineFeed {
 public:
  LineFeed(const std::string& file, Replay& out, LogError& error, bool keep_steps)
      : file_(file), error_(error), checker_(out.file, out, error, keep_steps) {}

  // One line without its '\n' (`terminated`: it had one). False on the first disagreement.
  bool line(std::string_view content, bool terminated) {
    if (!next()) return false;
    if (content.size() > kMaxLogLineBytes) return too_long(content.size());
    if (content.find_first_not_of(" \t\r") == std::string_view::npos)
      return fail(line_, "the line is empty; every line of a log is one record");
    if (!parse_log_line(content, record_, &parse_error_)) {
      std::string message = "not a log record: " + printable(parse_error_, 200);
      if (!terminated)
        message = "the file ends in the middle of this line (it was cut short?); " + message;
      return fail(line_, message);
    }
    return checker_.record(line_, record_);
  }
  // A line of `size` bytes, over the cap, that the streaming reader did not keep.
  bool long_line(size_t size) { return next() && too_long(size); }
  bool finish() { return checker_.finish(line_); }

 private:
  bool next() {
    if (line_ == kMaxLogLines)
      return fail(line_ + 1, "the log goes on past " + num(kMaxLogLines) +
                                 " lines; no match log is that long");
    ++line_;
    return true;
  }
  bool too_long(size_t size) {
    return fail(line_, "the line is " + num(static_cast<int64_t>(size)) +
                           " bytes long; a log line is at most " +
                           num(static_cast<int64_t>(kMaxLogLineBytes)) + " bytes");
  }
  bool fail(int line, std::string message) {
    error_.file = file_;
    error_.line = line;
    error_.message = std::move(message);
    return false;
  }

  const std::string& file_;
  LogError& error_;
  Checker checker_;
  int line_ = 0;
  std::string parse_error_;
  v1::LogRecord record_;
};

}  // namespace

bool load_replay(std::string_view text, const std::string& file, Replay& out, LogError& error,
                 const ReplayOptions& options) {
  out = Replay{};
  out.file = file;
  error = LogError{};
  LineFeed feed(file, out, error, options.keep_steps);
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const bool terminated = nl != std::string_view::npos;
    const size_t stop = terminated ? nl : text.size();
    if (!feed.line(text.substr(pos, stop - pos), terminated)) return false;
    pos = terminated ? nl + 1 : text.size();
  }
  return feed.finish();
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error) {
  return load_replay_file(path, out, error, ReplayOptions{});
}

bool load_replay_file(const std::string& path, Replay& out, LogError& error,
                      const ReplayOptions& options) {
  out = Replay{};
  out.file = path;
  error = LogError{};
  auto fail = [&](std::string message) {
    out = Replay{};
    out.file = path;
    error = LogError{path, 0, std::move(message)};
    return false;
  };
  std::string why;
  const int fd = open_regular_file(path, O_RDONLY, &why);  // a FIFO is refused, never waited on
  if (fd < 0) return fail(why.substr(why.find(": ") + 2));
  // Read as a stream, a line at a time: memory stays within one line whatever the file's size.
  LineFeed feed(path, out, error, options.keep_steps);
  std::string line;
  size_t line_size = 0;  // the current line's length, also when it is too long to keep
  uint64_t total = 0;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > kMaxLogFileBytes) {
      ::close(fd);
      return fail("the file is larger than " + std::to_string(kMaxLogFileBytes) +
                  " bytes; a log is at most that");
    }
    for (size_t pos = 0; pos < static_cast<size_t>(n);) {
      const char* nl =
          static_cast<const char*>(std::memchr(buf + pos, '\n', static_cast<size_t>(n) - pos));
      const size_t end = nl ? static_cast<size_t>(nl - buf) : static_cast<size_t>(n);
      line_size += end - pos;
      // A line over the cap is not kept: only its length matters for the verdict.
      if (line_size <= kMaxLogLineBytes) line.append(buf + pos, end - pos);
      pos = end;
      if (!nl) break;
      ++pos;
      const bool ok =
          line_size > kMaxLogLineBytes ? feed.long_line(line_size) : feed.line(line, true);
      if (!ok) {
        ::close(fd);
        return false;
      }
      line.clear();
      line_size = 0;
    }
  }
  ::close(fd);
  if (line_size > kMaxLogLineBytes) return feed.long_line(line_size);
  if (line_size > 0 && !feed.line(line, false)) return false;
  return feed.finish();
}

}  // namespace allfives::referee
