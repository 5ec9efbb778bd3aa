#include "tournament/index_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_set>
#include <utility>

#include "log/match_log.h"
#include "tournament/output_folder.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

void set_error(std::string* error, std::string text) {
  if (error) *error = std::move(text);
}

// Opens `path` with `flags` and fsyncs it (a file's data, or a folder's entries).
bool sync_path(const std::string& path, int flags, std::string* error) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    set_error(error, "cannot sync " + path + ": " + std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return false;
  }
  ::close(fd);
  return true;
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

namespace {

// One complete line `line_number` of the index as its `entries`-th entry into `e`; "" or why the
// reading must stop there.
std::string parse_index_line(const std::string& path, const std::string& line, int line_number,
                             uint64_t entries, v1::IndexEntry* e) {
  std::string why;
  if (!from_json_line(line, e, &why))
    return path + ":" + std::to_string(line_number) + ": bad index entry: " + why +
           " (a complete line, so not a torn one: fix or remove it by hand; a line written "
           "by a newer referee needs that referee)";
  if (entries > kMaxScheduleMatches)
    return path + ":" + std::to_string(line_number) + ": more than " +
           std::to_string(kMaxScheduleMatches) + " entries; no tournament has that many matches";
  return "";
}

// The torn last line (line `line_number`, `torn_bytes` long, the file's bytes ending at
// `offset`, its complete lines at `good_end`): noted as ignored, or truncated away when
// repairing. False (and `error`) if the truncation fails.
bool drop_torn_line(int fd, const std::string& path, bool repair, size_t torn_bytes,
                    int line_number, uint64_t offset, uint64_t good_end,
                    std::vector<std::string>& notes, std::string* error) {
  const std::string dropped = "line " + std::to_string(line_number) + " (" +
                              std::to_string(torn_bytes) + " bytes without a newline)";
  if (!repair) {
    notes.push_back(path + ": ignored the torn last " + dropped);
    return true;
  }
  if (::ftruncate(fd, static_cast<off_t>(good_end)) != 0 || ::fsync(fd) != 0) {
    set_error(error, "cannot truncate " + path + ": " + std::strerror(errno));
    return false;
  }
  notes.push_back("repaired " + path + ": dropped the torn last " + dropped + ", truncated from " +
                  std::to_string(offset) + " to " + std::to_string(good_end) + " bytes");
  return true;
}

// read_index_stream and read_index_stream_from: from `at` on.
bool read_index_at(const std::string& path, bool repair, IndexReadPosition& at,
                   const std::function<void(v1::IndexEntry&&, uint64_t)>& on_entry,
                   std::vector<std::string>& notes, std::string* error) {
  std::string why;
  const int fd = open_regular_file(path, repair ? O_RDWR : O_RDONLY, &why);
  if (fd < 0) {
    if (errno == ENOENT) return true;  // nothing finished yet
    set_error(error, why);
    return false;
  }
  auto fail = [&](std::string text) {
    set_error(error, std::move(text));
    ::close(fd);
    return false;
  };
  if (at.offset > 0 && ::lseek(fd, static_cast<off_t>(at.offset), SEEK_SET) < 0)
    return fail("cannot read " + path + ": " + std::strerror(errno));
  // Complete lines end with '\n'; whatever follows the last one is a torn line (a kill or crash
  // mid-write), the only thing ever dropped. A complete line that does not parse is an error,
  // wherever it is: it may be a result (of a newer referee, say), and dropping it would lose it.
  uint64_t offset = at.offset;    // bytes read so far
  uint64_t good_end = at.offset;  // the byte after the last complete line
  uint64_t entries = at.entries;
  int line_number = at.lines;  // complete lines seen
  std::string line;            // the line being read
  std::string stop;            // why the reading stopped before the end, if it did
  const int err = read_chunks(fd, [&](std::string_view chunk) {
    for (size_t pos = 0; pos < chunk.size();) {
      const size_t nl = chunk.find('\n', pos);
      const size_t take = (nl == std::string_view::npos ? chunk.size() : nl) - pos;
      if (line.size() + take > kMaxIndexLineBytes) {
        stop = path + ":" + std::to_string(line_number + 1) + ": the line is longer than " +
               std::to_string(kMaxIndexLineBytes) +
               " bytes; an index line is far shorter (is this an index?)";
        return false;
      }
      line.append(chunk.substr(pos, take));
      pos += take;
      offset += take;
      if (nl == std::string_view::npos) break;
      ++pos;
      ++offset;
      ++line_number;
      v1::IndexEntry e;
      stop = parse_index_line(path, line, line_number, ++entries, &e);
      if (!stop.empty()) return false;
      const uint64_t line_start = good_end;
      good_end = offset;
      on_entry(std::move(e), line_start);
      line.clear();
    }
    return true;
  });
  if (err != 0) return fail("cannot read " + path + ": " + std::strerror(err));
  if (!stop.empty()) return fail(stop);

  if (!line.empty() && !drop_torn_line(fd, path, repair, line.size(), line_number + 1, offset,
                                       good_end, notes, error)) {
    ::close(fd);
    return false;
  }
  ::close(fd);
  at = IndexReadPosition{good_end, line_number, entries};
  return true;
}

}  // namespace

