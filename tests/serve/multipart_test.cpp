// The multipart/form-data parser of the bot-upload form (serve/multipart_form.h) on its own:
// bodies as browsers send them, boundaries straddling the 64 KiB read window, each malformed
// body with its message, and 20,000 seeded mutations that must never crash or point outside
// the body. Every body lives in its own mkstemp file, as the server leaves it on disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "serve/multipart_form.h"

namespace allfives::referee::serve {
namespace {

constexpr size_t kChunk = 64 * 1024;
const std::string kB = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

// A body in its own temporary file, removed when the test ends.
class BodyFile {
 public:
  explicit BodyFile(std::string_view bytes = {}) {
    path_ = (std::filesystem::temp_directory_path() / "multipart_test_XXXXXX").string();
    fd_ = ::mkstemp(path_.data());
    EXPECT_GE(fd_, 0) << path_;
    set(bytes);
  }
  ~BodyFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  BodyFile(const BodyFile&) = delete;
  BodyFile& operator=(const BodyFile&) = delete;

  void set(std::string_view bytes) {
    ASSERT_EQ(::ftruncate(fd_, 0), 0);
    ASSERT_EQ(::pwrite(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    size_ = bytes.size();
  }
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// A folder of its own for copy_part's outputs.
class TempFolder {
 public:
  TempFolder() {
    std::string p = (std::filesystem::temp_directory_path() / "multipart_test_XXXXXX").string();
    EXPECT_NE(::mkdtemp(p.data()), nullptr);
    path_ = p;
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string field(const std::string& name, const std::string& value,
                  const std::string& boundary = kB) {
  return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" +
         value + "\r\n";
}

std::string file_part(const std::string& name, const std::string& filename,
                      const std::string& content) {
  return "--" + kB + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" +
         filename + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
}

std::string close_line(const std::string& boundary = kB) {
  return "--" + boundary + "--\r\n";
}

std::string parse(const BodyFile& f, std::vector<FormPart>& parts, std::string_view boundary = kB,
                  size_t max_parts = 16) {
  return parse_multipart(f.fd(), f.size(), boundary, max_parts, parts);
}

std::string content_of(const BodyFile& f, const FormPart& part) {
  std::string out;
  EXPECT_TRUE(read_part(f.fd(), part, 1 << 24, out)) << part.name;
  return out;
}

// Bytes that look like a delimiter without being one: CR, LF, "--" and the boundary less a byte.
std::string tricky_content() {
  std::string s;
  for (int c = 0; c < 256; ++c) s += static_cast<char>(c);
  s += "\r\n\n\r--\r\n--" + kB.substr(0, kB.size() - 1) + "\r\n-" + kB + "\r\n";
  s += "x--" + kB + " mid-line, not after a CRLF\r\n\r";
  return s;
}

TEST(MultipartTest, BoundaryComesFromTheContentType) {
  const std::pair<std::string, std::string> good[] = {
      {"multipart/form-data; boundary=" + kB, kB},
      {"Multipart/Form-Data ; charset=utf-8;BOUNDARY=\"a b'()+_,-./:=?\"", "a b'()+_,-./:=?"},
      {"multipart/form-data;boundary=x; other=\"y;z\"", "x"},
      {"multipart/form-data; boundary=" + std::string(70, 'q'), std::string(70, 'q')},
  };
  for (const auto& [header, want] : good) {
    std::string boundary;
    EXPECT_TRUE(multipart_boundary(header, boundary)) << header;
    EXPECT_EQ(boundary, want);
  }
}

TEST(MultipartTest, ContentTypesWithoutAUsableBoundaryAreRefused) {
  const std::string bad[] = {
      "multipart/form-data",                                    // no parameters at all
      "multipart/form-data; charset=utf-8",                     // no boundary
      "multipart/form-data; boundary=",                         // empty
      "multipart/form-data; boundary=\"\"",                     // empty, quoted
      "multipart/form-data; boundary=" + std::string(71, 'q'),  // too long
      "multipart/mixed; boundary=x",                            // another media type
      "text/plain; boundary=x",                                 // not multipart
      "multipart/form-datax; boundary=x",                       // a longer type
      "multipart/form-data; boundary=a<b",                      // '<' is no bchar
      "multipart/form-data; boundary=\"ab \"",                  // ends with a space
      "multipart/form-data; boundary=\"a\rb\"",                 // CR inside
      "multipart/form-data; boundary=x; boundary=y",            // two of them
      "multipart/form-data; boundary=\"unterminated",           // open quote
      "",
  };
  for (const std::string& header : bad) {
    std::string boundary = "unchanged";
    EXPECT_FALSE(multipart_boundary(header, boundary)) << header;
    EXPECT_EQ(boundary, "unchanged");
  }
}

TEST(MultipartTest, BrowserLikeBodyGivesTheFieldAndTheFile) {
  const std::string content = tricky_content();
  const BodyFile f(field("bot_name", "strong one") + file_part("bot", "bot.py", content) +
                   close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "bot_name");
  EXPECT_EQ(parts[0].filename, "");
  EXPECT_EQ(parts[0].content_type, "");
  EXPECT_EQ(content_of(f, parts[0]), "strong one");
  EXPECT_EQ(parts[1].name, "bot");
  EXPECT_EQ(parts[1].filename, "bot.py");
  EXPECT_EQ(parts[1].content_type, "application/octet-stream");
  EXPECT_EQ(parts[1].size, content.size());
  EXPECT_EQ(content_of(f, parts[1]), content);
}

TEST(MultipartTest, BoundaryStraddlingTheChunkEdgeIsFound) {
  const std::string head = "--" + kB +
                           "\r\nContent-Disposition: form-data; name=\"bot\"; "
                           "filename=\"b.bin\"\r\n\r\n";
  std::string filler;
  while (filler.size() < 2 * kChunk) filler += "\r\n--" + kB.substr(0, kB.size() - 1) + "x";
  for (int delta = -90; delta <= 90; ++delta) {
    SCOPED_TRACE(delta);
    const std::string content = filler.substr(0, kChunk - head.size() + delta);
    const BodyFile f(head + content + "\r\n" + field("after", "edge") + close_line());
    std::vector<FormPart> parts;
    ASSERT_EQ(parse(f, parts), "");
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].offset, head.size());
    EXPECT_EQ(parts[0].size, content.size());
    EXPECT_EQ(content_of(f, parts[0]), content);
    EXPECT_EQ(parts[1].name, "after");
    EXPECT_EQ(content_of(f, parts[1]), "edge");
  }
}

TEST(MultipartTest, EmptyFilePartHasSizeZero) {
  const BodyFile f(file_part("bot", "", "") + field("x", "") + close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].filename, "");
  EXPECT_EQ(parts[0].size, 0u);
  EXPECT_EQ(content_of(f, parts[0]), "");
  EXPECT_EQ(parts[1].size, 0u);
  EXPECT_LE(parts[0].offset, parts[1].offset);
  // A part whose empty line is straight followed by the delimiter is empty too.
  const BodyFile bare("--" + kB + "\r\nContent-Disposition: form-data; name=\"e\"\r\n\r\n" +
                      close_line());
  ASSERT_EQ(parse(bare, parts), "");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].size, 0u);
}

TEST(MultipartTest, QuotedNamesKeepEscapedQuotesAndSemicolons) {
  const BodyFile f("--" + kB +
                   "\r\nContent-Disposition: form-data ; name = \"a\\\"b;c\" ;"
                   "filename*=UTF-8''ignored.py; filename=\"x\\\\y;\\\"z\\\".py\"\r\n\r\n1\r\n"
                   "--" +
                   kB + "\r\nContent-Disposition: form-data; name=plain_token\r\n\r\n2\r\n" +
                   close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "a\"b;c");
  EXPECT_EQ(parts[0].filename, "x\\y;\"z\".py");
  EXPECT_EQ(content_of(f, parts[0]), "1");
  EXPECT_EQ(parts[1].name, "plain_token");
  EXPECT_EQ(content_of(f, parts[1]), "2");
}

TEST(MultipartTest, HeaderNamesAndDispositionAreCaseInsensitive) {
  const BodyFile f("--" + kB +
                   "\r\nCONTENT-DISPOSITION: Form-Data; NAME=\"f\";\r\n FileName=\"a.py\"\r\n"
                   "content-type:text/x-python \r\nX-Other: 1\r\n\r\nprint(1)\r\n" +
                   close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].name, "f");
  EXPECT_EQ(parts[0].filename, "a.py");
  EXPECT_EQ(parts[0].content_type, "text/x-python");
  EXPECT_EQ(content_of(f, parts[0]), "print(1)");
}

TEST(MultipartTest, PreambleEpilogueAndPaddingAreIgnored) {
  const std::string body = "A preamble with --" + kB + " inside a line.\r\n\r\n--" + kB +
                           " \t \r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--" +
                           kB + "--  then an epilogue\r\n" + field("b", "2") + close_line();
  const BodyFile f(body);
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].name, "a");
  EXPECT_EQ(content_of(f, parts[0]), "1");
}

