#include "process/private_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace allfives::referee {

std::optional<PrivateDir> PrivateDir::create(std::string* error) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = (tmpdir != nullptr && *tmpdir != '\0') ? tmpdir : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string templ = base + "/allfives-XXXXXX";
  std::vector<char> buffer(templ.begin(), templ.end());
  buffer.push_back('\0');
  // mkdtemp creates the directory with mode 0700 and fails if the name exists: no races.
  if (mkdtemp(buffer.data()) == nullptr) {
    if (error != nullptr) {
      *error = "cannot create a private directory under '" + base + "': " + strerrordesc_np(errno);
    }
    return std::nullopt;
  }
  PrivateDir dir{std::string(buffer.data())};
  // mkdtemp already used 0700 (the umask can only narrow it); say so explicitly anyway.
  if (chmod(dir.path_.c_str(), S_IRWXU) != 0) {
    if (error != nullptr) {
      *error = "cannot set mode 0700 on '" + dir.path_ + "': " + strerrordesc_np(errno);
    }
    return std::nullopt;  // dir's destructor removes it
  }
  return dir;
}

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

void PrivateDir::remove() noexcept {
  if (path_.empty()) return;
  std::error_code ignored;  // best effort: a destructor has no one to report to
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace allfives::referee
