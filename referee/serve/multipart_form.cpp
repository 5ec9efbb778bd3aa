#include "serve/multipart_form.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <system_error>

namespace allfives::referee::serve {
namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr size_t kMaxHeaderBytes = 8 * 1024;
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());

bool is_space(int c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return lower(x) == lower(y); });
}

// RFC 9110's tchar: what a header name or a parameter name may be made of.
bool is_tchar(char c) {
  if ((c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// RFC 2046's bchars; none is CR, which keeps the delimiter search linear (see find).
bool valid_boundary(std::string_view b) {
  if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
  return std::all_of(b.begin(), b.end(), [](char c) {
    return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'z') ||
           std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
  });
}

std::string errno_message(int err) {
  return std::generic_category().message(err);
}

// Reads exactly `n` bytes at `at`, retrying short reads; "" or why not.
std::string read_full(int fd, char* out, size_t n, uint64_t at) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return "cannot read the body: " + errno_message(errno);
    if (got == 0) return "the body file is shorter than its announced size";
    out += got;
    n -= static_cast<size_t>(got);
    at += static_cast<uint64_t>(got);
  }
  return "";
}

// The body seen through one chunk-sized window, so memory stays fixed whatever its size.
class BodyReader {
 public:
  BodyReader(int fd, uint64_t size) : fd_(fd), size_(size), buf_(kChunk) {}

  uint64_t size() const { return size_; }
  const std::string& error() const { return error_; }

  // The bytes from `at`: at least min(n, what is left) of them, more if already buffered;
  // empty past the end or after a read error. `n` is at most kChunk.
  std::string_view view(uint64_t at, size_t n) {
    if (at >= size_ || !error_.empty()) return {};
    const uint64_t want = std::min<uint64_t>(n, size_ - at);
    if (at < base_ || at - base_ > len_ || len_ - (at - base_) < want) {
      base_ = at;
      len_ = static_cast<size_t>(std::min<uint64_t>(kChunk, size_ - at));
      error_ = read_full(fd_, buf_.data(), len_, at);
      if (!error_.empty()) return {};
    }
    return {buf_.data() + (at - base_), len_ - static_cast<size_t>(at - base_)};
  }

  int byte_at(uint64_t at) {
    const std::string_view v = view(at, 1);
    return v.empty() ? -1 : static_cast<unsigned char>(v[0]);
  }

  // Where `needle` first occurs at or after `from`, or kNone. Linear: the needle's first byte
  // (CR) appears nowhere else in it, so partial matches never overlap.
  uint64_t find(std::string_view needle, uint64_t from) {
    while (from < size_) {
      const std::string_view v = view(from, needle.size());
      const size_t pos = v.find(needle);
      if (pos != std::string_view::npos) return from + pos;
      if (v.size() < needle.size() || from + v.size() >= size_) return kNone;
      from += v.size() - needle.size() + 1;
    }
    return kNone;
  }

 private:
  int fd_;
  uint64_t size_;
  std::vector<char> buf_;
  uint64_t base_ = 0;
  size_t len_ = 0;
  std::string error_;
};

struct Param {
  std::string name;
  std::string value;
};

// The `; name=value` list after a media type or disposition type; false if malformed. Values
// are quoted-strings with backslash escapes, or runs without space, ';', '"' or controls.
bool parse_params(std::string_view s, std::vector<Param>& out) {
  size_t i = 0;
  const auto skip_space = [&] {
    while (i < s.size() && is_space(s[i])) ++i;
  };
  const auto plain = [](char c) {
    return !is_space(c) && c != ';' && c != '"' && static_cast<unsigned char>(c) >= 0x20 &&
           c != 0x7f;
  };
  for (skip_space(); i < s.size(); skip_space()) {
    if (s[i++] != ';') return false;
    skip_space();
    if (i == s.size() || s[i] == ';') continue;
    Param p;
    while (i < s.size() && is_tchar(s[i])) p.name += s[i++];
    skip_space();
    if (p.name.empty() || i == s.size() || s[i++] != '=') return false;
    skip_space();
    if (i < s.size() && s[i] == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        p.value += s[i];
      }
      if (i++ == s.size()) return false;
    } else {
      while (i < s.size() && plain(s[i])) p.value += s[i++];
      if (p.value.empty()) return false;
    }
    out.push_back(std::move(p));
  }
  return true;
}