TEST(MultipartTest, MalformedBodiesSayWhatIsWrong) {
  const std::string disposition = "\r\nContent-Disposition: form-data; name=\"a\"";
  std::string many;
  for (int i = 0; i < 17; ++i) many += field(std::string("f").append(std::to_string(i)), "v");
  const std::pair<std::string, std::string> cases[] = {
      {field("a", "1"), "the body ends before its closing boundary"},
      {field("a", "1") + "--" + kB, "the body ends before its closing boundary"},
      {field("a", "1") + "--" + kB + "-", "the body ends before its closing boundary"},
      {field("a", "1") + "--" + kB + "\r\n", "the body ends inside part 2's headers"},
      {"--" + kB + "\r\nContent-Disposition: form-da", "the body ends inside part 1's headers"},
      {"--" + kB + "\r\nContent-Disposition: form-data; filename=\"x\"\r\n\r\nv\r\n" + close_line(),
       "part 1 has no Content-Disposition name"},
      {field("a", "1") + field("b", "2") + "--" + kB +
           "\r\nContent-Disposition: form-data; name=\"\"\r\n\r\nv\r\n" + close_line(),
       "part 3 has no Content-Disposition name"},
      {"--" + kB + "\r\nContent-Type: text/plain\r\n\r\nv\r\n" + close_line(),
       "part 1 has no Content-Disposition header"},
      {"--" + kB + "\r\n\r\nv\r\n" + close_line(), "part 1 has no Content-Disposition header"},
      {many + close_line(), "more than 16 parts"},
      {"--" + kB + disposition + "\r\nX-Pad: " + std::string(9000, 'p') + "\r\n\r\nv\r\n" +
           close_line(),
       "part 1's headers exceed 8 KiB"},
      {field("a", "1", "OtherBoundary") + close_line("OtherBoundary"),
       "the body does not contain the boundary its Content-Type names"},
      {"--" + kB + "\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n" + close_line(),
       "part 1's Content-Disposition is not form-data"},
      {"--" + kB + "junk\r\n" + disposition.substr(2) + "\r\n\r\nv\r\n" + close_line(),
       "a boundary line has other text after the boundary"},
      {"--" + kB + disposition + "\r\nno colon here\r\n\r\nv\r\n" + close_line(),
       "part 1 has a malformed header line"},
      {"--" + kB + "\r\nContent-Disposition: form-data; name=\"open\r\n\r\nv\r\n" + close_line(),
       "part 1's Content-Disposition is malformed"},
      {"--" + kB + disposition + "; name=b\r\n\r\nv\r\n" + close_line(),
       "part 1's Content-Disposition repeats a parameter"},
      {"--" + kB + disposition + disposition + "\r\n\r\nv\r\n" + close_line(),
       "part 1 repeats a header"},
      {"", "the body is empty"},
  };
  for (const auto& [body, want] : cases) {
    SCOPED_TRACE(body.substr(0, 200));
    const BodyFile f(body);
    std::vector<FormPart> parts(1);
    EXPECT_EQ(parse(f, parts), want);
    EXPECT_TRUE(parts.empty());
  }
}

