#include "tournament/index_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "log/match_log.h"

namespace allfives::referee {
namespace {

void set_error(std::string* error, std::string text) {
  if (error) *error = std::move(text);
}

// The whole file; false with errno set if it cannot be read.
bool read_all(int fd, std::string& out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

bool append_index(const std::string& path, const v1::IndexEntry& entry, std::string* error) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    set_error(error, "cannot create folder " + parent.string() + ": " + ec.message());
    return false;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    set_error(error, "cannot open " + path + ": " + std::strerror(errno));
    return false;
  }
  std::string line = to_json_line(entry);
  line += '\n';
  const bool ok = write_fully(fd, line);
  const int write_errno = errno;
  if (::close(fd) != 0 && ok) {
    set_error(error, "cannot write " + path + ": " + std::strerror(errno));
    return false;
  }
  if (!ok) set_error(error, "cannot write " + path + ": " + std::strerror(write_errno));
  return ok;
}

bool read_index(const std::string& path, bool repair, std::vector<v1::IndexEntry>& entries,
                std::vector<std::string>& notes, std::string* error) {
  entries.clear();
  const int fd = ::open(path.c_str(), (repair ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return true;  // nothing finished yet
    set_error(error, "cannot open " + path + ": " + std::strerror(errno));
    return false;
  }
  std::string data;
  if (!read_all(fd, data)) {
    set_error(error, "cannot read " + path + ": " + std::strerror(errno));
    ::close(fd);
    return false;
  }

  // Complete lines end with '\n'; whatever follows the last one is a torn line.
  struct Line {
    size_t begin, end;  // [begin, end) without the newline
  };
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t nl = data.find('\n', pos);
    if (nl == std::string::npos) break;
    lines.push_back({pos, nl});
    pos = nl + 1;
  }
  size_t good_end = pos;  // the byte after the last line kept
  std::string dropped;    // why the torn last line was dropped, if one was
  if (pos < data.size()) {
    dropped = "line " + std::to_string(lines.size() + 1) + " (" +
              std::to_string(data.size() - pos) + " bytes without a newline)";
  }

  for (size_t i = 0; i < lines.size(); ++i) {
    v1::IndexEntry e;
    std::string why;
    if (from_json_line(data.substr(lines[i].begin, lines[i].end - lines[i].begin), &e, &why)) {
      entries.push_back(std::move(e));
      continue;
    }
    if (i + 1 == lines.size() && dropped.empty()) {
      // An unparsable last line: torn too (e.g. zeros left by a crash of the machine).
      good_end = lines[i].begin;
      dropped = "line " + std::to_string(i + 1) + " (does not parse: " + why + ")";
      break;
    }
    set_error(error, path + ":" + std::to_string(i + 1) + ": bad index entry: " + why);
    ::close(fd);
    return false;
  }

  if (!dropped.empty()) {
    if (repair) {
      if (::ftruncate(fd, static_cast<off_t>(good_end)) != 0) {
        set_error(error, "cannot truncate " + path + ": " + std::strerror(errno));
        ::close(fd);
        return false;
      }
      notes.push_back("repaired " + path + ": dropped the torn last " + dropped +
                      ", truncated from " + std::to_string(data.size()) + " to " +
                      std::to_string(good_end) + " bytes");
    } else {
      notes.push_back(path + ": ignored the torn last " + dropped);
    }
  }
  ::close(fd);
  return true;
}

bool merge_indexes(const std::vector<IndexSource>& sources, std::vector<v1::IndexEntry>& merged,
                   std::vector<std::string>& notes, std::string* error) {
  merged.clear();
  const IndexSource* first_source = nullptr;  // where the reference hash was seen
  const v1::IndexEntry* first_entry = nullptr;
  std::unordered_set<std::string> seen;
  size_t duplicates = 0;
  for (const IndexSource& source : sources) {
    for (const v1::IndexEntry& e : source.entries) {
      if (!first_entry) {
        first_source = &source;
        first_entry = &e;
      } else if (e.tournament_hash() != first_entry->tournament_hash()) {
        if (first_source == &source) {
          set_error(error, source.name + " holds matches of two tournaments: " +
                               first_entry->match().match_id() + " has tournament_hash '" +
                               first_entry->tournament_hash() + "' but " + e.match().match_id() +
                               " has '" + e.tournament_hash() + "'");
        } else {
          set_error(error, first_source->name + " and " + source.name +
                               " hold different tournaments (tournament_hash '" +
                               first_entry->tournament_hash() + "' vs '" + e.tournament_hash() +
                               "'); only folders of the same " +
                               "tournament definition can be merged");
        }
        merged.clear();
        return false;
      }
      if (!seen.insert(e.match().match_id()).second) {
        ++duplicates;
        continue;
      }
      merged.push_back(e);
    }
  }
  if (duplicates > 0)
    notes.push_back(std::to_string(duplicates) +
                    " duplicate match(es) ignored (same match_id in more than one index; the "
                    "first copy counts)");
  return true;
}

}  // namespace allfives::referee
