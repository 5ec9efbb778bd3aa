// referee-unpack ARCHIVE FOLDER MAX_BYTES MAX_FILES: unpacks an uploaded archive into FOLDER
// (which exists and is empty) for `referee ladder submit`, in a process of its own under
// limits of its own (CPU, memory, file size), so a hostile archive, or a flaw in a decoder,
// reaches neither the referee nor more than this one folder. Exit 0, or 1 with the reason as
// the first line of its output; 2 for bad arguments.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "ladder/archive_unpack.h"

namespace {

void limit(int resource, rlim_t value) {
  const rlimit r{value, value};
  setrlimit(resource, &r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cout << "usage: referee-unpack ARCHIVE FOLDER MAX_BYTES MAX_FILES\n";
    return 2;
  }
  const uint64_t max_bytes = std::strtoull(argv[3], nullptr, 10);
  const uint64_t max_files = std::strtoull(argv[4], nullptr, 10);
  limit(RLIMIT_CPU, 60);                                    // a decoder that spins stops
  limit(RLIMIT_AS, rlim_t{1} << 30);                        // and one that allocates wildly
  limit(RLIMIT_FSIZE, static_cast<rlim_t>(max_bytes) + 1);  // no file beyond the cap
  const int root = open(argv[2], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (root < 0) {
    std::cout << argv[2] << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  allfives::referee::TreeWriter w(
      root, {max_bytes, static_cast<uint32_t>(std::min<uint64_t>(max_files, UINT32_MAX))});
  const std::string why = allfives::referee::unpack_archive(argv[1], w);
  if (!why.empty()) {
    std::cout << why << "\n";
    return 1;
  }
  return 0;
}
