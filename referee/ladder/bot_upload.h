// A submitted bot brought into the ladder folder: a program folder copied, a single file
// copied, or an archive unpacked (Debian's libarchive: tar, zip, and their compressions, read
// by the helper program referee-unpack in a process of its own, so a flaw in a decoder cannot
// reach the ladder, and libarchive's dependencies stay out of the referee), all through one
// writer (tree_writer.h) that refuses what could escape the version's folder or exhaust the disk.
// Refused, each with its reason: an absolute name, a ".." component, a name that is not UTF-8,
// a link whose target is absolute or holds ".." (a link may only lead below its own folder, so
// no chain of links can climb out), a hard link, a device, a FIFO or a socket, more files than
// the cap, more bytes than the cap (counted as written, not as the archive claims: a zip bomb
// stops at the cap). Nothing is ever written through a link.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allfives::referee {

struct UploadLimits {
  uint64_t max_bytes = uint64_t{64} << 20;  // file contents, all together
  uint32_t max_files = 2000;                // files, folders and links
};

// Whether `path` names an archive by its ending (.zip, .tar, .tar.gz, .tgz, .tar.xz, .txz,
// .tar.bz2, .tar.zst).
bool is_archive_name(const std::string& path);

// Brings `source` (a folder, an archive, or any other single file, kept under its own name)
// into `dest`, a folder this makes (it must not exist). An archive is unpacked by the program
// `unpacker` (archive_unpack.h); one whose entries all lie in one top folder is unpacked
// without it. Returns "" or why it was refused; a refused upload leaves nothing behind.
std::string store_upload(const std::string& source, const std::string& dest,
                         const UploadLimits& limits, const std::string& unpacker);

// The helper beside the running referee program (its folder/referee-unpack).
std::string default_unpacker();

// Makes everything in `folder` read-only (files keep their execute bits). "" or why not.
std::string make_read_only(const std::string& folder);

// The words of a --command text, split like a bot's command line in a tournament file (quotes
// group words); none for "". False and why if it cannot be split.
bool command_words(const std::string& text, std::vector<std::string>& words, std::string* why);

// The command that starts the bot in `folder`: `given` (the --command words; a first word
// naming a file of the folder is made absolute), else an executable file named "bot" or
// "run", else "bot.py" or "main.py" or a lone .py file run by `python`, else a lone
// executable file. Fills `argv` and returns "", or says what to give.
std::string choose_command(const std::string& folder, const std::vector<std::string>& given,
                           const std::string& python, std::vector<std::string>& argv);

}  // namespace allfives::referee
