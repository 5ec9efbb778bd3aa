#include "ladder/archive_unpack.h"

#include <archive.h>
#include <archive_entry.h>

#include <array>
#include <memory>

namespace allfives::referee {

std::string unpack_archive(const std::string& path, TreeWriter& w) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_zip(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
    return path +
           ": not an archive this referee reads (tar or zip): " + archive_error_string(a.get());
  archive_entry* e = nullptr;
  std::array<char, 1 << 16> buf{};
  for (;;) {
    const int rc = archive_read_next_header(a.get(), &e);
    if (rc == ARCHIVE_EOF) return "";
    if (rc < ARCHIVE_WARN) return path + ": " + archive_error_string(a.get());
    const char* raw = archive_entry_pathname(e);
    const std::string name = raw ? raw : "";
    std::string why;
    if (archive_entry_hardlink(e)) {
      why = quote(name) + " is a hard link";
    } else if (archive_entry_filetype(e) == AE_IFDIR) {
      why = w.add_dir(name);
    } else if (archive_entry_filetype(e) == AE_IFLNK) {
      const char* target = archive_entry_symlink(e);
      why = w.add_link(name, target ? target : "");
    } else if (archive_entry_filetype(e) == AE_IFREG) {
      why = w.add_file(name, archive_entry_perm(e) & 0111);
      // The bytes are counted as they are written: a header may lie about the size.
      for (la_ssize_t r;
           why.empty() && (r = archive_read_data(a.get(), buf.data(), buf.size())) != 0;) {
        if (r < 0) return path + ": " + archive_error_string(a.get());
        why = w.write(buf.data(), static_cast<size_t>(r));
      }
    } else {
      why = quote(name) + " is a device, a FIFO or a socket";
    }
    if (!why.empty()) return why;
  }
}

}  // namespace allfives::referee
