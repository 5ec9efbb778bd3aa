// End-to-end tests of the sandbox's limits: processes, memory, the network and sockets, and
// writing (the hostile bot of sandbox_util.h; each protection of the sandbox itself has a twin
// test with --no-sandbox that shows the attack then succeeds).
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "e2e/sandbox_util.h"
#include "process/bot_process.h"
#include "process/process_test_util.h"

namespace allfives::e2e {
namespace {

using namespace sandbox;
namespace fs = std::filesystem;

// --- Resource limits ------------------------------------------------------------------------

TEST(Sandbox, AForkBombIsTheBotsOwnProcessLimitFault) {
  if (getuid() != 0 && !referee::testing::machine_offers_v1_cgroups())
    GTEST_SKIP() << "without a pids cgroup the process limit is per bot only when the referee is "
                    "root";
  // At most 200 forks even without a limit, so the test stays bounded on any machine.
  const Match m = play("fork-bomb", "--mode fork-bomb --max-forks 200", {"--max-processes", "32"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  // Named where the pids cgroup counted the refused forks; under RLIMIT_NPROC nothing counts
  // them and the crash is described by its end.
  if (hostile_confinement(m).processes_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(fault.reason(), "reached its limit of 32 processes and threads"))
        << fault.reason();
  } else {
    EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
  }
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED fork bomb")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).processes_limit_by(), true);
  expect_cgroups_removed(hostile_confinement(m));
}

TEST(Sandbox, EatingMemoryIsAMemoryLimitFault) {
  const Match m = play("eat-memory", "--mode eat-memory --max-mib 2048", {"--memory-mib", "512"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_FALSE(contains(m.hostile_output, "without a limit")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).memory_limit_by(), true);
  if (hostile_confinement(m).memory_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(fault.reason(), "exceeded its memory limit of 512 MiB")) << fault.reason();
    // Killed by the kernel at the cgroup's limit: no word of its own tells, the cgroup's count
    // does.
    EXPECT_TRUE(contains(fault.reason(), "(killed by signal 9 (SIGKILL))")) << fault.reason();
    EXPECT_FALSE(contains(m.hostile_output, "bad_alloc")) << m.hostile_output;
  }
  expect_cgroups_removed(hostile_confinement(m));
}

// Under the address-space limit a failed allocation is counted nowhere the referee can read:
// the crash is described by its end (std::bad_alloc aborts), the bot's words stay its output.
TEST(Sandbox, EatingMemoryUnderTheAddressSpaceLimitIsACrashDescribedByItsEnd) {
  const Match m = play("eat-memory-rlimit", "--mode eat-memory --max-mib 2048",
                       {"--memory-mib", "512", "--no-cgroups"});
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
  const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
  EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
  EXPECT_FALSE(contains(fault.reason(), "limit")) << fault.reason();
  EXPECT_TRUE(contains(m.hostile_output, "bad_alloc")) << m.hostile_output;
  EXPECT_FALSE(contains(m.hostile_output, "without a limit")) << m.hostile_output;
  expect_limit_by(hostile_confinement(m).memory_limit_by(), false);
  EXPECT_TRUE(hostile_confinement(m).cgroups().empty());
}

// A C++ bot whose choose_play itself runs out of memory: a crash, not a handler error (a
// disconnect), under either mechanism; the memory cgroup's count names the limit.
TEST(Sandbox, AnSdkBotOutOfMemoryInItsHandlerIsACrash) {
  for (const bool cgroups : {true, false}) {
    std::vector<std::string> flags = {"--memory-mib", "512"};
    if (!cgroups) flags.push_back("--no-cgroups");
    const Match m = play(cgroups ? "eat-memory-handler" : "eat-memory-handler-rlimit",
                         "--mode eat-memory-in-handler --max-mib 2048", flags);
    SCOPED_TRACE(cgroups ? "cgroups allowed" : "--no-cgroups");
    EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
    EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
    EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_CRASH);
    const auto& fault = only(m.log, v1::LogRecord::kFault).fault();
    expect_limit_by(hostile_confinement(m).memory_limit_by(), cgroups);
    if (hostile_confinement(m).memory_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
      EXPECT_TRUE(contains(fault.reason(), "exceeded its memory limit of 512 MiB"))
          << fault.reason();
    } else {
      EXPECT_TRUE(contains(fault.reason(), "killed by signal 6 (SIGABRT)")) << fault.reason();
      EXPECT_TRUE(
          contains(m.hostile_output, "the bot ran out of memory (std::bad_alloc) in choose_play"))
          << m.hostile_output;
    }
  }
}

// A bot that writes the words runtimes write at a failed allocation or fork (std::bad_alloc,
// MemoryError, "fork: Resource temporarily unavailable"...) far from any limit, then aborts,
// or plays a tile it does not hold: its fault is described by what the referee saw (the
// signal, the illegal play), naming no limit. A fork bomb that writes the words of a failed
// allocation first is named by its pids cgroup's count, not as the memory limit.
TEST(Sandbox, ABotsOwnWordsNeverNameALimit) {
  const Match crash = play("forge-limit", "--mode forge-limit", {"--memory-mib", "512"});
  EXPECT_EQ(crash.run.exit_code, 0) << crash.run.output;
  ASSERT_TRUE(contains(crash.hostile_output, "GOT forged limit words")) << crash.hostile_output;
  EXPECT_TRUE(contains(crash.hostile_output, "std::bad_alloc")) << crash.hostile_output;
  EXPECT_EQ(match_end(crash).fault_kind(), v1::FAULT_KIND_CRASH);
  const std::string crashed = only(crash.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_TRUE(contains(crashed, "killed by signal 6 (SIGABRT)")) << crashed;
  EXPECT_FALSE(contains(crashed, "limit")) << crashed;

  const Match illegal = play("forge-limit-illegal", "--mode forge-limit-illegal");
  EXPECT_EQ(illegal.run.exit_code, 0) << illegal.run.output;
  ASSERT_TRUE(contains(illegal.hostile_output, "GOT forged limit words")) << illegal.hostile_output;
  EXPECT_EQ(match_end(illegal).fault_kind(), v1::FAULT_KIND_ILLEGAL_PLAY);
  const std::string played = only(illegal.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_FALSE(contains(played, "limit")) << played;

  if (getuid() != 0 && !referee::testing::machine_offers_v1_cgroups()) return;
  const Match bomb = play("forge-limit-fork-bomb", "--mode forge-limit-fork-bomb --max-forks 200",
                          {"--max-processes", "32"});
  EXPECT_EQ(bomb.run.exit_code, 0) << bomb.run.output;
  EXPECT_TRUE(contains(bomb.hostile_output, "BLOCKED fork bomb")) << bomb.hostile_output;
  const std::string bombed = only(bomb.log, v1::LogRecord::kFault).fault().reason();
  EXPECT_FALSE(contains(bombed, "memory limit")) << bombed;
  if (hostile_confinement(bomb).processes_limit_by() != v1::LIMIT_MECHANISM_RLIMIT) {
    EXPECT_TRUE(contains(bombed, "reached its limit of 32 processes and threads")) << bombed;
  }
  expect_cgroups_removed(hostile_confinement(bomb));
}

// --- Network and sockets --------------------------------------------------------------------

struct Listener {
  int fd = -1;
  ~Listener() {
    if (fd >= 0) close(fd);
  }
  // True if someone connected (a pending connection is there to accept).
  bool was_reached() const {
    const int c = accept4(fd, nullptr, nullptr, SOCK_NONBLOCK);
    if (c >= 0) close(c);
    return c >= 0;
  }
};

Listener tcp_listener(int* port) {
  Listener l;
  l.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(listen(l.fd, 8), 0);
  socklen_t len = sizeof addr;
  getsockname(l.fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return l;
}

Listener unix_listener(const std::string& path) {
  Listener l;
  l.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  EXPECT_EQ(bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  chmod(path.c_str(), 0777);  // only the sandbox, not the permissions, keeps the bot out
  EXPECT_EQ(listen(l.fd, 8), 0);
  return l;
}

TEST(Sandbox, NoNetworkAndNoSocketOutsideItsFolder) {
  int port = 0;
  Listener tcp = tcp_listener(&port);
  const std::string socket_path = temp_dir("connect-socket") + "/outside.sock";
  Listener unix_socket = unix_listener(socket_path);
  const Match m = play(
      "connect", "--mode connect --targets-file " +
                     targets_file("connect", {"127.0.0.1:" + std::to_string(port), socket_path}));
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED connect tcp 127.0.0.1:")) << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED connect unix " + socket_path))
      << m.hostile_output;
  EXPECT_FALSE(tcp.was_reached());
  EXPECT_FALSE(unix_socket.was_reached());
}

// The bot owns its socket's folder: a symbolic link it puts where its socket should be (to
// a socket of the host's; the referee would resolve an absolute link from its own root) makes
// it fail to start, and the referee connects neither to the link's target nor to the socket
// the bot serves on instead. (Before the referee opened the socket with O_NOFOLLOW, it
// followed the link: it reached the listener below and found no gRPC server there.)
TEST(Sandbox, ALinkInPlaceOfItsSocketLeadsTheRefereeNowhere) {
  const std::string socket_path = temp_dir("link-socket") + "/outside.sock";
  Listener outside = unix_listener(socket_path);
  const Match m =
      play("link", "--mode link-socket --targets-file " + targets_file("link", {socket_path}));
  EXPECT_EQ(m.run.exit_code, 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_seat(), 0) << m.run.output;
  EXPECT_EQ(match_end(m).fault_kind(), v1::FAULT_KIND_STARTUP_FAILURE) << m.run.output;
  EXPECT_TRUE(contains(m.run.output,
                       "its socket /run/bot/seat0.sock (inside its sandbox) is not a socket but a "
                       "symbolic link"))
      << m.run.output;
  EXPECT_TRUE(
      contains(m.run.output, "GOT link socket /run/bot/seat0.sock: links to " + socket_path))
      << m.run.output;
  EXPECT_FALSE(outside.was_reached());
}

TEST(Sandbox, WithoutTheSandboxTheNetworkIsOpen) {
  int port = 0;
  Listener tcp = tcp_listener(&port);
  const Match m =
      play("connect-unsandboxed",
           "--mode connect --targets-file " +
               targets_file("connect-unsandboxed", {"127.0.0.1:" + std::to_string(port)}),
           {"--no-sandbox"});
  EXPECT_TRUE(contains(m.hostile_output, "GOT connect tcp")) << m.hostile_output;
  EXPECT_TRUE(tcp.was_reached());
}

// --- Writing --------------------------------------------------------------------------------

// A --marker for write-files unique to this run and test (the folder's parent holds this
// process's id), so no other test or run writes or removes the file it names.
std::string marker_of(const std::string& dir) {
  const fs::path p(dir);
  return p.parent_path().filename().string() + "-" + p.filename().string();
}

TEST(Sandbox, WritesOnlyIntoItsOwnTmp) {
  const std::string dir = temp_dir("write");
  chmod(dir.c_str(), 0777);  // only the sandbox, not the permissions, keeps the bot out
  const std::string marker = marker_of(dir);
  const std::string name = "hostile-was-here-" + marker;
  const Match m = play("write", "--mode write-files --marker " + marker + " --targets-file " +
                                    targets_file("write", {dir, "/"}));
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED write " + dir)) << m.hostile_output;
  // Nor into the sandbox's own root (a tmpfs of no size limit, read-only once it is made).
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED write /" + name + ": Read-only file system"))
      << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "GOT write /tmp/" + name)) << m.hostile_output;
  EXPECT_FALSE(fs::exists(dir + "/" + name));
  EXPECT_FALSE(fs::exists("/tmp/" + name));  // its /tmp was its own
}

TEST(Sandbox, WithoutTheSandboxItWritesOutside) {
  const std::string dir = temp_dir("write-unsandboxed");
  chmod(dir.c_str(), 0777);
  const std::string marker = marker_of(dir);
  const std::string name = "hostile-was-here-" + marker;
  const Match m = play("write-unsandboxed",
                       "--mode write-files --marker " + marker + " --targets-file " +
                           targets_file("write-unsandboxed", {dir}),
                       {"--no-sandbox"});
  EXPECT_TRUE(fs::exists(dir + "/" + name)) << m.hostile_output;
  EXPECT_TRUE(fs::exists("/tmp/" + name)) << m.hostile_output;
  std::error_code ec;
  fs::remove("/tmp/" + name, ec);  // the host's /tmp: the one file this test put there
}

// The files of /etc a program needs are copies of the host's (no mount each), which the bot
// reads whole and can neither change nor add to.
TEST(Sandbox, ItsEtcHoldsReadOnlyCopiesOfTheHostsFiles) {
  const std::string dir = temp_dir("etc-copies");
  const Match read = play("etc-copies", "--mode read-files --targets-file " +
                                            targets_file("etc-copies", {"/etc/passwd"}));
  expect_no_fault(read);
  std::ifstream host("/etc/passwd");
  std::string first;
  std::getline(host, first);
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(contains(read.hostile_output, "GOT read /etc/passwd: " + first))
      << read.hostile_output;
  const std::string marker = marker_of(dir);
  const Match write =
      play("etc-write", "--mode write-files --marker " + marker + " --targets-file " +
                            targets_file("etc-write", {"/etc"}));
  expect_no_fault(write);
  EXPECT_TRUE(contains(write.hostile_output,
                       "BLOCKED write /etc/hostile-was-here-" + marker + ": Read-only file system"))
      << write.hostile_output;
}

// The most bytes the regular files under `folder` held at once while `work` ran (checked
// every 5 ms): what the referee's socket folders, made in its $TMPDIR, put on the host's disk.
// (The referee removes them when it exits, so looking afterwards would see nothing.)
template <typename Work>
uintmax_t peak_bytes_under(const std::string& folder, Work work) {
  std::atomic<bool> done{false};
  std::atomic<uintmax_t> peak{0};
  std::thread watcher([&] {
    while (!done.load()) {
      uintmax_t total = 0;
      std::error_code ec;
      for (fs::recursive_directory_iterator
               it(folder, fs::directory_options::skip_permission_denied, ec),
           end;
           !ec && it != end; it.increment(ec)) {
        std::error_code size_ec;
        if (it->is_regular_file(size_ec)) {
          const uintmax_t size = it->file_size(size_ec);
          if (!size_ec) total += size;
        }
      }
      peak = std::max(peak.load(), total);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  work();
  done = true;
  watcher.join();
  return peak.load();
}

// "... wrote N MiB (...)" in the hostile bot's report: N.
int reported_mib(const std::string& output) {
  const size_t at = output.find(": wrote ");
  return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + 8);
}

// A sandboxed bot's socket folder is a small tmpfs inside its sandbox: writing 64 MiB of files
// there stops at its size with "No space left on device" (the bot goes on playing: a failed
// write is no fault), and the referee's $TMPDIR, where an unsandboxed bot's socket folder
// would be, gets nothing.
TEST(Sandbox, FillingItsSocketFolderPutsNothingOnTheHostsDisk) {
  const std::string tmpdir = temp_dir("fill-tmpdir");
  Match m;
  const uintmax_t peak = peak_bytes_under(tmpdir, [&] {
    m = play("fill", "--mode fill-socket-folder --max-mib 64 --think-ms 20", {},
             {"TMPDIR=" + tmpdir});
  });
  expect_no_fault(m);
  EXPECT_EQ(match_end(m).hands_played(), 2u) << m.run.output;
  EXPECT_TRUE(contains(m.hostile_output, "BLOCKED fill socket folder " +
                                             std::string(referee::kSandboxSocketDir) + ": wrote "))
      << m.hostile_output;
  EXPECT_TRUE(contains(m.hostile_output, "No space left on device")) << m.hostile_output;
  const int mib = reported_mib(m.hostile_output);
  EXPECT_GE(mib, 0) << m.hostile_output;
  EXPECT_LE(mib, static_cast<int>(referee::kSocketDirSizeMib)) << m.hostile_output;
  // Nothing of what it wrote reached the host (1 MiB: far below one of its 2 MiB files).
  EXPECT_LT(peak, uintmax_t{1} << 20) << m.hostile_output;
  const v1::LogConfinement& c = hostile_confinement(m);
  EXPECT_EQ(c.writable_dir(), referee::kSandboxSocketDir);
  EXPECT_EQ(c.writable_dir_tmpfs_mib(), referee::kSocketDirSizeMib);
}

// The twin: unsandboxed, the socket folder is a real folder in the referee's $TMPDIR, and all
// the bot writes there lands on the host's disk (so the test above can fail).
TEST(Sandbox, WithoutTheSandboxFillingItsSocketFolderFillsTheHostsTmpdir) {
  const std::string tmpdir = temp_dir("fill-tmpdir-unsandboxed");
  Match m;
  const uintmax_t peak = peak_bytes_under(tmpdir, [&] {
    m = play("fill-unsandboxed", "--mode fill-socket-folder --max-mib 16 --think-ms 20",
             {"--no-sandbox"}, {"TMPDIR=" + tmpdir});
  });
  expect_no_fault(m);
  EXPECT_TRUE(contains(m.hostile_output, "GOT fill socket folder " + tmpdir + "/"))
      << m.hostile_output;
  EXPECT_EQ(reported_mib(m.hostile_output), 16) << m.hostile_output;
  EXPECT_GE(peak, uintmax_t{16} << 20) << m.hostile_output;
  const v1::LogConfinement& c = hostile_confinement(m);
  EXPECT_TRUE(c.writable_dir().starts_with(tmpdir + "/")) << c.writable_dir();
  EXPECT_EQ(c.writable_dir_tmpfs_mib(), 0u);
}

}  // namespace
}  // namespace allfives::e2e