TEST(MultipartTest, ABoundaryTheParserCannotUseIsRefused) {
  const BodyFile f(field("a", "1") + close_line());
  std::vector<FormPart> parts;
  const std::string want = "the boundary is not one RFC 2046 allows";
  EXPECT_EQ(parse(f, parts, ""), want);
  EXPECT_EQ(parse(f, parts, std::string(71, 'q')), want);
  EXPECT_EQ(parse(f, parts, "a\r\nb"), want);
}

TEST(MultipartTest, ExactlyMaxPartsAndEightKiBOfHeadersAreAccepted) {
  std::string sixteen;
  for (int i = 0; i < 16; ++i)
    sixteen += field(std::string("f").append(std::to_string(i)), std::to_string(i));
  const BodyFile many(sixteen + close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(many, parts), "");
  ASSERT_EQ(parts.size(), 16u);
  EXPECT_EQ(content_of(many, parts[15]), "15");
  EXPECT_EQ(parse(many, parts, kB, 15), "more than 15 parts");

  // Header lines of exactly 8192 bytes, their CRLFs included, and one byte more.
  const std::string first = "Content-Disposition: form-data; name=\"a\"\r\n";
  const std::string pad = "X-Pad: " + std::string(8192 - first.size() - 9, 'p') + "\r\n";
  ASSERT_EQ(first.size() + pad.size(), 8192u);
  const BodyFile fits("--" + kB + "\r\n" + first + pad + "\r\nv\r\n" + close_line());
  ASSERT_EQ(parse(fits, parts), "");
  EXPECT_EQ(content_of(fits, parts[0]), "v");
  const BodyFile over("--" + kB + "\r\n" + first + "p" + pad + "\r\nv\r\n" + close_line());
  EXPECT_EQ(parse(over, parts), "part 1's headers exceed 8 KiB");
}