bool read_index_stream(const std::string& path, bool repair,
                       const std::function<void(v1::IndexEntry&&)>& on_entry,
                       std::vector<std::string>& notes, std::string* error) {
  IndexReadPosition at;
  return read_index_at(
      path, repair, at, [&](v1::IndexEntry&& e, uint64_t) { on_entry(std::move(e)); }, notes,
      error);
}

bool read_index_stream_from(const std::string& path, IndexReadPosition& at,
                            const std::function<void(v1::IndexEntry&&, uint64_t)>& on_entry,
                            std::vector<std::string>& notes, std::string* error) {
  return read_index_at(path, false, at, on_entry, notes, error);
}

bool read_index(const std::string& path, bool repair, std::vector<v1::IndexEntry>& entries,
                std::vector<std::string>& notes, std::string* error) {
  entries.clear();
  return read_index_stream(
      path, repair, [&](v1::IndexEntry&& e) { entries.push_back(std::move(e)); }, notes, error);
}

std::unique_ptr<IndexWriter> IndexWriter::open(const std::string& path, const std::string& out_dir,
                                               std::string* error,
                                               std::chrono::milliseconds interval) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    set_error(error, "cannot create folder " + parent.string() + ": " + ec.message());
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    set_error(error, "cannot open " + path + ": " + std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    set_error(error, path + " is not a regular file");
    ::close(fd);
    return nullptr;
  }
  ::fcntl(fd, F_SETFL, O_APPEND);  // blocking again
  // The index's own name in its folder must survive a crash too.
  if (!sync_path(parent.empty() ? "." : parent.string(), O_RDONLY | O_DIRECTORY, error)) {
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<IndexWriter>(
      new IndexWriter(fd, path, out_dir, static_cast<uint64_t>(st.st_size), interval));
}

IndexWriter::IndexWriter(int fd, std::string path, std::string out_dir, uint64_t size,
                         std::chrono::milliseconds interval)
    : fd_(fd),
      path_(std::move(path)),
      out_dir_(std::move(out_dir)),
      size_(size),
      interval_(interval) {}

void IndexWriter::sync_with_next_commit(std::string path) {
  std::lock_guard<std::mutex> lock(mutex_);
  sync_next_.push_back(std::move(path));
}

IndexWriter::~IndexWriter() {
  close(nullptr);
}

void IndexWriter::submit(v1::IndexEntry entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  queued_.push_back(std::move(entry));
  if (!thread_.joinable()) thread_ = std::thread([this] { commit_loop(); });
  wake_.notify_one();
}

std::vector<v1::IndexEntry> IndexWriter::take_committed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(committed_, {});
}

std::string IndexWriter::failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

bool IndexWriter::close(std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) {
    if (::close(fd_) != 0 && failed_.empty())
      failed_ = "cannot write " + path_ + ": " + std::strerror(errno);
    fd_ = -1;
  }
  if (!failed_.empty()) set_error(error, failed_);
  return failed_.empty();
}

void IndexWriter::commit_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  // The first group waits a whole interval too: a short run then syncs once, at its end.
  auto last_commit = std::chrono::steady_clock::now();
  for (;;) {
    wake_.wait(lock, [&] { return closing_ || !queued_.empty(); });
    // Let the group gather for the rest of the interval (closing commits at once).
    wake_.wait_until(lock, last_commit + interval_, [&] { return closing_; });
    last_commit = std::chrono::steady_clock::now();
    if (queued_.empty() || !failed_.empty()) {
      if (closing_) return;
      queued_.clear();  // committing stopped: nothing more is written
      continue;
    }
    std::vector<v1::IndexEntry> group = std::exchange(queued_, {});
    lock.unlock();
    const bool ok = commit(group);
    lock.lock();
    if (ok) {
      for (v1::IndexEntry& e : group) committed_.push_back(std::move(e));
    }
  }
}