// The value of the one parameter or header called `name`, "" if none; `twice` set if repeated,
// since two readers of an ambiguous part could disagree on what it holds.
std::string value_of(const std::vector<Param>& list, std::string_view name, bool& twice) {
  const Param* found = nullptr;
  for (const Param& p : list) {
    if (!iequals(p.name, name)) continue;
    twice = twice || found;
    found = &p;
  }
  return found ? found->value : "";
}

std::string parse_disposition(std::string_view value, const std::string& which, FormPart& part) {
  const size_t semi = value.find(';');
  if (!iequals(trim(value.substr(0, semi)), "form-data"))
    return which + "'s Content-Disposition is not form-data";
  std::vector<Param> params;
  if (semi != std::string_view::npos && !parse_params(value.substr(semi), params))
    return which + "'s Content-Disposition is malformed";
  bool twice = false;
  part.name = value_of(params, "name", twice);
  part.filename = value_of(params, "filename", twice);
  if (twice) return which + "'s Content-Disposition repeats a parameter";
  if (part.name.empty()) return which + " has no Content-Disposition name";
  return "";
}

// The header lines of a part (without the empty line), obsolete folding undone.
std::string parse_headers(std::string_view block, const std::string& which, FormPart& part) {
  std::vector<Param> fields;
  for (size_t at = 0; at < block.size();) {
    const size_t end = std::min(block.find("\r\n", at), block.size());
    const std::string_view line = block.substr(at, end - at);
    at = end + 2;
    const size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    if (!line.empty() && is_space(line[0]) && !fields.empty()) {
      (fields.back().value += ' ') += trim(line);
    } else if (colon != 0 && colon != std::string_view::npos &&
               std::all_of(name.begin(), name.end(), is_tchar)) {
      fields.push_back(Param{std::string(name), std::string(trim(line.substr(colon + 1)))});
    } else {
      return which + " has a malformed header line";
    }
  }
  bool twice = false;
  const std::string disposition = value_of(fields, "content-disposition", twice);
  part.content_type = value_of(fields, "content-type", twice);
  if (twice) return which + " repeats a header";
  if (disposition.empty()) return which + " has no Content-Disposition header";
  return parse_disposition(disposition, which, part);
}

// Reads the headers starting at `at`; sets where the content starts.
std::string read_headers(BodyReader& body, uint64_t at, const std::string& which, FormPart& part,
                         uint64_t& content) {
  const std::string_view v = body.view(at, kMaxHeaderBytes + 2).substr(0, kMaxHeaderBytes + 2);
  if (v.substr(0, 2) == "\r\n") {
    content = at + 2;
    return parse_headers({}, which, part);
  }
  const size_t end = v.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (at + v.size() >= body.size()) return "the body ends inside " + which + "'s headers";
    return which + "'s headers exceed 8 KiB";
  }
  content = at + end + 4;
  return parse_headers(v.substr(0, end), which, part);
}

// What follows a "--boundary" ending at `at`: "" and `closed` for the close delimiter, "" and
// where the next part starts after padding and CRLF, or what is wrong.
std::string delimiter_end(BodyReader& body, uint64_t at, bool& closed, uint64_t& next) {
  const std::string_view two = body.view(at, 2).substr(0, 2);
  closed = two == "--";
  if (closed) return "";
  int c = body.byte_at(at);
  while (is_space(c)) c = body.byte_at(++at);
  next = at + 2;
  if (c == '\r' && body.byte_at(at + 1) == '\n') return "";
  if (c < 0 || (c == '\r' && at + 1 == body.size()) || two == "-")
    return "the body ends before its closing boundary";
  return "a boundary line has other text after the boundary";
}

