#include "match_log.h"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace allfives::referee {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Protobuf 3.21's JSON printer serializes the message, rebuilds its type from the descriptors
// and makes a tree of default values before it prints a byte: tens of microseconds a line,
// as much as a whole round trip to a bot. The printer below writes exactly what that printer
// writes with the options of to_json_line, for the field kinds the log uses, from a plan made
// once per message type (keys quoted, enum names escaped, oneof members sorted, field numbers
// mapped to the printing order). It prints the message's wire form, which the generated code
// writes without reflection, so a line costs a serialization and one pass over its bytes. For
// anything else it returns false and the library printer is used.

// Prints into a buffer through a pointer, a check and a copy a piece rather than a library
// call a character (a line is printed a few bytes at a time); the text is then appended to
// `out` at once. The buffer is the thread's and keeps its size (up to kKept), so nothing is
// cleared or allocated once it has grown to the longest line; so one JsonOut at a time in a
// thread (a plan made while a line is printed quotes its enum names into plain strings).
class JsonOut {
 public:
  explicit JsonOut(std::string& out) : out_(out) {
    if (buffer().size() < 1024) buffer().resize(1024);
    p_ = buffer().data();
    end_ = p_ + buffer().size();
  }
  ~JsonOut() {
    out_.append(buffer().data(), static_cast<size_t>(p_ - buffer().data()));
    if (buffer().size() > kKept) {  // a rare long line (a bot's output) is not kept for good
      buffer().resize(kKept);
      buffer().shrink_to_fit();
    }
  }
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  JsonOut& operator+=(char c) {
    if (p_ == end_) grow(1);
    *p_++ = c;
    return *this;
  }
  JsonOut& operator+=(std::string_view v) {
    if (static_cast<size_t>(end_ - p_) < v.size()) grow(v.size());
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
    return *this;
  }
  template <typename T>
  void number(T v) {
    if (end_ - p_ < 24) grow(24);  // the longest 64-bit integer has 20 digits and a sign
    p_ = std::to_chars(p_, end_, v).ptr;
  }
  // Drops what was printed: the library prints the line instead.
  void discard() { p_ = buffer().data(); }

 private:
  static constexpr size_t kKept = 64 * 1024;
  static std::string& buffer() {
    thread_local std::string b;
    return b;
  }
  void grow(size_t n) {
    const auto used = static_cast<size_t>(p_ - buffer().data());
    buffer().resize(std::max(2 * buffer().size(), used + n));
    p_ = buffer().data() + used;
    end_ = buffer().data() + buffer().size();
  }
  std::string& out_;
  char* p_ = nullptr;
  char* end_ = nullptr;
};

// JSON's two-character escapes: the character after the backslash, or 0.
char short_escape(unsigned char c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    default:
      return 0;
  }
}

// A string as the library escapes it. Only ASCII: the library drops invalid UTF-8 and
// escapes some code points, so other bytes are left to it.
template <typename Out>  // JsonOut, or a std::string while plans are made (a JsonOut may be open)
bool append_string(std::string_view s, Out& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) return false;
    if (const char e = short_escape(c)) {
      out += '\\';
      out += e;
    } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>') {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  out += '"';
  return true;
}

struct MessagePlan;

// How a field's values are read from the wire and printed.
enum class Kind : uint8_t { kInt32, kUInt32, kInt64, kUInt64, kBool, kEnum, kString, kMessage };

// How one field is printed: its key, and what the value needs.
struct FieldPlan {
  const FieldDescriptor* field = nullptr;
  uint64_t number = 0;  // the field's number
  Kind kind = Kind::kInt32;
  bool repeated = false;
  bool in_oneof = false;                     // printed only when present (proto3 optional too)
  std::string key;                           // "name":
  std::vector<std::string> enum_names;       // quoted and escaped, by number; "" for a gap
  mutable const MessagePlan* sub = nullptr;  // a message field's plan, found when first printed
};

// How one message type is printed, or that the library must print it.
struct MessagePlan {
  bool supported = true;
  bool in_number_order = false;    // fields printed in field-number order (append_in_order)
  std::vector<FieldPlan> fields;   // the library's order (see make_plan)
  std::vector<int16_t> by_number;  // field number -> index in fields, -1 if none
};

