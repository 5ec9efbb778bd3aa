// The sandbox's pieces: the bwrap command line (a pure function), the folders a bot may read,
// the environment, the limit faults' words, and real sandboxed processes (what they see, their
// limits, and that nothing in a sandbox outlives it).
#include "process/sandbox.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "common/temp_dir.h"
#include "process/bot_process.h"
#include "process_test_util.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The index of the sequence `seq` in `v`, or -1.
int find_seq(const std::vector<std::string>& v, const std::vector<std::string>& seq) {
  for (size_t i = 0; i + seq.size() <= v.size(); ++i)
    if (std::equal(seq.begin(), seq.end(), v.begin() + static_cast<long>(i)))
      return static_cast<int>(i);
  return -1;
}

TEST(SandboxArgv, NamespacesMountsAndTheProgramLast) {
  SandboxLayout layout;
  layout.bwrap = "/usr/bin/bwrap";
  layout.system_dirs = {"/usr"};
  layout.system_links = {{"/lib", "usr/lib"}};
  layout.system_files = {"/etc/ld.so.cache"};
  layout.read_only = {"/home/u/bots"};
  layout.writable = "/run/bot";
  layout.info_fd = 3;
  layout.working_dir = "/home/u";
  const auto a = bwrap_argv(layout, {"/home/u/bots/b", "--listen", "unix:/run/bot/s"});
  EXPECT_EQ(a[0], "/usr/bin/bwrap");
  EXPECT_TRUE(has(a, "--unshare-all"));
  EXPECT_TRUE(has(a, "--die-with-parent"));
  EXPECT_FALSE(has(a, "--new-session"));  // see bwrap_argv: the scheduler's autogroups
  EXPECT_GE(find_seq(a, {"--ro-bind", "/usr", "/usr"}), 0);
  EXPECT_GE(find_seq(a, {"--symlink", "usr/lib", "/lib"}), 0);
  EXPECT_GE(find_seq(a, {"--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"}), 0);
  EXPECT_GE(find_seq(a, {"--proc", "/proc"}), 0);
  EXPECT_GE(find_seq(a, {"--dev-bind", "/dev/null", "/dev/null"}), 0);
  EXPECT_FALSE(has(a, "--dev"));  // no devpts: no terminal inside
  EXPECT_GE(find_seq(a, {"--tmpfs", "/tmp"}), 0);
  EXPECT_GE(find_seq(a, {"--ro-bind", "/home/u/bots", "/home/u/bots"}), 0);
  // The socket folder is a small tmpfs of its own, nothing of the host's bound read-write.
  EXPECT_GE(find_seq(a, {"--size", std::to_string(kSocketDirSizeMib << 20), "--tmpfs", "/run/bot"}),
            0);
  EXPECT_FALSE(has(a, "--bind"));
  EXPECT_GE(find_seq(a, {"--info-fd", "3"}), 0);  // the sandbox's pid, to reach the socket
  // The root (bwrap's tmpfs) ends read-only, after every mount: only /tmp and /run/bot stay
  // writable, and nothing on the way to the socket can be replaced.
  EXPECT_EQ(find_seq(a, {"--remount-ro", "/", "--chdir"}) + 2, find_seq(a, {"--chdir"}));
  EXPECT_GE(find_seq(a, {"--chdir", "/home/u", "--", "/home/u/bots/b", "--listen"}), 0);
  EXPECT_EQ(a.back(), "unix:/run/bot/s");
  EXPECT_FALSE(has(a, "--share-net"));
  EXPECT_FALSE(has(a, "--bind-try"));
}

