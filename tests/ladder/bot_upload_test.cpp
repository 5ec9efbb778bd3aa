// Uploads as a hostile author would make them: archives (written here with libarchive) that
// try to escape their folder, exhaust the disk or smuggle devices, each refused with its
// reason and nothing written outside the version's folder; and the ordinary ones unpacked.
#include "ladder/bot_upload.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "common/archive_writer.h"
#include "common/temp_dir.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using namespace testing::archives;

// Uploads `entries` as an archive named `name` into a fresh folder; returns the refusal.
struct Upload {
  TempDir dir{"upload"};
  std::string dest() const { return dir.file("v"); }
  std::string run(const std::string& name, const std::vector<Entry>& entries,
                  UploadLimits limits = {}) {
    const std::string archive = dir.file(name);
    write_archive(archive, entries);
    return store_upload(archive, dest(), limits, ALLFIVES_UNPACK);
  }
  // Nothing was written beside the archive and the version's folder (nor above it).
  void expect_nothing_outside(const std::string& archive) const {
    for (const auto& e : fs::directory_iterator(dir.path())) {
      const std::string n = e.path().filename().string();
      EXPECT_TRUE(n == archive || n == "v" || n == "v.unpacking") << "written outside: " << n;
    }
  }
};

TEST(BotUpload, AnArchiveWithOneTopFolderIsUnpackedWithoutIt) {
  Upload u;
  ASSERT_EQ(u.run("bot.tar.gz", {folder("mybot/"), file("mybot/bot", "#!/bin/sh\n", 0755),
                                 file("mybot/data/w.txt", "weights")}),
            "");
  EXPECT_TRUE(fs::is_regular_file(u.dest() + "/bot"));
  EXPECT_EQ(fs::status(u.dest() + "/bot").permissions() & fs::perms::owner_exec,
            fs::perms::owner_exec);
  EXPECT_TRUE(fs::is_regular_file(u.dest() + "/data/w.txt"));
  EXPECT_FALSE(fs::exists(u.dest() + ".unpacking"));
}

TEST(BotUpload, AZipWithFilesAtItsTopIsUnpackedAsItIs) {
  Upload u;
  ASSERT_EQ(u.run("bot.zip", {file("bot.py", "print(1)\n"), file("lib/x.py", "")}), "");
  EXPECT_TRUE(fs::is_regular_file(u.dest() + "/bot.py"));
  EXPECT_TRUE(fs::is_regular_file(u.dest() + "/lib/x.py"));
}

TEST(BotUpload, HostileArchivesAreRefusedWithTheReason) {
  struct Case {
    const char* what;
    std::string archive;
    std::vector<Entry> entries;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"absolute", "a.tar.gz", {file("/etc/cron.d/evil", "x")}, "absolute"},
      {"dot-dot", "b.tar.gz", {file("bot/../../evil", "x")}, "climbs out with .."},
      {"dot-dot zip", "c.zip", {file("../evil", "x")}, "climbs out with .."},
      {"link out",
       "d.tar.gz",
       {link("out", "/etc"), file("out/passwd", "x")},
       "a link may only lead below its own folder"},
      {"link up", "e.tar.gz", {link("up", "../..")}, "a link may only lead below"},
      {"link via self",
       "f.tar.gz",
       {link("s", "."), link("t", "s/..")},
       "a link may only lead below"},
      {"write through a link",
       "g.tar.gz",
       {folder("sub/"), link("l", "sub"), file("l/x", "x")},
       "is a link or a file"},
      {"hard link", "h.tar.gz", {file("a", "x"), hard_link("b", "/etc/shadow")}, "hard link"},
      {"device", "i.tar.gz", {special("null", AE_IFCHR)}, "a device, a FIFO or a socket"},
      {"fifo", "j.tar.gz", {special("pipe", AE_IFIFO)}, "a device, a FIFO or a socket"},
      {"not UTF-8", "k.tar.gz", {file("bad\xff\xfe.py", "x")}, "not UTF-8"},
      {"twice", "l.tar.gz", {file("a", "x"), file("a", "y")}, "appears twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Upload u;
    const std::string why = u.run(c.archive, c.entries);
    EXPECT_NE(why.find(c.reason), std::string::npos) << why;
    u.expect_nothing_outside(c.archive);
  }
}