// The field kinds the log uses; others (floating point, bytes, maps, fixed-width and zigzag
// integers) leave the whole line to the library.
std::optional<Kind> kind_of(const FieldDescriptor* f) {
  if (f->is_map()) return std::nullopt;
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
      return Kind::kInt32;
    case FieldDescriptor::TYPE_UINT32:
      return Kind::kUInt32;
    case FieldDescriptor::TYPE_INT64:
      return Kind::kInt64;
    case FieldDescriptor::TYPE_UINT64:
      return Kind::kUInt64;
    case FieldDescriptor::TYPE_BOOL:
      return Kind::kBool;
    case FieldDescriptor::TYPE_ENUM:
      return Kind::kEnum;
    case FieldDescriptor::TYPE_STRING:
      return Kind::kString;
    case FieldDescriptor::TYPE_MESSAGE:
      return Kind::kMessage;
    default:
      return std::nullopt;
  }
}

FieldPlan plan_field(const FieldDescriptor* f, Kind kind) {
  FieldPlan p;
  p.field = f;
  p.number = static_cast<uint64_t>(f->number());
  p.kind = kind;
  p.repeated = f->is_repeated();
  p.in_oneof = f->containing_oneof() != nullptr;
  p.key = '"' + f->name() + "\":";
  if (kind == Kind::kEnum) {
    const auto* e = f->enum_type();
    for (int k = 0; k < e->value_count(); ++k) {
      const int n = e->value(k)->number();
      if (n < 0 || n >= 256) continue;  // printed through FindValueByNumber
      if (static_cast<size_t>(n) >= p.enum_names.size()) p.enum_names.resize(n + 1);
      std::string quoted;
      if (p.enum_names[n].empty() && append_string(e->FindValueByNumber(n)->name(), quoted))
        p.enum_names[n] = std::move(quoted);
    }
  }
  return p;
}

// The library's order: the fields outside any oneof in declaration order, then the members of
// oneofs (proto3 optional fields included) by field number.
MessagePlan make_plan(const Descriptor* d) {
  MessagePlan p;
  if (d->file()->package() == "google.protobuf") p.supported = false;  // well-known types
  std::vector<FieldPlan> members;
  int max_number = 0;
  for (int k = 0; k < d->field_count(); ++k) {
    const FieldDescriptor* f = d->field(k);
    const std::optional<Kind> kind = kind_of(f);
    if (!kind || f->number() > 4096) {
      p.supported = false;
      continue;
    }
    max_number = std::max(max_number, f->number());
    (f->containing_oneof() ? members : p.fields).push_back(plan_field(f, *kind));
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.number < b.number; });
  p.fields.insert(p.fields.end(), members.begin(), members.end());
  p.in_number_order =
      std::is_sorted(p.fields.begin(), p.fields.end(),
                     [](const auto& a, const auto& b) { return a.number < b.number; });
  p.by_number.assign(static_cast<size_t>(max_number) + 1, -1);
  for (size_t i = 0; i < p.fields.size(); ++i)
    p.by_number[static_cast<size_t>(p.fields[i].number)] = static_cast<int16_t>(i);
  return p;
}

// The plan of a message type, made on its first use in this thread.
const MessagePlan& plan_of(const Descriptor* d) {
  thread_local std::unordered_map<const Descriptor*, std::unique_ptr<MessagePlan>> plans;
  auto& slot = plans[d];
  if (!slot) slot = std::make_unique<MessagePlan>(make_plan(d));
  return *slot;
}

bool append_enum(const FieldPlan& f, int v, JsonOut& out) {
  if (v >= 0 && static_cast<size_t>(v) < f.enum_names.size() && !f.enum_names[v].empty()) {
    out += f.enum_names[v];
    return true;
  }
  const auto* named = f.field->enum_type()->FindValueByNumber(v);
  if (!named) {
    out.number(v);  // an unknown value prints as its number
    return true;
  }
  return append_string(named->name(), out);
}