// The small world-readable files of /etc are copied from the descriptors the caller passes,
// read-only, before the root is made read-only; folders of /etc stay bound.
TEST(SandboxArgv, EtcFilesCopiedFromDescriptorsFoldersBound) {
  SandboxLayout layout;
  layout.bwrap = "/usr/bin/bwrap";
  layout.system_files = {"/etc/alternatives"};
  layout.copied_files = {"/etc/passwd", "/etc/group"};
  layout.copied_fd = 6;
  const auto a = bwrap_argv(layout, {"/home/u/bots/b"});
  EXPECT_GE(find_seq(a, {"--ro-bind", "/etc/alternatives", "/etc/alternatives"}), 0);
  const int passwd = find_seq(a, {"--perms", "0444", "--file", "6", "/etc/passwd"});
  const int group = find_seq(a, {"--perms", "0444", "--file", "7", "/etc/group"});
  EXPECT_GE(passwd, 0);
  EXPECT_GE(group, 0);
  EXPECT_LT(group, find_seq(a, {"--remount-ro", "/"}));
  EXPECT_EQ(find_seq(a, {"--ro-bind", "/etc/passwd"}), -1);
}

struct stat status_of(mode_t mode, uid_t uid, off_t size = 100) {
  struct stat st {};
  st.st_mode = mode;
  st.st_uid = uid;
  st.st_size = size;
  return st;
}

// Only what every user may read is copied (a copy made by a root referee must not show a bot
// more than a bind would), and only if small.
TEST(SandboxEtc, CopiedOnlyIfSmallRegularAndReadableByAll) {
  EXPECT_TRUE(copied_into_sandbox(status_of(S_IFREG | 0644, 0)));
  EXPECT_TRUE(copied_into_sandbox(status_of(S_IFREG | 0444, 0, kMaxCopiedBytes)));
  EXPECT_FALSE(copied_into_sandbox(status_of(S_IFREG | 0640, 0)));  // like /etc/shadow's 0640
  EXPECT_FALSE(copied_into_sandbox(status_of(S_IFREG | 0600, 1000)));
  EXPECT_FALSE(copied_into_sandbox(status_of(S_IFDIR | 0755, 0)));
  EXPECT_FALSE(copied_into_sandbox(status_of(S_IFREG | 0644, 0, kMaxCopiedBytes + 1)));
}

// A host counter of /proc needs covering unless only root may read it.
TEST(SandboxProc, RootOnlyFilesAreUnreadableByOthers) {
  EXPECT_FALSE(readable_by_non_root(status_of(S_IFREG | 0400, 0)));  // /proc/timer_list
  EXPECT_TRUE(readable_by_non_root(status_of(S_IFREG | 0444, 0)));   // /proc/loadavg
  EXPECT_TRUE(readable_by_non_root(status_of(S_IFREG | 0440, 0)));   // root's group may
  EXPECT_TRUE(readable_by_non_root(status_of(S_IFREG | 0400, 1000)));
}

TEST(SandboxFolders, ProgramFolderPathArgumentsAndExtras) {
  const allfives::testing::TempDir dir("sandbox-folders");
  const fs::path base = dir.path();
  fs::create_directories(base / "bots" / "weights");
  fs::create_directories(base / "data");
  std::ofstream(base / "bots" / "bot.py") << "";
  const auto dirs = read_only_folders(
      {"/usr/bin/python3", "bots/bot.py", "--listen", "unix:/tmp/x.sock", "missing/file", "7"},
      base.string(), {"data", (base / "bots" / "weights").string()});
  // python3's folder is a system folder (bound anyway), bots/ holds bot.py and weights/ is
  // inside it, data/ is an extra; flags, addresses and missing paths are not folders to bind.
  EXPECT_EQ(dirs, (std::vector<std::string>{(base / "bots").string(), (base / "data").string()}));
}

// --- The referee's own paths ----------------------------------------------------------------

using Kind = HiddenPath::Kind;

TEST(SandboxMasks, CoverTheRefereesPathsInsideABoundFolderOnly) {
  std::string refusal;
  const auto masks =
      masks_for({{"/home/u/bots", "/home/u/bots"}, {"/usr", "/usr"}},
                {{"/home/u/bots/logs", "the match log folder", Kind::kSharedFolder},
                 {"/home/u/bots/logs/m.jsonl", "the match log", Kind::kFile},  // covered by logs/
                 {"/home/u/bots/t.txtpb", "the tournament file", Kind::kFile},
                 {"/home/u/bots-logs", "elsewhere", Kind::kFolder},  // a prefix, not inside
                 {"/run/user/0/allfives-1-x", "the bots' socket folder", Kind::kFolder}},
                &refusal);
  EXPECT_EQ(refusal, "");
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_EQ(masks[0].path, "/home/u/bots/logs");
  EXPECT_EQ(masks[0].kind, Kind::kFolder);
  EXPECT_EQ(masks[1].path, "/home/u/bots/t.txtpb");
  EXPECT_EQ(masks[1].kind, Kind::kFile);
}

