// Which files a URL may reach: only those under the folders given to `referee serve`. A URL
// path is percent-decoded once, split on '/', and refused if a segment is empty, "." or ".."
// or holds a backslash or NUL; what is left is resolved with realpath (symbolic links
// followed) and must still lie inside the folder's own real path. So neither "..", nor
// "%2e%2e", nor a link pointing outside escapes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allfives::referee::serve {

struct ServedRoot {
  std::string given;  // as named on the command line, for display
  std::string real;   // its realpath
};

// The real paths of the folders; false and why if one is not a readable folder.
bool make_roots(const std::vector<std::string>& dirs, std::vector<ServedRoot>& out,
                std::string* error);

// `rel` is the still-encoded part of a URL path after the root's number ("a/b.jsonl", "" for
// the root itself). Returns the real path of an existing file or folder inside `root`, or
// nullopt with the reason (a 404 or 400 for the client) in `why`.
std::optional<std::string> resolve_under(const ServedRoot& root, std::string_view rel,
                                         std::string* why);

// The real path of `path` (a path under the root's real path, links and all) if it exists and
// lies inside `root`; nullopt for a link that leads out of it, or nothing there.
std::optional<std::string> real_inside(const ServedRoot& root, const std::string& path);

// `path` (a real path inside `root`) relative to it, "" for the root itself.
std::string relative_to(const ServedRoot& root, const std::string& path);

// A relative path written back into a URL: each segment percent-encoded.
std::string url_encode_path(std::string_view rel);

}  // namespace allfives::referee::serve