bool IndexWriter::commit(const std::vector<v1::IndexEntry>& group) {
  std::string why;
  auto fail = [&](std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_.empty()) failed_ = std::move(text);
    return false;
  };
  // The logs first: an index line must never name a log that is not on disk. Each log is
  // fsynced (only our own files: a syncfs would also wait for every other writer of the disk,
  // up to 0.2 s here), several at once so that their journal commits coalesce, then the folders
  // that hold their names.
  std::vector<std::string> files, folders;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    files = std::exchange(sync_next_, {});
  }
  for (const v1::IndexEntry& e : group) {
    const std::filesystem::path log = std::filesystem::path(out_dir_) / e.log_file();
    files.push_back(log.string());
    const std::string folder = log.parent_path().string();
    if (std::find(folders.begin(), folders.end(), folder) == folders.end())
      folders.push_back(folder);
  }
  std::atomic<size_t> next{0};
  std::mutex first_mutex;
  std::string first_error;
  auto sync_some = [&] {
    std::string w;
    for (size_t i; (i = next++) < files.size();) {
      if (sync_path(files[i], O_RDONLY, &w)) continue;
      std::lock_guard<std::mutex> lock(first_mutex);
      if (first_error.empty()) first_error = w;
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min<size_t>(kSyncThreads, files.size()); ++t)
    helpers.emplace_back(sync_some);
  sync_some();
  for (std::thread& t : helpers) t.join();
  if (!first_error.empty()) return fail(first_error);
  for (const std::string& folder : folders)
    if (!sync_path(folder, O_RDONLY | O_DIRECTORY, &why)) return fail(why);
  std::string text;
  for (const v1::IndexEntry& e : group) {
    append_json_line(e, text);
    text += '\n';
  }
  if (!write_fully(fd_, text) || ::fdatasync(fd_) != 0) {
    const int err = errno;
    // Leave only complete lines behind (a resume would drop a torn one anyway).
    const bool cut = ::ftruncate(fd_, static_cast<off_t>(size_)) == 0;
    return fail("cannot write " + path_ + ": " + std::strerror(err) +
                (cut ? "" : " (and it now ends with a torn line, which a resume drops)"));
  }
  size_ += text.size();
  return true;
}

bool folder_in_use(const std::string& dir) {
  const int fd =
      ::open(output_path(dir, kLockFile).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  ::close(fd);
  long pid = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid = pid * 10 + (buf[i] - '0');
  if (pid <= 0) return false;
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  return std::getline(comm, name) && name == "referee";
}

std::unique_ptr<FolderLock> FolderLock::acquire(const std::string& dir, std::string* error) {
  const std::string path = output_path(dir, kLockFile);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    set_error(error, "cannot open " + path + ": " + std::strerror(errno));
    return nullptr;
  }
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    std::string holder;
    if (err == EWOULDBLOCK) {
      char buf[32] = {};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) holder += buf[i];
    }
    ::close(fd);
    if (err == EWOULDBLOCK)
      set_error(error, dir + " is in use by another referee (process " +
                           (holder.empty() ? std::string("unknown") : holder) + ", lock " + path +
                           "); one referee at a time may write a folder: wait "
                           "for it to finish or stop it, then resume");
    else
      set_error(error, "cannot lock " + path + ": " + std::strerror(err));
    return nullptr;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds anyway; only the id shown to a second referee is missing.
  }
  return std::unique_ptr<FolderLock>(new FolderLock(fd));
}

FolderLock::~FolderLock() {
  ::close(fd_);
}

size_t adopt_grown_hashes(std::vector<IndexSource>& sources,
                          const std::vector<DefinitionHashes>& definitions) {
  std::map<std::string, std::string> grew_into;
  for (const DefinitionHashes& d : definitions)
    for (const std::string& h : d.earlier)
      if (h != d.hash) grew_into[h] = d.hash;
  // Follow a chain of growths to its end (each step adds bots, so it cannot loop; the bound
  // only guards against a hostile set of files).
  auto final_hash = [&](std::string h) {
    for (size_t step = 0; step <= grew_into.size(); ++step) {
      const auto it = grew_into.find(h);
      if (it == grew_into.end()) break;
      h = it->second;
    }
    return h;
  };
  size_t relabelled = 0;
  for (IndexSource& source : sources)
    for (v1::IndexEntry& e : source.entries) {
      if (!grew_into.count(e.tournament_hash())) continue;
      e.set_tournament_hash(final_hash(e.tournament_hash()));
      ++relabelled;
    }
  return relabelled;
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