// Reads a varint at `p` (before `end`); null if it is cut off or longer than ten bytes.
const char* read_varint(const char* p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

// One field's value as the message's wire form holds it (the generated code writes that form
// without reflection): a varint, or the bytes of a length-delimited value.
struct WireField {
  uint8_t wire_type = 0;
  uint64_t number = 0;     // wire type 0
  std::string_view bytes;  // wire type 2
  int32_t next = -1;       // the next value of the same field (in wire_stack), -1 if none
};

// A field's values in one message: the first and the last in wire_stack (-1: none).
struct FieldValues {
  int32_t first = -1;
  int32_t last = -1;
  uint32_t count = 0;
};

bool append_message(std::string_view wire, const MessagePlan& plan, JsonOut& out);

bool append_scalar(const FieldPlan& p, uint64_t v, JsonOut& out) {
  switch (p.kind) {
    case Kind::kInt32:
      out.number(static_cast<int32_t>(v));
      return true;
    case Kind::kUInt32:
      out.number(static_cast<uint32_t>(v));
      return true;
    case Kind::kInt64:  // 64-bit integers are JSON strings
      out += '"';
      out.number(static_cast<int64_t>(v));
      out += '"';
      return true;
    case Kind::kUInt64:
      out += '"';
      out.number(v);
      out += '"';
      return true;
    case Kind::kBool:
      out += v ? "true" : "false";
      return true;
    case Kind::kEnum:
      return append_enum(p, static_cast<int32_t>(v), out);
    default:
      return false;
  }
}

// One value of a field, as it came on the wire. `w` is a copy: printing a message grows the
// stack it was read from.
bool append_value(const FieldPlan& p, const WireField w, JsonOut& out) {
  if (p.kind == Kind::kString) return w.wire_type == 2 && append_string(w.bytes, out);
  if (p.kind == Kind::kMessage) {
    if (w.wire_type != 2) return false;
    if (!p.sub) p.sub = &plan_of(p.field->message_type());
    return append_message(w.bytes, *p.sub, out);
  }
  return w.wire_type == 0 && append_scalar(p, w.number, out);
}

// A repeated field's values: one wire field each, or a packed run of varints.
bool append_values(const FieldPlan& p, const WireField& w, bool* first, JsonOut& out) {
  const bool packed = w.wire_type == 2 && p.kind != Kind::kString && p.kind != Kind::kMessage;
  if (!packed) {
    if (!*first) out += ',';
    *first = false;
    return append_value(p, w, out);
  }
  const char* at = w.bytes.data();
  const char* end = at + w.bytes.size();
  while (at < end) {
    uint64_t v;
    if (!(at = read_varint(at, end, &v))) return false;
    if (!*first) out += ',';
    *first = false;
    if (!append_scalar(p, v, out)) return false;
  }
  return true;
}

// A field absent from the wire holds its default.
void append_default(const FieldPlan& p, JsonOut& out) {
  if (p.kind == Kind::kString)
    out += "\"\"";
  else
    append_scalar(p, 0, out);
}

// The wire fields of one message, and each planned field's values among them, in stacks
// shared by the levels of nesting: each level's entries follow its parent's and are dropped
// when it is printed, so a line costs no allocation once the stacks have grown.
thread_local std::vector<WireField> wire_stack;
thread_local std::vector<FieldValues> values_stack;

// Reads the field at `p` (before `end`): its number and value. Null on anything the log does
// not use (a wire type other than varint and length-delimited, a value cut off).
const char* read_field(const char* p, const char* end, uint64_t* number, WireField* f) {
  uint64_t tag;
  if (!(p = read_varint(p, end, &tag))) return nullptr;
  *number = tag >> 3;
  f->wire_type = static_cast<uint8_t>(tag & 7);
  if (f->wire_type == 0) return read_varint(p, end, &f->number);
  uint64_t size;
  if (f->wire_type != 2 || !(p = read_varint(p, end, &size)) ||
      size > static_cast<uint64_t>(end - p))
    return nullptr;
  f->bytes = std::string_view(p, size);
  return p + size;
}

// Takes in the fields of `wire` onto wire_stack, linked per field from `values` (one per
// planned field). False on anything the plan does not know (a field it has no plan for, a
// wire type the log does not use, a value cut off).
bool read_fields(std::string_view wire, const MessagePlan& plan, size_t values) {
  const char* p = wire.data();
  const char* end = p + wire.size();
  while (p < end) {
    uint64_t number;
    WireField f;
    if (!(p = read_field(p, end, &number, &f))) return false;
    if (number >= plan.by_number.size() || plan.by_number[number] < 0) return false;
    const auto at = static_cast<int32_t>(wire_stack.size());
    wire_stack.push_back(f);
    FieldValues& v = values_stack[values + static_cast<size_t>(plan.by_number[number])];
    (v.last < 0 ? v.first : wire_stack[static_cast<size_t>(v.last)].next) = at;
    v.last = at;
    ++v.count;
  }
  return true;
}

// Prints field `i` of the plan from its values `v`. Repeated fields always print (`[]` when
// empty), singular messages and oneof members only when present, other fields always (their
// default when absent).
bool append_field(const FieldPlan& p, const FieldValues v, bool* first, JsonOut& out) {
  if (!p.repeated && v.count > 1) return false;  // merged or overridden values: the library's
  if (v.count == 0 && !p.repeated && (p.in_oneof || p.kind == Kind::kMessage)) return true;
  if (!*first) out += ',';
  *first = false;
  out += p.key;
  if (!p.repeated) {
    if (v.count == 0) {
      append_default(p, out);
      return true;
    }
    return append_value(p, wire_stack[static_cast<size_t>(v.first)], out);
  }
  out += '[';
  bool first_value = true;
  for (int32_t k = v.first; k >= 0; k = wire_stack[static_cast<size_t>(k)].next)
    if (!append_values(p, wire_stack[static_cast<size_t>(k)], &first_value, out)) return false;
  out += ']';
  return true;
}

// A message whose fields print in field-number order, in one pass over its wire form: the
// generated code writes the fields in that order, each repeated field's values together.
// False on anything else (a field out of that order or unknown, a second value of a singular
// field), which the caller leaves to the library.
bool append_in_order(std::string_view wire, const MessagePlan& plan, JsonOut& out) {
  const char* p = wire.data();
  const char* const end = p + wire.size();
  uint64_t number = 0;
  WireField w;
  bool more = false;  // `number` and `w` hold the next field
  const auto advance = [&] {
    more = p < end;
    return !more || (p = read_field(p, end, &number, &w)) != nullptr;
  };
  if (!advance()) return false;
  out += '{';
  bool first = true;
  for (const FieldPlan& f : plan.fields) {
    const bool present = more && number == f.number;
    if (!present && !f.repeated && (f.in_oneof || f.kind == Kind::kMessage)) continue;
    if (!first) out += ',';
    first = false;
    out += f.key;
    if (f.repeated) {
      out += '[';
      bool first_value = true;
      while (more && number == f.number)
        if (!append_values(f, w, &first_value, out) || !advance()) return false;
      out += ']';
    } else if (!present) {
      append_default(f, out);
    } else if (!append_value(f, w, out) || !advance() || (more && number == f.number)) {
      return false;
    }
  }
  out += '}';
  return !more;
}

bool append_message(std::string_view wire, const MessagePlan& plan, JsonOut& out) {
  if (!plan.supported) return false;
  if (plan.in_number_order) return append_in_order(wire, plan, out);
  const size_t from = wire_stack.size();
  const size_t values = values_stack.size();
  values_stack.resize(values + plan.fields.size());
  bool ok = read_fields(wire, plan, values);
  if (ok) {
    out += '{';
    bool first = true;
    for (size_t i = 0; ok && i < plan.fields.size(); ++i)
      ok = append_field(plan.fields[i], values_stack[values + i], &first, out);
    out += '}';
  }
  wire_stack.resize(from);
  values_stack.resize(values);
  return ok;
}

}  // namespace

