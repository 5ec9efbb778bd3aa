#include "match_log.h"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <typeinfo>
#include <unordered_map>
#include <vector>

namespace allfives::referee {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Protobuf 3.21's JSON printer serializes the message, rebuilds its type from the descriptors
// and makes a tree of default values before it prints a byte: tens of microseconds a line,
// as much as a whole round trip to a bot. The printer below writes exactly what that printer
// writes with the options of to_json_line, for the field kinds the log uses, from a plan made
// once per message type (keys quoted, enum names escaped, oneof members sorted), so a line
// costs only the reflection reads of its values. For anything else it returns false and the
// library printer is used.

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
bool append_string(std::string_view s, std::string& out) {
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

template <typename T>
void append_number(T v, std::string& out) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

struct MessagePlan;

// More oneofs in one message than this are left to the library (the log has at most two).
constexpr size_t kMaxOneofs = 8;

// How one field is printed: its key, and what the value needs.
struct FieldPlan {
  const FieldDescriptor* field = nullptr;
  std::string key;                           // "name":
  mutable const MessagePlan* sub = nullptr;  // a message field's plan, found when first printed
  std::vector<std::string> enum_names;       // quoted and escaped, by number; "" for a gap
};

// How one message type is printed, or that the library must print it.
struct MessagePlan {
  bool supported = true;
  const Reflection* reflection = nullptr;  // of the generated type the plan was made from
  const std::type_info* type = nullptr;
  std::vector<FieldPlan> plain;          // outside any oneof, in declaration order
  std::vector<FieldPlan> oneof_members;  // by field number
  std::vector<const google::protobuf::OneofDescriptor*> oneofs;
};

bool plannable(const FieldDescriptor* f) {
  if (f->is_map()) return false;
  if (f->type() == FieldDescriptor::TYPE_BYTES) return false;
  return f->cpp_type() != FieldDescriptor::CPPTYPE_FLOAT &&
         f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE;
}

FieldPlan plan_field(const FieldDescriptor* f) {
  FieldPlan p;
  p.field = f;
  p.key = '"' + f->name() + "\":";
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
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

MessagePlan make_plan(const Message& m) {
  MessagePlan p;
  const Descriptor* d = m.GetDescriptor();
  p.reflection = m.GetReflection();
  p.type = &typeid(m);
  if (d->file()->package() == "google.protobuf") p.supported = false;  // well-known types
  for (int k = 0; k < d->field_count(); ++k) {
    const FieldDescriptor* f = d->field(k);
    if (!plannable(f)) p.supported = false;
    (f->containing_oneof() ? p.oneof_members : p.plain).push_back(plan_field(f));
  }
  std::sort(p.oneof_members.begin(), p.oneof_members.end(),
            [](const auto& a, const auto& b) { return a.field->number() < b.field->number(); });
  for (int k = 0; k < d->oneof_decl_count(); ++k) p.oneofs.push_back(d->oneof_decl(k));
  if (p.oneofs.size() > kMaxOneofs) p.supported = false;
  return p;
}

// The plan of `m`'s type, made on its first use in this thread.
const MessagePlan& plan_of(const Message& m) {
  thread_local std::unordered_map<const Descriptor*, std::unique_ptr<MessagePlan>> plans;
  auto& slot = plans[m.GetDescriptor()];
  if (!slot) slot = std::make_unique<MessagePlan>(make_plan(m));
  return *slot;
}

bool append_message(const Message& m, const MessagePlan& plan, std::string& out);

// The plan of a message field's value `v`; the field's plan caches it.
const MessagePlan& sub_plan(const FieldPlan& f, const Message& v) {
  if (!f.sub) f.sub = &plan_of(v);
  return *f.sub;
}

bool append_enum(const FieldPlan& f, int v, std::string& out) {
  if (v >= 0 && static_cast<size_t>(v) < f.enum_names.size() && !f.enum_names[v].empty()) {
    out += f.enum_names[v];
    return true;
  }
  const auto* named = f.field->enum_type()->FindValueByNumber(v);
  if (!named) {
    append_number(v, out);  // an unknown value prints as its number
    return true;
  }
  return append_string(named->name(), out);
}

// One value of the field (element `i` if it is repeated, else i < 0).
bool append_value(const Message& m, const Reflection* r, const FieldPlan& p, int i,
                  std::string& out) {
  const FieldDescriptor* f = p.field;
  const bool rep = i >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      append_number(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f), out);
      return true;
    case FieldDescriptor::CPPTYPE_UINT32:
      append_number(rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f), out);
      return true;
    case FieldDescriptor::CPPTYPE_INT64:  // 64-bit integers are JSON strings
      out += '"';
      append_number(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f), out);
      out += '"';
      return true;
    case FieldDescriptor::CPPTYPE_UINT64:
      out += '"';
      append_number(rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f), out);
      out += '"';
      return true;
    case FieldDescriptor::CPPTYPE_BOOL:
      out += (rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f)) ? "true" : "false";
      return true;
    case FieldDescriptor::CPPTYPE_ENUM:
      return append_enum(p, rep ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f), out);
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      return append_string(rep ? r->GetRepeatedStringReference(m, f, i, &scratch)
                               : r->GetStringReference(m, f, &scratch),
                           out);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& v = rep ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f);
      return append_message(v, sub_plan(p, v), out);
    }
    default:  // floating point: not planned
      return false;
  }
}

