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

#include "process/bot_process.h"

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
  layout.writable = "/tmp/allfives-x/b0-0";
  layout.working_dir = "/home/u";
  const auto a = bwrap_argv(layout, {"/home/u/bots/b", "--listen", "unix:/tmp/allfives-x/b0-0/s"});
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
  // The socket folder is bound after the tmpfs /tmp it lives in, else the tmpfs would hide it.
  const int writable = find_seq(a, {"--bind", "/tmp/allfives-x/b0-0", "/tmp/allfives-x/b0-0"});
  EXPECT_GT(writable, find_seq(a, {"--tmpfs", "/tmp"}));
  EXPECT_GE(find_seq(a, {"--chdir", "/home/u", "--", "/home/u/bots/b", "--listen"}), 0);
  EXPECT_EQ(a.back(), "unix:/tmp/allfives-x/b0-0/s");
  EXPECT_FALSE(has(a, "--share-net"));
  EXPECT_FALSE(has(a, "--bind-try"));
}

TEST(SandboxFolders, ProgramFolderPathArgumentsAndExtras) {
  const fs::path base = fs::temp_directory_path() / ("sandbox-folders-" + std::to_string(getpid()));
  fs::create_directories(base / "bots" / "weights");
  fs::create_directories(base / "data");
  std::ofstream(base / "bots" / "bot.py") << "";
  const auto dirs = read_only_folders(
      {"/usr/bin/python3", "bots/bot.py", "--listen", "unix:/tmp/x.sock", "missing/file", "7"},
      base.string(), {"data", (base / "bots" / "weights").string()});
  // python3's folder is a system folder (bound anyway), bots/ holds bot.py and weights/ is
  // inside it, data/ is an extra; flags, addresses and missing paths are not folders to bind.
  EXPECT_EQ(dirs, (std::vector<std::string>{(base / "bots").string(), (base / "data").string()}));
  fs::remove_all(base);
}

TEST(SandboxEnvironment, AShortListNotTheReferees) {
  setenv("ALLFIVES_SANDBOX_TEST_SECRET", "x", 1);
  const auto env = bot_environment("/usr/bin:/bin", {{"PYTHONPATH", "/opt/p"}, {"HOME", "/h"}});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin:/bin", "TMPDIR=/tmp", "LANG=C.UTF-8",
                                           "PYTHONPATH=/opt/p", "HOME=/h"}));
}

TEST(LimitFaults, NameTheLimitAndItsValue) {
  const ResourceLimits limits;  // the defaults
  ExitStatus abort_status;
  abort_status.signaled = true;
  abort_status.signal = SIGABRT;
  EXPECT_EQ(describe_exit_with_limits(
                abort_status, limits,
                "terminate called after throwing an instance of 'std::bad_alloc'\n"),
            "exceeded its memory limit of 1024 MiB (killed by signal 6 (SIGABRT))");
  ExitStatus python_exit;
  python_exit.code = 1;
  EXPECT_EQ(describe_exit_with_limits(python_exit, limits, "    x = [0] * n\nMemoryError\n"),
            "exceeded its memory limit of 1024 MiB (exited with code 1)");
  EXPECT_EQ(
      describe_exit_with_limits(abort_status, limits, "fork: Resource temporarily unavailable\n"),
      "reached its limit of 64 processes and threads (killed by signal 6 (SIGABRT))");
  ExitStatus xfsz;
  xfsz.signaled = true;
  xfsz.signal = SIGXFSZ;
  EXPECT_EQ(describe_exit_with_limits(xfsz, limits, ""),
            "exceeded its file size limit of 64 MiB (killed by signal 25 (SIGXFSZ))");
  // Nothing said, or a clean exit, or a limit that is not set: the exit alone.
  EXPECT_EQ(describe_exit_with_limits(abort_status, limits, "bye\n"),
            "killed by signal 6 (SIGABRT)");
  ExitStatus clean;
  EXPECT_EQ(describe_exit_with_limits(clean, limits, "MemoryError"), "exited with code 0");
  EXPECT_EQ(describe_exit_with_limits(abort_status, ResourceLimits::none(), "std::bad_alloc"),
            "killed by signal 6 (SIGABRT)");
}

TEST(ResourceLimitsText, DefaultsInWords) {
  EXPECT_EQ(ResourceLimits{}.describe(),
            "memory 1024 MiB, 64 processes, 256 open files, files up to 64 MiB, no core dumps");
}

// --- Real sandboxed processes ---------------------------------------------------------------

std::string run_sandboxed(const std::string& script, ResourceLimits limits = ResourceLimits{},
                          int* code = nullptr) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.sandbox = true;
  spec.clean_environment = true;
  spec.own_user = true;
  spec.limits = limits;
  std::string error;
  auto p = BotProcess::start(spec, &error);
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
      "ls /proc | grep -c '^[0-9]'; env | sort; ls /tmp | wc -l; echo ROOT:; ls / | tr '\\n' ' '");
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
  std::this_thread::sleep_for(milliseconds(300));
  int found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(marker2) != std::string::npos) {
      ++found;
      kill(std::stoi(entry.path().filename().string()), SIGKILL);
    }
  }
  EXPECT_EQ(found, 0);
}

}  // namespace
}  // namespace allfives::referee
