// The one way a submitted bot's files are written into its version's folder, from a folder, a
// file or an archive (bot_upload.h says what it refuses and why): never through a link, never
// above the folder, within the ladder's caps on files and bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ladder/bot_upload.h"

namespace allfives::referee {

class TreeWriter {
 public:
  // Writes below the open folder `root` (not owned).
  TreeWriter(int root, const UploadLimits& limits) : root_(root), limits_(limits) {}
  ~TreeWriter();
  TreeWriter(const TreeWriter&) = delete;
  TreeWriter& operator=(const TreeWriter&) = delete;
  // Each returns "" or why the entry is refused.
  std::string add_dir(const std::string& name);
  // Opens a new file, to which write() appends.
  std::string add_file(const std::string& name, bool executable);
  std::string write(const char* data, size_t n);
  std::string add_link(const std::string& name, const std::string& target);

 private:
  std::string count(const std::string& name);
  std::string walk(const std::vector<std::string>& parts, size_t n, const std::string& name,
                   int& out, bool keep);
  int root_;
  UploadLimits limits_;
  uint64_t bytes_ = 0;
  uint32_t files_ = 0;
  int file_ = -1;
  std::string file_name_;
};

// A name from an upload in a message: quoted, made valid UTF-8.
std::string quote(const std::string& name);

}  // namespace allfives::referee
