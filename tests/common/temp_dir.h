// A folder of one test's own under the system's temporary folder, made by mkdtemp (so no other
// test or run can hold its name) and removed with everything in it by the destructor.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace allfives::testing {

class TempDir {
 public:
  // Readable by every user: for folders a bot running as its own user must enter.
  static constexpr std::filesystem::perms kOpenToAll =
      std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
      std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
      std::filesystem::perms::others_exec;

  // `prefix` names the folder, for whoever finds one left by a killed test; kept short, as a
  // Unix socket's path inside it may have at most 107 bytes. mkdtemp makes it its owner's only
  // unless `perms` says otherwise.
  explicit TempDir(const std::string& prefix = "allfives-test",
                   std::filesystem::perms perms = std::filesystem::perms::owner_all) {
    std::string t = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed for " + t);
    std::error_code ec;
    std::filesystem::permissions(t, perms, ec);
    if (ec) {  // the folder is not left behind: no destructor runs after a throw
      std::filesystem::remove_all(t, ec);
      throw std::runtime_error("cannot set the permissions of " + t);
    }
    path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `name` inside the folder.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // A gRPC address of a Unix socket named `name` inside the folder.
  std::string socket(const std::string& name) const { return "unix:" + file(name); }

 private:
  std::string path_;
};

}  // namespace allfives::testing
