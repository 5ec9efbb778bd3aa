#include "tournament/output_folder.h"

namespace allfives::referee {

std::string output_path(const std::string& dir, std::string_view name) {
  std::string out = dir;
  if (!out.empty() && out.back() != '/') out += '/';
  return out.append(name);
}

std::string match_log_name(const std::string& match_id) {
  return std::string(kMatchesFolder) + "/" + match_id + ".jsonl";
}

}  // namespace allfives::referee