TEST(SandboxMasks, ThroughEveryPathThatShowsTheFolder) {
  // The bot's folder reached through a symlink is bound at both paths: both are covered.
  std::string refusal;
  const auto masks =
      masks_for({{"/data/bots", "/data/bots"}, {"/home/u/bots", "/data/bots"}},
                {{"/data/bots/out", "the output folder", Kind::kSharedFolder}}, &refusal);
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_EQ(masks[0].path, "/data/bots/out");
  EXPECT_EQ(masks[1].path, "/home/u/bots/out");
}

TEST(SandboxMasks, ASharedFolderHoldingTheBotIsLeftOpenItsFilesCovered) {
  // Bots kept in the output folder: the folder stays, the referee's things in it are covered.
  std::string refusal;
  const auto masks =
      masks_for({{"/t/out", "/t/out"}, {"/t/out/bots", "/t/out/bots"}},
                {{"/t/out", "the tournament's output folder", Kind::kSharedFolder},
                 {"/t/out/matches", "the tournament's match log folder", Kind::kFolder},
                 {"/t/out/index.jsonl", "the tournament's index", Kind::kFile}},
                &refusal);
  EXPECT_EQ(refusal, "");
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_EQ(masks[0].path, "/t/out/index.jsonl");
  EXPECT_EQ(masks[1].path, "/t/out/matches");
  // Also when the shared folder is seen through a wider bound folder (/t): covering it there
  // would cover the bot's own folder.
  const auto wider =
      masks_for({{"/t", "/t"}, {"/t/out/bots", "/t/out/bots"}},
                {{"/t/out", "the tournament's output folder", Kind::kSharedFolder}}, &refusal);
  EXPECT_TRUE(wider.empty());
  EXPECT_EQ(refusal, "");
}

TEST(SandboxMasks, AFolderOfTheRefereesAloneHoldingABoundFolderIsRefused) {
  for (const std::string bound : {"/t/out/matches", "/t/out/matches/w"}) {
    std::string refusal;
    const auto masks = masks_for(
        {{"/t", "/t"}, {bound, bound}},
        {{"/t/out/matches", "the tournament's match log folder", Kind::kFolder}}, &refusal);
    EXPECT_TRUE(masks.empty());
    EXPECT_EQ(refusal, "it may read the folder " + bound + ", which " +
                           (bound == "/t/out/matches" ? "is" : "lies inside") +
                           " the tournament's match log folder /t/out/matches: it would see "
                           "what the referee writes there");
  }
}

TEST(SandboxArgv, MasksComeAfterTheBindsAndTheFoldersEndReadOnly) {
  SandboxLayout layout;
  layout.bwrap = "/usr/bin/bwrap";
  layout.read_only = {"/home/u/bots"};
  layout.masks = {{"/home/u/bots/logs", "the match log folder", Kind::kFolder},
                  {"/home/u/bots/t.txtpb", "the tournament file", Kind::kFile},
                  {"/home/u/bots/tmp/allfives-1-x", "the bots' socket folder", Kind::kFolder}};
  layout.writable = "/home/u/bots/tmp/allfives-1-x/b0-0";
  layout.working_dir = "/home/u/bots";
  const auto a = bwrap_argv(layout, {"/home/u/bots/b"});
  const int bind = find_seq(a, {"--ro-bind", "/home/u/bots", "/home/u/bots"});
  const int logs = find_seq(a, {"--tmpfs", "/home/u/bots/logs"});
  const int file = find_seq(a, {"--ro-bind", "/dev/null", "/home/u/bots/t.txtpb"});
  const int sockets = find_seq(a, {"--tmpfs", "/home/u/bots/tmp/allfives-1-x"});
  const int dir = find_seq(a, {"--dir", "/home/u/bots"});
  const int writable = find_seq(a, {"--tmpfs", layout.writable});
  ASSERT_GE(bind, 0);
  EXPECT_GT(logs, bind);
  EXPECT_GT(file, bind);
  EXPECT_GT(sockets, bind);
  // The working folder is made after the covers (it may lie under one), and a socket folder
  // inside a cover gets its tmpfs before the covers become read-only.
  EXPECT_GT(dir, sockets);
  EXPECT_GT(writable, sockets);
  for (const std::string folder : {"/home/u/bots/logs", "/home/u/bots/tmp/allfives-1-x"})
    EXPECT_GT(find_seq(a, {"--remount-ro", folder}), writable) << folder;
  EXPECT_EQ(find_seq(a, {"--remount-ro", "/home/u/bots/t.txtpb"}), -1);
}