std::string to_json_line(const google::protobuf::Message& m) {
  std::string out;
  out.reserve(256);
  append_json_line(m, out);
  return out;
}

void append_json_line(const google::protobuf::Message& m, std::string& out) {
  const size_t start = out.size();
  thread_local std::string wire;
  wire.clear();
  if (m.AppendToString(&wire)) {
    JsonOut json(out);
    if (append_message(wire, plan_of(m.GetDescriptor()), json)) return;
    json.discard();
  }
  out.resize(start);
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  // Printing a well-formed message cannot fail; an empty line would show it if it ever did.
  (void)google::protobuf::util::MessageToJsonString(m, &text, options);
  out += text;
}

bool from_json_line(const std::string& line, google::protobuf::Message* m, std::string* error) {
  google::protobuf::util::JsonParseOptions options;
  const auto status = google::protobuf::util::JsonStringToMessage(line, m, options);
  if (status.ok()) return true;
  if (error) *error = std::string(status.message());
  return false;
}

std::unique_ptr<MatchLog> MatchLog::create(const std::string& path, std::string* error) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    if (error) *error = "cannot create folder " + parent.string() + ": " + ec.message();
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<MatchLog>(new MatchLog(fd, path));
}

MatchLog::MatchLog(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), arena_(first_block_, sizeof first_block_) {}

