// Archives as a hostile author would make them, written with libarchive for the tests of
// uploads: any name, links, hard links, devices, and bombs (data written many times).
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdint>
#include <string>
#include <vector>

namespace allfives::testing::archives {

struct Entry {
  std::string name;
  mode_t type = AE_IFREG;
  std::string data;
  std::string link;      // a symlink's target
  std::string hardlink;  // a hard link's target
  int64_t repeat = 1;    // data written this many times (a bomb)
  mode_t perm = 0644;
};

inline Entry file(const std::string& name, const std::string& data, mode_t perm = 0644) {
  Entry e;
  e.name = name;
  e.data = data;
  e.perm = perm;
  return e;
}
inline Entry folder(const std::string& name) {
  Entry e;
  e.name = name;
  e.type = AE_IFDIR;
  e.perm = 0755;
  return e;
}
inline Entry link(const std::string& name, const std::string& target) {
  Entry e;
  e.name = name;
  e.type = AE_IFLNK;
  e.link = target;
  return e;
}
inline Entry hard_link(const std::string& name, const std::string& target) {
  Entry e;
  e.name = name;
  e.hardlink = target;
  return e;
}
inline Entry special(const std::string& name, mode_t type) {
  Entry e;
  e.name = name;
  e.type = type;
  return e;
}

// An archive of `entries`: tar.gz, or zip if the name ends in .zip.
inline void write_archive(const std::string& path, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  if (path.ends_with(".zip")) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const Entry& e : entries) {
    archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.name.c_str());
    archive_entry_set_filetype(ae, e.type);
    archive_entry_set_perm(ae, e.perm);
    if (!e.link.empty()) archive_entry_set_symlink(ae, e.link.c_str());
    if (!e.hardlink.empty()) archive_entry_set_hardlink(ae, e.hardlink.c_str());
    if (e.type == AE_IFCHR) archive_entry_set_rdev(ae, makedev(1, 3));
    const int64_t size = e.type == AE_IFREG && e.hardlink.empty()
                             ? static_cast<int64_t>(e.data.size()) * e.repeat
                             : 0;
    archive_entry_set_size(ae, size);
    archive_write_header(a, ae);
    for (int64_t i = 0; size && i < e.repeat; ++i)
      archive_write_data(a, e.data.data(), e.data.size());
    archive_entry_free(ae);
  }
  archive_write_close(a);
  archive_write_free(a);
}

}  // namespace allfives::testing::archives