TEST(SandboxMasks, RealPathsRelativePathsAndSymlinks) {
  const allfives::testing::TempDir dir("sandbox-masks");
  const fs::path base = dir.path();
  fs::create_directories(base / "real" / "bots" / "logs");
  fs::create_directory_symlink(base / "real", base / "link");
  SandboxLayout layout;
  const std::string bots = (base / "link" / "bots").string();
  layout.read_only = {bots};
  // The log folder named through the symlink and a "..", the tournament's folder not made yet.
  const auto problem =
      mask_hidden_paths(layout, layout.read_only,
                        {{(base / "link" / "bots" / ".." / "bots" / "logs").string(),
                          "the match log folder", Kind::kSharedFolder},
                         {(base / "real" / "bots" / "out").string(),
                          "the tournament's output folder", Kind::kSharedFolder}});
  EXPECT_FALSE(problem.has_value()) << *problem;
  ASSERT_EQ(layout.masks.size(), 2u);
  EXPECT_EQ(layout.masks[0].path, bots + "/logs");
  EXPECT_EQ(layout.masks[1].path, bots + "/out");
  // A relative path is taken from the current folder.
  const fs::path before = fs::current_path();
  fs::current_path(base / "real" / "bots");
  const auto relative = mask_hidden_paths(layout, layout.read_only,
                                          {{"logs", "the match log folder", Kind::kSharedFolder}});
  fs::current_path(before);
  EXPECT_FALSE(relative.has_value());
  ASSERT_EQ(layout.masks.size(), 1u);
  EXPECT_EQ(layout.masks[0].path, bots + "/logs");
}

TEST(SandboxEnvironment, AShortListNotTheReferees) {
  setenv("ALLFIVES_SANDBOX_TEST_SECRET", "x", 1);
  const auto env = bot_environment("/usr/bin:/bin", {{"PYTHONPATH", "/opt/p"}, {"HOME", "/h"}});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin:/bin", "TMPDIR=/tmp", "LANG=C.UTF-8",
                                           "PYTHONUNBUFFERED=1", "PYTHONPATH=/opt/p", "HOME=/h"}));
}

TEST(LimitFaults, NameTheLimitAndItsValue) {
  const ResourceLimits limits;  // the defaults
  ExitStatus abort_status;
  abort_status.signaled = true;
  abort_status.signal = SIGABRT;
  LimitEvidence oom;
  oom.oom_kills = 1;
  EXPECT_EQ(describe_exit_with_limits(abort_status, limits, oom),
            "exceeded its memory limit of 1024 MiB (killed by signal 6 (SIGABRT))");
  ExitStatus python_exit;
  python_exit.code = 1;
  LimitEvidence forks;
  forks.process_limit_hits = 3;
  EXPECT_EQ(describe_exit_with_limits(python_exit, limits, forks),
            "reached its limit of 64 processes and threads (exited with code 1)");
  ExitStatus xfsz;
  xfsz.signaled = true;
  xfsz.signal = SIGXFSZ;
  EXPECT_EQ(describe_exit_with_limits(xfsz, limits),
            "exceeded its file size limit of 64 MiB (killed by signal 25 (SIGXFSZ))");
  // Nothing counted, or a clean exit, or a limit that is not set: the exit alone.
  EXPECT_EQ(describe_exit_with_limits(abort_status, limits), "killed by signal 6 (SIGABRT)");
  ExitStatus clean;
  EXPECT_EQ(describe_exit_with_limits(clean, limits, oom), "exited with code 0");
  EXPECT_EQ(describe_exit_with_limits(abort_status, ResourceLimits::none(), oom),
            "killed by signal 6 (SIGABRT)");
}

