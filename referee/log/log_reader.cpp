#include "log/log_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "log/match_log.h"

namespace allfives::referee {
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
        if (!boolean(v)) return false;
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

}  // namespace

bool parse_log_line(std::string_view line, v1::LogRecord& out, std::string* error) {
  out.Clear();
  if (FastReader(line).read_common(out)) return true;
  out.Clear();
  if (FastReader(line).read(&out)) return true;
  out.Clear();
  return from_json_line(std::string(line), &out, error);
}

bool read_log_file(const std::string& path, std::string& text, std::string* error) {
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxLogFileBytes) {
    ::close(fd);
    return fail("the file is " + std::to_string(st.st_size) + " bytes; a log is at most " +
                std::to_string(kMaxLogFileBytes) + " bytes");
  }
  text.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;  // the file shrank while we read it
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  return true;
}

}  // namespace allfives::referee