TEST(MultipartTest, LongPaddingAndNearBoundaryRunsStillParse) {
  std::string content;
  while (content.size() < (4u << 20)) content += "\r\n--" + kB.substr(0, kB.size() - 1) + "\r";
  const BodyFile f("--" + kB + std::string(1 << 20, ' ') +
                   "\r\nContent-Disposition: form-data; name=\"big\"\r\n\r\n" + content + "\r\n" +
                   close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].size, content.size());
  EXPECT_EQ(content_of(f, parts[0]), content);
}

TEST(MultipartTest, ReadPartAndCopyPartRoundTrip) {
  std::string big;
  for (size_t i = 0; big.size() < 3 * kChunk + 17; ++i) big += static_cast<char>(i * 7 % 251);
  const BodyFile f(field("name", "short") + file_part("bot", "bot.bin", big) + close_line());
  std::vector<FormPart> parts;
  ASSERT_EQ(parse(f, parts), "");
  ASSERT_EQ(parts.size(), 2u);

  std::string text = "unchanged";
  EXPECT_FALSE(read_part(f.fd(), parts[0], 4, text));
  EXPECT_EQ(text, "unchanged");
  EXPECT_TRUE(read_part(f.fd(), parts[0], 5, text));
  EXPECT_EQ(text, "short");

  const TempFolder dir;
  const std::string path = dir.file("bot.bin");
  ASSERT_EQ(copy_part(f.fd(), parts[1], path), "");
  std::ifstream in(path, std::ios::binary);
  std::stringstream copied;
  copied << in.rdbuf();
  EXPECT_EQ(copied.str(), big);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const std::string again = copy_part(f.fd(), parts[0], path);
  EXPECT_NE(again.find("File exists"), std::string::npos) << again;
  EXPECT_EQ(std::filesystem::file_size(path), big.size());
  const std::string link = dir.file("link");
  std::filesystem::create_symlink(dir.file("target"), link);
  EXPECT_NE(copy_part(f.fd(), parts[0], link), "");
  EXPECT_FALSE(std::filesystem::exists(dir.file("target")));

  const FormPart outside{"x", "", "", f.size() - 2, 10};
  EXPECT_FALSE(read_part(f.fd(), outside, 100, text));
  EXPECT_NE(copy_part(f.fd(), outside, dir.file("outside")), "");
  EXPECT_FALSE(std::filesystem::exists(dir.file("outside")));
  const FormPart huge{"x", "", "", UINT64_MAX - 5, 10};
  EXPECT_FALSE(read_part(f.fd(), huge, 100, text));
  EXPECT_NE(copy_part(f.fd(), huge, dir.file("huge")), "");
}

