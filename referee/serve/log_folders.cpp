#include "serve/log_folders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "log/log_reader.h"
#include "review/review_file.h"
#include "tournament/output_folder.h"

namespace allfives::referee::serve {
namespace {

constexpr size_t kHeadBytes = size_t{1} << 20;  // a header line is far shorter
// The end of a match is followed by each seat's captured output (64 KiB each, up to 6 bytes
// of JSON per byte): a few MiB from the end always reach it.
constexpr size_t kTailBytes = size_t{8} << 20;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Reads up to `cap` bytes at `offset` from an open file.
void read_at(int fd, off_t offset, size_t cap, std::string& out) {
  out.clear();
  char buf[65536];
  while (out.size() < cap) {
    const ssize_t n = ::pread(fd, buf, std::min(sizeof buf, cap - out.size()),
                              offset + static_cast<off_t>(out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
}

// Opens a regular file for reading (a link put in its place, a FIFO or a device refused);
// -1 if it cannot. `size` gets its size.
int open_regular(const std::string& path, off_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return -1;
  }
  size = st.st_size;
  return fd;
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      // Leading zeros aside, the longer run is the larger number.
      size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      if (ei - zi != ej - zj) return ei - zi < ej - zj;
      const int c = a.compare(zi, ei - zi, b, zj, ej - zj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // "d01" and "d1": any fixed order
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
off_t file_size(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_size : -1;
}
bool seen_recently(const std::string& path, int seconds) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime <= seconds;
}

std::vector<std::string> list_names(const ServedRoot& root, const std::string& dir, bool folders,
                                    const std::function<bool(const std::string&)>& skip) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    if (!folders && (!ends_with(name, ".jsonl") || name == kIndexFile || is_review_path(name)))
      continue;
    if (skip && skip(name)) continue;
    const auto real = real_inside(root, dir + "/" + name);
    if (!real) continue;  // a link out of the served folder: not even looked at
    if (folders ? is_dir(*real) : is_file(*real)) out.push_back(name);
    if (out.size() >= kMaxListed) break;
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), natural_less);
  return out;
}

std::optional<Folder> as_folder(const std::vector<ServedRoot>& roots, int root,
                                const std::string& real) {
  const ServedRoot& r = roots[static_cast<size_t>(root)];
  Folder f{root, relative_to(r, real), real, real, "", false};
  if (const auto index = real_inside(r, output_path(real, kIndexFile)); index && is_file(*index))
    f.index = *index;
  f.tournament = !f.index.empty() || real_inside(r, output_path(real, kDefinitionFile)).has_value();
  if (const auto matches = real_inside(r, output_path(real, kMatchesFolder));
      matches && is_dir(*matches)) {
    f.logs = *matches;
    return f;
  }
  if (f.tournament || !list_names(r, real, false).empty()) return f;
  return std::nullopt;
}

std::vector<Folder> find_folders(const std::vector<ServedRoot>& roots) {
  std::vector<Folder> out;
  for (size_t r = 0; r < roots.size(); ++r) {
    const int root = static_cast<int>(r);
    if (auto f = as_folder(roots, root, roots[r].real)) out.push_back(*f);
    for (const std::string& name : list_names(roots[r], roots[r].real, true))
      if (const auto real = real_inside(roots[r], roots[r].real + "/" + name))
        if (auto f = as_folder(roots, root, *real)) out.push_back(*f);
  }
  return out;
}

bool read_bounded(const std::string& path, size_t cap, std::string& out, bool whole_lines) {
  out.clear();
  off_t size = 0;
  const int fd = open_regular(path, size);
  if (fd < 0) return false;
  read_at(fd, 0, cap, out);
  ::close(fd);
  if (whole_lines) {
    const size_t nl = out.rfind('\n');
    out.resize(nl == std::string::npos ? 0 : nl + 1);
  }
  return true;
}

namespace {

// Each chunk of the file from `offset` on, until `on_chunk` returns false or the file ends.
bool for_each_chunk(const std::string& path, uint64_t offset,
                    const std::function<bool(std::string_view)>& on_chunk) {
  off_t size = 0;
  const int fd = open_regular(path, size);
  if (fd < 0) return false;
  std::string chunk;
  for (off_t at = static_cast<off_t>(offset);; at += static_cast<off_t>(chunk.size())) {
    read_at(fd, at, size_t{1} << 16, chunk);
    if (chunk.empty() || !on_chunk(chunk)) break;
  }
  ::close(fd);
  return true;
}

}  // namespace

std::vector<uint64_t> line_starts(const std::string& path, size_t every) {
  std::vector<uint64_t> starts;
  uint64_t at = 0, line = 0, start = 0;
  for_each_chunk(path, 0, [&](std::string_view chunk) {
    for (size_t nl = chunk.find('\n'); nl != std::string_view::npos;
         nl = chunk.find('\n', nl + 1)) {
      if (line++ % every == 0) starts.push_back(start);
      start = at + nl + 1;
    }
    at += chunk.size();
    return true;
  });
  return starts;
}

bool read_lines(const std::string& path, uint64_t offset, size_t skip, size_t count,
                size_t max_line, const std::function<void(const std::string&)>& on_line) {
  std::string line;
  size_t seen = 0;
  return for_each_chunk(path, offset, [&](std::string_view chunk) {
    for (size_t pos = 0; pos < chunk.size() && seen < skip + count;) {
      const size_t nl = chunk.find('\n', pos);
      if (seen >= skip) line.append(chunk.substr(pos, nl - pos));
      if (line.size() > max_line) return false;
      if (nl == std::string_view::npos) break;
      if (seen++ >= skip) on_line(line);
      line.clear();
      pos = nl + 1;
    }
    return seen < skip + count;
  });
}

LogSummary summarize_log(const std::string& path) {
  LogSummary s;
  const int fd = open_regular(path, s.size);
  if (fd < 0) return s;
  std::string head, tail;
  read_at(fd, 0, kHeadBytes, head);
  const off_t tail_at = std::max<off_t>(0, s.size - static_cast<off_t>(kTailBytes));
  read_at(fd, tail_at, kTailBytes, tail);
  ::close(fd);
  // `referee match` makes its log before the bots start and writes the header once they
  // answer: an empty log is a match starting.
  if (head.empty()) {
    s.readable = true;
    return s;
  }
  const size_t first_nl = head.find('\n');
  if (first_nl == std::string::npos) return s;  // no header line: not a log
  v1::LogRecord rec;
  if (!parse_log_line(std::string_view(head).substr(0, first_nl), rec, nullptr) ||
      !rec.has_header())
    return s;
  s.readable = true;
  for (const auto& b : rec.header().bots()) s.seats.push_back(b.display_name());
  s.format = rec.header().format();
  // The tail's first line may be cut: start after its first newline unless it starts the file.
  size_t at = tail_at == 0 ? 0 : tail.find('\n');
  if (at == std::string::npos) return s;
  if (tail_at != 0) ++at;
  while (at < tail.size()) {
    size_t nl = tail.find('\n', at);
    if (nl == std::string::npos) break;  // a torn last line: being written
    const std::string_view line(tail.data() + at, nl - at);
    at = nl + 1;
    if (line.find("\"match_end\"") == std::string_view::npos) continue;
    v1::LogRecord end;
    if (parse_log_line(line, end, nullptr) && end.has_match_end()) s.end = end.match_end();
  }
  return s;
}

std::string size_words(off_t bytes) {
  char buf[64];
  if (bytes >= (off_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.0f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

}  // namespace allfives::referee::serve