bool append_field(const Message& m, const Reflection* r, const FieldPlan& p, bool first,
                  std::string& out) {
  if (!first) out += ',';
  out += p.key;
  if (!p.field->is_repeated()) return append_value(m, r, p, -1, out);
  out += '[';
  const int n = r->FieldSize(m, p.field);
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    if (!append_value(m, r, p, i, out)) return false;
  }
  out += ']';
  return true;
}

// The members `m` holds of its oneofs (at most kMaxOneofs, see make_plan), in `set`.
int set_members(const Message& m, const Reflection* r, const MessagePlan& plan,
                const FieldDescriptor** set) {
  int n = 0;
  for (const auto* o : plan.oneofs)
    if (const FieldDescriptor* f = r->GetOneofFieldDescriptor(m, o)) set[n++] = f;
  return n;
}

// The library's order: the fields outside any oneof in declaration order (repeated ones
// always, `[]` when empty; messages when set; the others always), then the set members of
// oneofs (proto3 optional fields included) by field number.
bool append_message(const Message& m, const MessagePlan& plan, std::string& out) {
  if (!plan.supported) return false;
  // A message of another implementation of the same type (a dynamic one) has its own.
  const Reflection* r = typeid(m) == *plan.type ? plan.reflection : m.GetReflection();
  out += '{';
  bool first = true;
  for (const FieldPlan& p : plan.plain) {
    const FieldDescriptor* f = p.field;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_repeated() &&
        !r->HasField(m, f))
      continue;
    if (!append_field(m, r, p, first, out)) return false;
    first = false;
  }
  const FieldDescriptor* set[kMaxOneofs];
  const int n = set_members(m, r, plan, set);
  for (const FieldPlan& p : plan.oneof_members) {
    if (n == 0) break;
    if (std::find(set, set + n, p.field) == set + n) continue;
    if (!append_field(m, r, p, first, out)) return false;
    first = false;
  }
  out += '}';
  return true;
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
  if (append_message(m, plan_of(m), out)) return;
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
    if (alnum(c) || c == '.' || c == '_' || c == '-' || c == '+') continue;
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f)
      return fail("contains the byte " + std::to_string(u) +
                  "; only letters, digits and . _ + - are allowed");
    return fail("'" + name + "' contains '" + std::string(1, c) +
                "'; only letters, digits and . _ + - are allowed");
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

bool MatchLog::flush() {
  if (queued_.empty() || !error_.empty()) {
    queued_.clear();
    arena_.Reset();
    return error_.empty();
  }
  text_.clear();
  for (const v1::LogRecord* r : queued_) {
    append_json_line(*r, text_);
    text_ += '\n';
  }
  queued_.clear();
  arena_.Reset();
  if (fd_ < 0) {
    set_error(EBADF);
    return false;
  }
  if (write_fully(fd_, text_)) return true;
  set_error(errno);
  return false;
}

}  // namespace allfives::referee
