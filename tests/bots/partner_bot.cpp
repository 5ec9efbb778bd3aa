// A test bot for partnerships that cheats the way two instances of one author's bot could:
// each spells its dealt hand into kernel state attached to files both sandboxes read, and
// reads its partner's back. It plays the first legal play.
//
//   partner_bot --prepare DIR            make the files the channels use, then exit
//   partner_bot --listen ADDRESS --files DIR --channels flock,fcntl,... [--colleague NAME]
//   partner_bot --listen ADDRESS --timing-step-ms 8
//
// A hand is published as 32 bits: the dealt tile set (28 bits) and the hand's index modulo 16
// (4 bits). At every decision the bot reads what its partner published on each channel and,
// when that is a hand of the right size for this hand, prints one line to stdout:
//   "RECOVERED <channel> hand <h>: <bits>"   bits as a decimal tile set (TileSet::bits)
// which the end-to-end tests (tests/e2e/partner_channels_test.cpp) compare with the log. The
// files of --files DIR are bound into every sandbox read-only, like /usr: two groups of files,
// the lower seat of the two writes the first. In individual formats (no partner) the other
// seat is the one whose name starts with --colleague (two entries of one author's bot).
//
// Channels (writer / reader):
//   flock     flock(LOCK_EX) on file i / flock(LOCK_SH|LOCK_NB) fails
//   fcntl     POSIX read lock on byte i / F_GETLK for a write lock finds it
//   ofd       OFD read lock on byte i / F_OFD_GETLK finds it
//   futex     a thread waits on word i of a shared mapping / FUTEX_WAKE wakes one
//   inotify   opens file i / its inotify watch (made at the match start) saw the open
//   nowait    drops page i from the cache (fadvise) / a RWF_NOWAIT read of it fails
//   mincore   drops page i / mincore() on a mapping says it is not cached
//   cachestat drops page i / cachestat() counts no cached page
//   pageout   reclaims page i of its own mapping (madvise PAGEOUT) / a RWF_NOWAIT read fails
// --timing-step-ms S: no channel; at its d-th decision of a hand it waits S x level ms, level
// the d-th 4 bits of its dealt tile set (the timing channel; `referee verify` looks for it),
// printing "TIMING sent hand <h> decision <d> level <l>"; at each hand's end it prints what it
// decoded of its partner's levels from the time between its own turns, "TIMING got hand <h>
// decision <d> level <l>" (bench/partner_channels.sh joins the two for the channel's rate).
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <allfives/bot/bot.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kBits = 32;
constexpr long kPage = 4096;

struct Options {
  std::string files;
  std::string channels;
  double timing_step_ms = 0;
  std::string colleague;
} g_options;

std::string group_path(const std::string& dir, const std::string& kind, int group, int i = -1) {
  std::string name = dir + "/" + kind + "-" + std::to_string(group);
  return i < 0 ? name : name + "-" + std::to_string(i);
}
std::string group_file(const std::string& kind, int group, int i = -1) {
  return group_path(g_options.files, kind, group, i);
}

int open_read(const std::string& path) {
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

// --- the channels ---------------------------------------------------------------------------

// One channel: write puts a value in the own group's state, read takes the partner group's.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual void write(int group, uint32_t value) = 0;
  virtual bool read(int group, uint32_t& value) = 0;  // false: the reader could not read
  virtual void release() {}  // at a match's start: locks held for the last match go
};

class FlockChannel final : public Channel {
 public:
  void write(int group, uint32_t value) override {
    for (int i = 0; i < kBits; ++i) {
      fds_.push_back(open_read(group_file("lock", group, i)));
      if (value >> i & 1) ::flock(fds_.back(), LOCK_EX | LOCK_NB);
    }
  }
  void release() override {
    for (const int fd : fds_) ::close(fd);
    fds_.clear();
  }
  bool read(int group, uint32_t& value) override {
    value = 0;
    for (int i = 0; i < kBits; ++i) {
      const int fd = open_read(group_file("lock", group, i));
      if (fd < 0) return false;
      if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) value |= 1u << i;
      ::close(fd);
    }
    return true;
  }

 private:
  std::vector<int> fds_;
};