TEST(ResourceLimitsText, DefaultsInWords) {
  EXPECT_EQ(ResourceLimits{}.describe(),
            "memory 1024 MiB, 64 processes, 256 open files, files up to 64 MiB, no core dumps");
}

// --- Real sandboxed processes ---------------------------------------------------------------

std::string run_sandboxed(const std::string& script, ResourceLimits limits = ResourceLimits{},
                          int* code = nullptr) {
  std::string error;
  auto p = testing::start_sandboxed(script, limits, true, &error);
  EXPECT_NE(p, nullptr) << error;
  if (!p) return "";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (p->running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_FALSE(p->running()) << "the sandboxed script did not finish";
  p->stop(milliseconds(100));
  if (code) {
    const auto st = p->exit_status();
    *code = st && !st->signaled ? st->code : -1;
  }
  return p->take_stderr();
}

TEST(SandboxedProcess, WorksHere) {
  const auto problem = sandbox_problem();
  EXPECT_FALSE(problem.has_value()) << *problem;
  EXPECT_NE(bwrap_version().find("bubblewrap"), std::string::npos) << bwrap_version();
}

TEST(SandboxedProcess, SeesOnlyItsOwnProcessesAndEnvironment) {
  setenv("ALLFIVES_SANDBOX_TEST_SECRET", "hidden", 1);
  const std::string out = run_sandboxed(
      "ls /proc | grep -c '^[0-9]'; env | sort; ls /tmp | wc -l; echo ROOT:; ls / | tr '\\n' ' "
      "'");
  EXPECT_EQ(out.find("hidden"), std::string::npos) << out;
  EXPECT_NE(out.find("HOME=/tmp\n"), std::string::npos) << out;
  // bwrap's init, sh, and the pipeline's processes: a handful, not the machine's.
  EXPECT_LE(std::atoi(out.c_str()), 6) << out;
  // The root folder holds the system folders, the bound working folder's top (whatever its name,
  // so its entry may sort anywhere) and the sandbox's own: no /root, no /home, no /var.
  const auto marker = out.rfind("ROOT:\n");
  ASSERT_NE(marker, std::string::npos) << out;
  std::istringstream listing(out.substr(marker + 6));
  std::set<std::string> entries;
  for (std::string name; listing >> name;) entries.insert(name);
  EXPECT_TRUE(entries.count("bin") && entries.count("dev") && entries.count("tmp")) << out;
  const std::string cwd_top = fs::current_path().begin() == fs::current_path().end()
                                  ? ""
                                  : std::next(fs::current_path().begin())->string();
  for (const char* hidden : {"root", "home", "var"})
    if (cwd_top != hidden) {
      EXPECT_EQ(entries.count(hidden), 0u) << hidden << " in " << out;
    }
}

TEST(SandboxedProcess, HasItsLimits) {
  ResourceLimits limits;
  limits.memory_mib = 300;
  limits.open_files = 100;
  limits.file_size_mib = 2;
  const std::string out = run_sandboxed("ulimit -v; ulimit -n; ulimit -f; ulimit -c", limits);
  // dash prints -v in KiB and -f in 512-byte blocks. Memory is the address space only where no
  // memory cgroup can be made (cgroup_test.cpp tests that case).
  const std::string memory =
      cgroup_places().memory_parent.empty() ? std::to_string(300 * 1024) : "unlimited";
  EXPECT_EQ(out, memory + "\n100\n4096\n0\n");
}

TEST(SandboxedProcess, NothingOutlivesTheMainProcess) {
  // A setsid grandchild that ignores SIGTERM (named by sh -c's $0, so it can be found), and a
  // main process that exits at once.
  const std::string marker2 = "sandbox-escapee-" + std::to_string(getpid());
  run_sandboxed("setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' " + marker2 +
                " & sleep 0.3; exit 0");
  auto escapees = [&] {
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::ifstream in(entry.path() / "cmdline", std::ios::binary);
      std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (cmdline.find(marker2) != std::string::npos)
        found.push_back(std::stoi(entry.path().filename().string()));
    }
    return found;
  };
  // The sandbox's end takes the grandchild with it (polled: the kernel tears it down).
  const bool none_left =
      testing::wait_until([&] { return escapees().empty(); }, milliseconds(10000));
  for (const pid_t pid : escapees()) kill(pid, SIGKILL);
  EXPECT_TRUE(none_left);
}