std::string parse_body(BodyReader& body, const std::string& delimiter, size_t max_parts,
                       std::vector<FormPart>& parts) {
  const std::string_view dash = std::string_view(delimiter).substr(2);
  uint64_t at = dash.size();
  if (body.size() == 0) return "the body is empty";
  if (body.view(0, dash.size()).substr(0, dash.size()) != dash) {
    const uint64_t first = body.find(delimiter, 0);
    if (first == kNone) return "the body does not contain the boundary its Content-Type names";
    at = first + delimiter.size();
  }
  for (;;) {
    bool closed = false;
    uint64_t next = 0;
    if (std::string why = delimiter_end(body, at, closed, next); !why.empty() || closed) return why;
    if (parts.size() == max_parts) return "more than " + std::to_string(max_parts) + " parts";
    FormPart part;
    uint64_t content = 0;
    const std::string which = "part " + std::to_string(parts.size() + 1);
    if (std::string why = read_headers(body, next, which, part, content); !why.empty()) return why;
    // From the empty line's CRLF, which is also the delimiter's when the content is empty.
    const uint64_t end = body.find(delimiter, content - 2);
    if (end == kNone) return "the body ends before its closing boundary";
    part.offset = content;
    part.size = end > content ? end - content : 0;
    parts.push_back(std::move(part));
    at = end + delimiter.size();
  }
}

bool part_in_range(const FormPart& part) {
  return part.offset <= kMaxOffset && part.size <= kMaxOffset - part.offset;
}

}  // namespace

bool multipart_boundary(std::string_view content_type, std::string& boundary) {
  const size_t semi = content_type.find(';');
  if (semi == std::string_view::npos ||
      !iequals(trim(content_type.substr(0, semi)), "multipart/form-data"))
    return false;
  std::vector<Param> params;
  if (!parse_params(content_type.substr(semi), params)) return false;
  bool twice = false;
  std::string found = value_of(params, "boundary", twice);
  if (twice || !valid_boundary(found)) return false;
  boundary = std::move(found);
  return true;
}

std::string parse_multipart(int fd, uint64_t size, std::string_view boundary, size_t max_parts,
                            std::vector<FormPart>& parts) {
  parts.clear();
  if (!valid_boundary(boundary)) return "the boundary is not one RFC 2046 allows";
  if (size > kMaxOffset) return "the body is too large";
  BodyReader body(fd, size);
  std::string why = parse_body(body, "\r\n--" + std::string(boundary), max_parts, parts);
  if (!body.error().empty()) why = body.error();
  if (!why.empty()) parts.clear();
  return why;
}

bool read_part(int fd, const FormPart& part, size_t limit, std::string& out) {
  if (part.size > limit || !part_in_range(part)) return false;
  std::string text(static_cast<size_t>(part.size), '\0');
  if (!read_full(fd, text.data(), text.size(), part.offset).empty()) return false;
  out = std::move(text);
  return true;
}

std::string copy_part(int fd, const FormPart& part, const std::string& path) {
  if (!part_in_range(part)) return "the part lies outside the body";
  const int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) return "cannot create " + path + ": " + errno_message(errno);
  std::string why;
  std::vector<char> buf(std::min<uint64_t>(kChunk, part.size));
  for (uint64_t done = 0; why.empty() && done < part.size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), part.size - done));
    why = read_full(fd, buf.data(), n, part.offset + done);
    for (size_t put = 0; why.empty() && put < n;) {
      const ssize_t w = ::write(out, buf.data() + put, n - put);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) why = "cannot write " + path + ": " + errno_message(w < 0 ? errno : EIO);
      if (w > 0) put += static_cast<size_t>(w);
    }
    done += n;
  }
  if (why.empty() && ::fsync(out) != 0) why = "cannot sync " + path + ": " + errno_message(errno);
  if (::close(out) != 0 && why.empty()) why = "cannot close " + path + ": " + errno_message(errno);
  if (!why.empty()) ::unlink(path.c_str());
  return why;
}

}  // namespace allfives::referee::serve
