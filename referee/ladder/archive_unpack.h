// Reading an uploaded archive with Debian's libarchive (tar, zip; gzip, xz, bzip2, zstd), entry
// by entry into a TreeWriter, which refuses what bot_upload.h lists. Linked only into the helper
// program referee-unpack (unpack_main.cpp), never into the referee.
#pragma once

#include <string>

#include "ladder/tree_writer.h"

namespace allfives::referee {

// "" or why the archive is refused.
std::string unpack_archive(const std::string& path, TreeWriter& w);

}  // namespace allfives::referee
