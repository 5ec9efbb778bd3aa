#include "process/private_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

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

}  // namespace
}  // namespace allfives::referee
