// A private directory for the bots' Unix sockets.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace allfives::referee {

// A directory of mode 0700 under $TMPDIR (or /tmp if unset), made with mkdtemp and removed with
// all its contents on destruction. Keep the names inside short: a Unix socket path must fit in
// 107 bytes.
class PrivateDir {
 public:
  // Returns nullopt and sets *error (if error is not null) when the directory cannot be made.
  static std::optional<PrivateDir> create(std::string* error);

  PrivateDir(PrivateDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  PrivateDir& operator=(PrivateDir&& other) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() { remove(); }

  const std::string& path() const { return path_; }

 private:
  explicit PrivateDir(std::string path) : path_(std::move(path)) {}
  void remove() noexcept;
  std::string path_;  // empty once moved from
};

}  // namespace allfives::referee