MatchLog::~MatchLog() {
  if (fd_ < 0) return;
  flush();
  ::close(fd_);
}

void MatchLog::set_error(int err) {
  if (error_.empty()) error_ = "cannot write " + path_ + ": " + std::strerror(err);
}

bool MatchLog::close(bool sync, std::string* error) {
  if (fd_ >= 0) {
    flush();
    if (sync && error_.empty() && ::fsync(fd_) != 0) set_error(errno);
    if (::close(fd_) != 0 && errno != EINTR) set_error(errno);
    fd_ = -1;
  } else if (error_.empty()) {
    error_ = "cannot write " + path_ + ": the log was already closed";
  }
  if (!error_.empty() && error) *error = error_;
  return error_.empty();
}

int open_regular_file(const std::string& path, int flags, std::string* error) {
  const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (error) *error = path + ": cannot open: " + std::strerror(err);
    errno = err;
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    if (error) *error = path + ": cannot stat: " + std::strerror(err);
    errno = err;
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    if (error) *error = path + ": is " + kind + ", not a regular file";
    errno = EINVAL;
    return -1;
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

int read_chunks(int fd, const std::function<bool(std::string_view)>& chunk) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0 || !chunk(std::string_view(buf, static_cast<size_t>(n)))) return 0;
  }
}

bool check_safe_name(const std::string& name, const char* what, size_t max_length,
                     std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = std::string(what) + " " + why;
    return false;
  };
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (name.empty()) return fail("is empty");
  if (name.size() > max_length)
    return fail("is " + std::to_string(name.size()) + " characters long; at most " +
                std::to_string(max_length) + " are allowed");
  for (const char c : name) {
    if (alnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '@') continue;
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f)
      return fail("contains the byte " + std::to_string(u) +
                  "; only letters, digits and . _ + - @ are allowed");
    return fail("'" + name + "' contains '" + std::string(1, c) +
                "'; only letters, digits and . _ + - @ are allowed");
  }
  if (!alnum(name[0])) return fail("'" + name + "' must start with a letter or a digit");
  return true;
}

bool write_fully(int fd, const std::string& data) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

v1::LogRecord& MatchLog::add() {
  return *queued_.emplace_back(google::protobuf::Arena::CreateMessage<v1::LogRecord>(&arena_));
}

void MatchLog::print_queued() {
  if (error_.empty())
    for (const v1::LogRecord* r : queued_) {
      append_json_line(*r, text_);
      text_ += '\n';
    }
  queued_.clear();
  arena_.Reset();
}

bool MatchLog::write_printed() {
  if (text_.empty() || !error_.empty()) {
    text_.clear();
    return error_.empty();
  }
  if (fd_ < 0)
    set_error(EBADF);
  else if (!write_fully(fd_, text_))
    set_error(errno);
  text_.clear();
  last_write_ = std::chrono::steady_clock::now();
  return error_.empty();
}

bool MatchLog::flush() {
  print_queued();
  return write_printed();
}

bool MatchLog::flush_grouped(std::chrono::steady_clock::time_point now) {
  print_queued();
  if (text_.size() < kGroupBytes && now - last_write_ < kGroupFor) return error_.empty();
  return write_printed();
}

}  // namespace allfives::referee