// One random change: a byte flip, a cut, an inserted delimiter, a duplicated or deleted slice.
void mutate(std::string& body, std::mt19937& rng) {
  const auto at = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n)(rng); };
  const std::string inserts[] = {"\r\n--" + kB,
                                 "\r\n--" + kB + "\r\n",
                                 "\r\n--" + kB + "--",
                                 "\r\n",
                                 "\"",
                                 "\\",
                                 ";",
                                 ":",
                                 " ",
                                 "\r\n\r\n",
                                 "-"};
  switch (at(4)) {
    case 0:
      if (!body.empty()) body[at(body.size() - 1)] ^= static_cast<char>(1 + at(254));
      break;
    case 1:
      body.resize(at(body.size()));
      break;
    case 2:
      body.insert(at(body.size()), inserts[at(std::size(inserts) - 1)]);
      break;
    case 3: {
      const size_t from = at(body.size());
      const std::string slice = body.substr(from, at(200));
      if (body.size() < (1u << 20)) body.insert(at(body.size()), slice);
      break;
    }
    default: {
      const size_t from = at(body.size());
      body.erase(from, at(40));
    }
  }
}

TEST(MultipartTest, RandomMutationsNeverCrashOrLeaveTheBody) {
  const std::string bases[] = {
      field("bot_name", "strong one") + file_part("bot", "bot.py", tricky_content()) + close_line(),
      "preamble\r\n" + field("a\\\"b", "1") + file_part("bot", "", "") + close_line() + "epi",
      "--" + kB + "\r\nCONTENT-DISPOSITION: form-data; name=t;\r\n filename=\"x;y\"\r\n" +
          "Content-Type: text/plain\r\n\r\n--\r\n-" + kB + "\r\n" + close_line(),
      file_part("big", "big.bin", std::string(kChunk + 40, '\r')) + field("z", "") + close_line(),
  };
  std::mt19937 rng(20240611);
  BodyFile f;
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string body = bases[i % 50 == 0 ? 3 : i % 3];
    for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n) mutate(body, rng);
    f.set(body);
    std::vector<FormPart> parts;
    if (!parse(f, parts, kB, 8).empty()) {
      EXPECT_TRUE(parts.empty());
      continue;
    }
    ++accepted;
    uint64_t end = 0;
    for (const FormPart& part : parts) {
      ASSERT_GE(part.offset, end) << i;
      ASSERT_LE(part.offset + part.size, body.size()) << i;
      end = part.offset + part.size;
      EXPECT_EQ(content_of(f, part), body.substr(part.offset, part.size)) << i;
      EXPECT_FALSE(part.name.empty()) << i;
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_LT(accepted, 20000);
}

}  // namespace
}  // namespace allfives::referee::serve