// POSIX (per process) or OFD (per open file) record locks on one byte per bit.
class RecordLockChannel final : public Channel {
 public:
  explicit RecordLockChannel(bool ofd) : ofd_(ofd) {}
  void write(int group, uint32_t value) override {
    release();
    fd_ = open_read(group_file(ofd_ ? "ofd" : "posix", group));
    for (int i = 0; i < kBits; ++i) {
      struct flock l = byte(i, (value >> i & 1) ? F_RDLCK : F_UNLCK);
      ::fcntl(fd_, ofd_ ? F_OFD_SETLK : F_SETLK, &l);
    }
  }
  void release() override {  // closing drops this process's POSIX locks and the OFD ones
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool read(int group, uint32_t& value) override {
    const int fd = open_read(group_file(ofd_ ? "ofd" : "posix", group));
    if (fd < 0) return false;
    value = 0;
    for (int i = 0; i < kBits; ++i) {
      struct flock l = byte(i, F_WRLCK);
      if (::fcntl(fd, ofd_ ? F_OFD_GETLK : F_GETLK, &l) == 0 && l.l_type != F_UNLCK)
        value |= 1u << i;
    }
    ::close(fd);
    return true;
  }

 private:
  static struct flock byte(int i, short type) {
    struct flock l {};
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = i;
    l.l_len = 1;
    return l;
  }
  bool ofd_;
  int fd_ = -1;
};

long futex(const void* word, int op, uint32_t value) {
  return ::syscall(SYS_futex, word, op, value, nullptr, nullptr, 0);
}

// Waiters on words of a file mapping: a shared futex key is the file and the offset.
class FutexChannel final : public Channel {
 public:
  void write(int group, uint32_t value) override {
    const uint32_t* words = map(group);
    if (words == nullptr) return;
    for (int i = 0; i < kBits; ++i) futex(&words[i], FUTEX_WAKE, INT_MAX);  // the last hand's
    std::atomic<int> waiting{0};
    int wanted = 0;
    for (int i = 0; i < kBits; ++i) {
      if (!(value >> i & 1)) continue;
      ++wanted;
      std::thread([&waiting, word = &words[i]] {
        waiting.fetch_add(1);
        futex(word, FUTEX_WAIT, *word);  // returns when woken, or at once if refused
      }).detach();
    }
    while (waiting.load() < wanted) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // into the wait
  }
  bool read(int group, uint32_t& value) override {
    const uint32_t* words = map(group);
    if (words == nullptr) return false;
    value = 0;
    for (int i = 0; i < kBits; ++i)
      if (futex(&words[i], FUTEX_WAKE, 1) == 1) value |= 1u << i;
    return true;
  }

 private:
  const uint32_t* map(int group) {
    auto& m = maps_[group];
    if (m == nullptr) {
      const int fd = open_read(group_file("futex", group));
      if (fd < 0) return nullptr;
      void* p = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) return nullptr;
      m = static_cast<const uint32_t*>(p);
    }
    return m;
  }
  std::map<int, const uint32_t*> maps_;
};

// The reader's watch must exist before the writer opens: made when the match starts.
class InotifyChannel final : public Channel {
 public:
  void watch(int group) {
    if (fd_ >= 0) ::close(fd_);
    wds_.clear();
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    for (int i = 0; fd_ >= 0 && i < kBits; ++i)
      wds_[::inotify_add_watch(fd_, group_file("watch", group, i).c_str(), IN_OPEN)] = i;
  }
  void write(int group, uint32_t value) override {
    for (int i = 0; i < kBits; ++i)
      if (value >> i & 1) ::close(open_read(group_file("watch", group, i)));
  }
  bool read(int, uint32_t& value) override {
    if (fd_ < 0) return false;
    value = 0;
    alignas(inotify_event) char buffer[64 * 1024];
    ssize_t n;
    while ((n = ::read(fd_, buffer, sizeof buffer)) > 0)
      for (char* p = buffer; p < buffer + n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(p);
        if (wds_.count(e->wd)) value |= 1u << wds_[e->wd];
        p += sizeof(inotify_event) + e->len;
      }
    return true;
  }

 private:
  int fd_ = -1;
  std::map<int, int> wds_;
};

// The page cache: file i of the group's cached or not (a file of one page each: the cache
// keeps a small file in one folio, which is dropped whole or not at all).
class CacheChannel final : public Channel {
 public:
  explicit CacheChannel(std::string kind) : kind_(std::move(kind)) {}
  void write(int group, uint32_t value) override {
    for (int i = 0; i < kBits; ++i) {
      const int fd = open_read(file(group, i));
      char c;
      ::pread(fd, &c, 1, 0);  // cached
      if (value >> i & 1) drop(fd);
      ::close(fd);
    }
  }
  bool read(int group, uint32_t& value) override {
    value = 0;
    for (int i = 0; i < kBits; ++i) {
      const int fd = open_read(file(group, i));
      bool cached = false;
      const bool ok = fd >= 0 && (kind_ == "mincore"     ? by_mincore(fd, cached)
                                  : kind_ == "cachestat" ? by_cachestat(fd, cached)
                                                         : by_nowait(fd, cached));
      ::close(fd);
      if (!ok) return false;
      if (!cached) value |= 1u << i;
    }
    return true;
  }