TEST(BotUpload, AZipBombStopsAtTheByteCap) {
  Upload u;
  // 64 MiB of zeros compress to a few hundred KiB; the cap is 1 MiB.
  Entry bomb = file("zeros", std::string(1 << 16, '\0'));
  bomb.repeat = 1024;
  const std::string why = u.run("bomb.zip", {bomb}, UploadLimits{1 << 20, 100});
  EXPECT_NE(why.find("more than 1048576 bytes"), std::string::npos) << why;
  uint64_t written = 0;
  for (const auto& e : fs::recursive_directory_iterator(u.dir.path()))
    if (e.is_regular_file() && e.path().filename() == "zeros") written += e.file_size();
  EXPECT_LE(written, uint64_t{1} << 20);
}

TEST(BotUpload, TooManyFilesAreRefused) {
  Upload u;
  std::vector<Entry> many;
  for (int i = 0; i < 50; ++i)
    many.push_back(file(std::string("f").append(std::to_string(i)), "x"));
  const std::string why = u.run("many.tar.gz", many, UploadLimits{1 << 20, 20});
  EXPECT_NE(why.find("more than 20 files and folders"), std::string::npos) << why;
}

TEST(BotUpload, AFolderWithALinkLeadingOutIsRefused) {
  TempDir d("upload");
  fs::create_directories(d.file("src"));
  std::ofstream(d.file("src/bot.py")) << "x";
  fs::create_symlink("/etc/passwd", d.file("src/passwd"));
  const std::string why = store_upload(d.file("src"), d.file("v"), {}, ALLFIVES_UNPACK);
  EXPECT_NE(why.find("a link may only lead below its own folder"), std::string::npos) << why;
}

TEST(BotUpload, ASingleFileKeepsItsNameAndIsMadeReadOnly) {
  TempDir d("upload");
  std::ofstream(d.file("mine.py")) << "print(1)\n";
  ASSERT_EQ(store_upload(d.file("mine.py"), d.file("v"), {}, ALLFIVES_UNPACK), "");
  ASSERT_EQ(make_read_only(d.file("v")), "");
  EXPECT_EQ(fs::status(d.file("v/mine.py")).permissions() & fs::perms::all, fs::perms(0444));
  EXPECT_EQ(fs::status(d.file("v")).permissions() & fs::perms::all, fs::perms(0555));
  fs::permissions(d.file("v"), fs::perms::owner_all, fs::perm_options::add);
}

TEST(BotUpload, TheCommandIsGivenOrFoundByTheRules) {
  TempDir d("upload");
  auto file = [&](const std::string& name, bool exec) {
    std::ofstream(d.file(name)) << "x";
    if (exec) fs::permissions(d.file(name), fs::perms::owner_all);
  };
  std::vector<std::string> argv;
  file("helper.py", false);
  file("main.py", false);
  ASSERT_EQ(choose_command(d.path(), {}, "/py", argv), "");
  EXPECT_EQ(argv, (std::vector<std::string>{"/py", d.file("main.py")}));
  file("bot", true);
  ASSERT_EQ(choose_command(d.path(), {}, "/py", argv), "");
  EXPECT_EQ(argv, std::vector<std::string>{d.file("bot")});
  ASSERT_EQ(choose_command(d.path(), {"helper.py", "--depth", "3"}, "/py", argv), "");
  EXPECT_EQ(argv, (std::vector<std::string>{d.file("helper.py"), "--depth", "3"}));
  // A path may only name the folder's own files (a program may also be a system one).
  EXPECT_NE(choose_command(d.path(), {"/etc/passwd"}, "/py", argv).find("outside"),
            std::string::npos);
  EXPECT_NE(choose_command(d.path(), {"bot", "/home/x/w.bin"}, "/py", argv).find("outside"),
            std::string::npos);
  EXPECT_NE(choose_command(d.path(), {"bot", "../other/w"}, "/py", argv).find("climbs out"),
            std::string::npos);
  EXPECT_NE(choose_command(d.path(), {"bot", ".."}, "/py", argv).find("climbs out"),
            std::string::npos);
  ASSERT_EQ(choose_command(d.path(), {"/usr/bin/python3", "main.py", "--w=../x"}, "/py", argv), "");
  EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/python3", d.file("main.py"), "--w=../x"}));
  ASSERT_EQ(choose_command(d.path(), {"python3", "sub/model.bin"}, "/py", argv), "");
  EXPECT_EQ(argv, (std::vector<std::string>{"python3", d.file("sub/model.bin")}));
  TempDir e("upload");
  std::ofstream(e.file("a.py")) << "x";
  std::ofstream(e.file("b.py")) << "x";
  EXPECT_NE(choose_command(e.path(), {}, "/py", argv).find("--command"), std::string::npos);
}

}  // namespace
}  // namespace allfives::referee