// A bot whose folder holds the referee's log folder, a log in it, a tournament file and the
// socket folder: with them hidden it sees none of their contents, and its own socket folder
// (a tmpfs) inside the covered one still works.
TEST(SandboxedProcess, SeesNothingOfTheRefereesPathsInItsFolder) {
  const allfives::testing::TempDir dir("sandbox-hidden", allfives::testing::TempDir::kOpenToAll);
  const fs::path base = dir.path();
  const fs::path bots = base / "bots";
  fs::create_directories(bots / "logs");
  fs::create_directories(bots / "sockets" / "other");
  fs::create_directories(bots / "sockets" / "mine");
  std::ofstream(bots / "logs" / "m.jsonl") << "secret-log\n";
  std::ofstream(bots / "t.txtpb") << "secret-file\n";
  std::ofstream(bots / "sockets" / "other" / "s") << "secret-socket\n";
  std::ofstream(bots / "bot.sh") << "";
  const auto run = [&](std::vector<HiddenPath> hidden, std::string* error) {
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "cd " + bots.string() +
                     " && ls logs sockets; cat logs/m.jsonl t.txtpb sockets/other/s; "
                     "echo mine > sockets/mine/w && cat sockets/mine/w; echo x > logs/new",
                 "sh", (bots / "bot.sh").string()};  // an argument in bots/: it is bound
    spec.sandbox = true;
    spec.clean_environment = true;
    spec.writable_dir = (bots / "sockets" / "mine").string();
    spec.hidden = std::move(hidden);
    auto p = BotProcess::start(spec, error);
    if (!p) return std::string();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (p->running() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(milliseconds(5));
    p->stop(milliseconds(100));
    return p->take_stderr();
  };
  std::string error;
  const std::string open = run({}, &error);
  ASSERT_EQ(error, "");
  // Not hidden, everything shows: the test below can fail.
  EXPECT_NE(open.find("secret-log"), std::string::npos) << open;
  EXPECT_NE(open.find("secret-socket"), std::string::npos) << open;
  const std::string out =
      run({{(bots / "logs").string(), "the match log folder", Kind::kSharedFolder},
           {(bots / "logs" / "m.jsonl").string(), "the match log", Kind::kFile},
           {(bots / "t.txtpb").string(), "the tournament file", Kind::kFile},
           {(bots / "sockets").string(), "the bots' socket folder", Kind::kFolder}},
          &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(out.find("secret"), std::string::npos) << out;
  // ls shows an empty logs/ and, of the socket folders, its own only.
  EXPECT_NE(out.find("logs:\n\nsockets:\nmine\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mine\n"), std::string::npos) << out;    // its own folder is writable
  EXPECT_FALSE(fs::exists(bots / "sockets" / "mine" / "w"));  // a tmpfs: nothing on the host
  EXPECT_FALSE(fs::exists(bots / "logs" / "new"));
  EXPECT_EQ(fs::file_size(bots / "logs" / "m.jsonl"), 11u);
  // A path to hide that does not exist yet would show once made: the bot is not started.
  run({{(bots / "later").string(), "the match log folder", Kind::kSharedFolder}}, &error);
  EXPECT_EQ(error, "the match log folder " + (bots / "later").string() +
                       " does not exist yet, so it cannot be hidden from the bot");
  // Its folder is one of the referee's alone: refused.
  run({{bots.string(), "the tournament's match log folder", Kind::kFolder}}, &error);
  EXPECT_NE(error.find("which is the tournament's match log folder " + bots.string()),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace allfives::referee
