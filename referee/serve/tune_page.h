// A tune's output folder (`referee tune`, docs/TUNING.md) as `referee serve` shows it: each
// parameter's path drawn from tune.jsonl, the values now, and every iteration with a link to
// its tournament's page. The files are read as untrusted input, bounded; the picture is drawn
// here (tune_svg), never copied from the folder.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/http_server.h"
#include "serve/served_paths.h"
#include "serve/site_pages.h"

namespace allfives::referee::serve {

inline constexpr uintmax_t kMaxTuneJsonlBytes = uintmax_t{64} << 20;

struct TuneFolder {
  int root = 0;
  std::string rel;   // relative to the root, "" for the root
  std::string name;  // the tune's name
  size_t iterations = 0;
  uint64_t pairs_done = 0, pairs = 0;
};

// The tune folders among the roots and the folders directly inside them.
std::vector<TuneFolder> find_tune_folders(const std::vector<ServedRoot>& roots);

// Its line in the list of served folders.
FolderRow tune_row(const std::vector<ServedRoot>& roots, const TuneFolder& t);

// GET /tune/ROOT/REL.
HttpResponse tune_page(const std::vector<ServedRoot>& roots, int root, std::string_view rel);

}  // namespace allfives::referee::serve
