#include "process/private_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

TEST(PrivateDir, IsAPrivateDirectoryRemovedWithItsContents) {
  std::string path;
  {
    std::string error;
    std::optional<PrivateDir> dir = PrivateDir::create(&error);
    ASSERT_TRUE(dir.has_value()) << error;
    path = dir->path();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(path + "/sub/deeper");
    std::ofstream(path + "/sub/deeper/file") << "x";
    std::ofstream(path + "/bot.sock") << "x";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(PrivateDir, LivesUnderTmpdir) {
  std::string base;
  {
    std::string error;
    std::optional<PrivateDir> outer = PrivateDir::create(&error);
    ASSERT_TRUE(outer.has_value()) << error;
    base = outer->path();
    const char* old = std::getenv("TMPDIR");
    const std::string saved = old != nullptr ? old : "";
    ::setenv("TMPDIR", (base + "/").c_str(), 1);
    std::optional<PrivateDir> inner = PrivateDir::create(&error);
    if (old != nullptr) {
      ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
    ASSERT_TRUE(inner.has_value()) << error;
    EXPECT_EQ(fs::path(inner->path()).parent_path(), fs::path(base));
  }
  EXPECT_FALSE(fs::exists(base));
}

TEST(PrivateDir, MovingTransfersOwnership) {
  std::string error;
  std::optional<PrivateDir> a = PrivateDir::create(&error);
  ASSERT_TRUE(a.has_value()) << error;
  const std::string path = a->path();
  PrivateDir b = std::move(*a);
  a.reset();  // the moved-from object must not remove the directory
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(b.path(), path);

  std::optional<PrivateDir> c = PrivateDir::create(&error);
  ASSERT_TRUE(c.has_value()) << error;
  const std::string other = c->path();
  b = std::move(*c);  // b's old directory goes away, b now owns c's
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(b.path(), other);
}

TEST(PrivateDir, ReportsAnUnusableTmpdir) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent/allfives-test", 1);
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  if (old != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_FALSE(dir.has_value());
  EXPECT_NE(error.find("/nonexistent/allfives-test"), std::string::npos) << error;
}

// Sets TMPDIR for the life of the object.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    const char* old = std::getenv("TMPDIR");
    had_ = old != nullptr;
    saved_ = had_ ? old : "";
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (had_) {
      ::setenv("TMPDIR", saved_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

 private:
  bool had_ = false;
  std::string saved_;
};

// The id of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(PrivateDir, IsNamedForItsProcess) {
  std::string error;
  std::optional<PrivateDir> dir = PrivateDir::create(&error);
  ASSERT_TRUE(dir.has_value()) << error;
  const std::string name = fs::path(dir->path()).filename().string();
  EXPECT_EQ(name.rfind("allfives-" + std::to_string(::getpid()) + "-", 0), 0u) << name;
}

// Folders left by processes killed with SIGKILL are removed; live ones, locked ones and other
// names are kept.
TEST(PrivateDir, SweepRemovesOnlyTheFoldersOfDeadProcesses) {
  std::string error;
  std::optional<PrivateDir> base = PrivateDir::create(&error);
  ASSERT_TRUE(base.has_value()) << error;
  const ScopedTmpdir tmpdir(base->path());
  const pid_t dead = dead_pid();
  const std::string stale = base->path() + "/allfives-" + std::to_string(dead) + "-abcdef";
  fs::create_directories(stale + "/sub");
  std::ofstream(stale + "/sub/bot.sock") << "x";
  // Same dead owner in its name, but someone (in another PID namespace, say) holds its lock.
  const std::string locked = base->path() + "/allfives-" + std::to_string(dead) + "-ghijkl";
  fs::create_directories(locked);
  const int lock_fd = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(lock_fd, 0);
  ASSERT_EQ(::flock(lock_fd, LOCK_EX), 0);
  const std::string other = base->path() + "/allfives-notmine";
  fs::create_directories(other);
  std::optional<PrivateDir> live = PrivateDir::create(&error);
  ASSERT_TRUE(live.has_value()) << error;

  const std::vector<std::string> notes = sweep_stale_private_dirs();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(locked));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(live->path()));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("removed the socket folder " + stale), std::string::npos) << notes[0];
  ::close(lock_fd);
}

}  // namespace
}  // namespace allfives::referee
