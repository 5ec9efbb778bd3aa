#include "serve/served_paths.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "serve/http_server.h"

namespace allfives::referee::serve {
namespace {

std::optional<std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

}  // namespace

bool make_roots(const std::vector<std::string>& dirs, std::vector<ServedRoot>& out,
                std::string* error) {
  out.clear();
  for (const std::string& dir : dirs) {
    const auto real = real_path(dir);
    struct stat st {};
    if (!real || ::stat(real->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      if (error) *error = dir + " is not a folder";
      return false;
    }
    out.push_back(ServedRoot{dir, *real});
  }
  return true;
}

std::optional<std::string> resolve_under(const ServedRoot& root, std::string_view rel,
                                         std::string* why) {
  std::string decoded;
  if (!percent_decode(rel, decoded)) {
    if (why) *why = "a malformed escape in the path";
    return std::nullopt;
  }
  std::string path = root.real;
  size_t at = 0;
  while (at < decoded.size()) {
    size_t slash = decoded.find('/', at);
    if (slash == std::string::npos) slash = decoded.size();
    const std::string segment = decoded.substr(at, slash - at);
    at = slash + 1;
    if (segment.empty() && slash == decoded.size()) break;  // a trailing slash
    if (segment.empty() || segment == "." || segment == ".." ||
        segment.find('\\') != std::string::npos || segment.find('\0') != std::string::npos) {
      if (why) *why = "the path may not contain empty, '.' or '..' parts";
      return std::nullopt;
    }
    path += '/';
    path += segment;
  }
  const auto real = real_inside(root, path);
  if (!real && why) *why = "no such file";  // a link out of the folder: as if absent
  return real;
}

std::optional<std::string> real_inside(const ServedRoot& root, const std::string& path) {
  const auto real = real_path(path);
  if (!real) return std::nullopt;
  if (*real != root.real && real->compare(0, root.real.size() + 1, root.real + "/") != 0)
    return std::nullopt;
  return real;
}

std::string relative_to(const ServedRoot& root, const std::string& path) {
  if (path.size() <= root.real.size()) return "";
  return path.substr(root.real.size() + 1);
}

std::string url_encode_path(std::string_view rel) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : rel) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace allfives::referee::serve