 private:
  std::string file(int group, int i) const { return group_file("cache-" + kind_, group, i); }
  void drop(int fd) const {
    if (kind_ != "pageout") {
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      return;
    }
    void* p = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return;
    volatile char touch = *static_cast<const char*>(p);
    (void)touch;
    ::madvise(p, kPage, MADV_PAGEOUT);
    ::munmap(p, kPage);
  }
  static bool by_nowait(int fd, bool& cached) {
    char c;
    iovec v{&c, 1};
    const ssize_t n = ::preadv2(fd, &v, 1, 0, RWF_NOWAIT);
    cached = n == 1;
    return n == 1 || errno == EAGAIN;
  }
  static bool by_cachestat(int fd, bool& cached) {
    const uint64_t range[2] = {0, static_cast<uint64_t>(kPage)};  // offset, length
    uint64_t stat[5] = {};                                        // nr_cache first
    if (::syscall(451, fd, range, stat, 0) != 0) return false;
    cached = stat[0] > 0;
    return true;
  }
  static bool by_mincore(int fd, bool& cached) {
    void* p = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return false;
    unsigned char v = 0;
    const bool ok = ::mincore(p, kPage, &v) == 0;
    cached = v & 1;
    ::munmap(p, kPage);
    return ok;
  }
  std::string kind_;
};

std::map<std::string, std::unique_ptr<Channel>> make_channels() {
  std::map<std::string, std::unique_ptr<Channel>> c;
  std::stringstream in(g_options.channels);
  for (std::string name; std::getline(in, name, ',');) {
    if (name == "flock") c[name] = std::make_unique<FlockChannel>();
    if (name == "fcntl" || name == "ofd")
      c[name] = std::make_unique<RecordLockChannel>(name == "ofd");
    if (name == "futex") c[name] = std::make_unique<FutexChannel>();
    if (name == "inotify") c[name] = std::make_unique<InotifyChannel>();
    if (name == "nowait" || name == "mincore" || name == "cachestat" || name == "pageout")
      c[name] = std::make_unique<CacheChannel>(name);
    if (!c.count(name)) std::fprintf(stderr, "partner_bot: no channel %s\n", name.c_str());
  }
  return c;
}

// One process plays many matches; the channels' state (held locks, mappings) lives on.
std::map<std::string, std::unique_ptr<Channel>>& channels() {
  static auto c = make_channels();
  return c;
}

// --- the bot --------------------------------------------------------------------------------

class Partner final : public allfives::bot::Bot {
  // The partner, or in an individual format the other seat of the --colleague's name.
  void on_match_start(const allfives::bot::MatchInfo& m) override {
    seat_ = m.seat;
    partner_ = m.partner;
    for (int s = 0; partner_ < 0 && !g_options.colleague.empty() && s < m.num_players; ++s)
      if (s != seat_ && m.seat_names[s].rfind(g_options.colleague, 0) == 0) partner_ = s;
    if (auto it = channels().find("inotify"); it != channels().end() && partner_ >= 0)
      static_cast<InotifyChannel&>(*it->second).watch(group(partner_));
    for (auto& [name, channel] : channels()) channel->release();
  }
  // Which group of files a seat writes: the lower of the two seats the first.
  int group(int seat) const { return seat < (seat == seat_ ? partner_ : seat_) ? 0 : 1; }
  void on_hand_start(const allfives::bot::HandStartInfo& h) override {
    hand_ = h.hand_index;
    dealt_ = h.tiles;
    decision_ = 0;
    published_ = false;
    recovered_.clear();
    partner_plays_ = seen_plays_ = 0;
    partner_levels_.clear();
  }
  void on_event(const allfives::bot::PublicEvent& e) override {
    if (e.kind == allfives::EventKind::kPlay && e.seat == partner_) ++partner_plays_;
  }
  // An idle instance keeps its process: its locks must not spoil a later match's.
  void on_match_end(const allfives::bot::MatchEndInfo&) override {
    for (auto& [name, channel] : channels()) channel->release();
  }
  void on_hand_end(const allfives::bot::HandEndInfo&) override {
    for (const auto& [d, level] : partner_levels_)
      std::printf("TIMING got hand %d decision %d level %d\n", hand_, d, level);
    std::fflush(stdout);
  }

  allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override {
    if (g_options.timing_step_ms > 0) {
      time_turn();
    } else if (partner_ >= 0) {
      read_partner();
      publish();
    }
    ++decision_;
    last_answer_ = std::chrono::steady_clock::now();
    return view.legal_plays()[0];
  }

  void read_partner() {
    for (auto& [name, channel] : channels()) {
      uint32_t value = 0;
      if (recovered_.count(name) || !channel->read(group(partner_), value)) continue;
      const allfives::TileSet tiles = allfives::TileSet::from_bits(value & 0x0fffffffu);
      if (value >> 28 != static_cast<uint32_t>(hand_ % 16) || tiles.size() != dealt_.size())
        continue;
      recovered_.insert(name);
      std::printf("RECOVERED %s hand %d: %u\n", name.c_str(), hand_, tiles.bits());
    }
    std::fflush(stdout);
  }
  void publish() {
    if (published_) return;
    published_ = true;
    for (auto& [name, channel] : channels()) channel->release();
    const uint32_t value = dealt_.bits() | static_cast<uint32_t>(hand_ % 16) << 28;
    for (auto& [name, channel] : channels()) channel->write(group(seat_), value);
  }

  // The timing channel: the partner's delay is most of the time between two own turns; the
  // shortest such time seen is taken for a delay of level 0.
  void time_turn() {
    static double floor_ms = 1e9;
    const auto now = std::chrono::steady_clock::now();
    if (partner_ >= 0 && decision_ > 0 && partner_plays_ == seen_plays_ + 1) {
      const double ms = std::chrono::duration<double, std::milli>(now - last_answer_).count();
      floor_ms = std::min(floor_ms, ms);
      const long level = std::lround((ms - floor_ms) / g_options.timing_step_ms);
      partner_levels_[partner_plays_ - 1] = static_cast<int>(std::clamp(level, 0L, 15L));
    }
    seen_plays_ = partner_plays_;
    if (decision_ >= 7) return;
    const int level = static_cast<int>(dealt_.bits() >> (4 * decision_) & 15);
    std::printf("TIMING sent hand %d decision %d level %d\n", hand_, decision_, level);
    std::fflush(stdout);
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(level * g_options.timing_step_ms));
  }

  int seat_ = 0, partner_ = -1, hand_ = 0, decision_ = 0;
  allfives::TileSet dealt_;
  bool published_ = false;
  std::set<std::string> recovered_;
  // Timing: the partner's plays this hand, those seen at the last own turn, what was decoded.
  int partner_plays_ = 0, seen_plays_ = 0;
  std::map<int, int> partner_levels_;
  std::chrono::steady_clock::time_point last_answer_;
};

// Files of two groups: 32 small files per lock, watch and cache kind, one file per record
// lock and futex kind.
int prepare(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string page(kPage, 'x');
  for (int group = 0; group < 2; ++group) {
    for (int i = 0; i < kBits; ++i) {
      std::ofstream(group_path(dir, "lock", group, i)) << "x";
      std::ofstream(group_path(dir, "watch", group, i)) << "x";
    }
    for (const char* kind : {"posix", "ofd", "futex"})
      std::ofstream(group_path(dir, kind, group)) << std::string(kPage, '\0');
    for (const char* kind : {"nowait", "mincore", "cachestat", "pageout"})
      for (int i = 0; i < kBits; ++i) {
        const std::string path = group_path(dir, std::string("cache-") + kind, group, i);
        std::ofstream(path) << page;
        const int fd = open_read(path);
        ::fsync(fd);  // written back: a clean page can be dropped from the cache
        ::close(fd);
      }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--prepare") return prepare(argv[i + 1]);
  return allfives::bot::run(
      argc, argv, {"partner", "1.0"},
      [](const allfives::bot::MatchInfo&) { return std::make_unique<Partner>(); },
      [](CLI::App& app) {
        app.add_option("--files", g_options.files, "The folder --prepare made");
        app.add_option("--channels", g_options.channels, "Channels to try, comma-separated");
        app.add_option("--colleague", g_options.colleague,
                       "In individual formats: the name prefix of the seat to talk to");
        app.add_option("--timing-step-ms", g_options.timing_step_ms,
                       "Spell the hand in answer delays of this many ms a level");
      });
}
