// valid_utf8: text from a bot made valid UTF-8 for the log, each bad byte kept as \xNN.
#include "text/utf8_text.h"

#include <gtest/gtest.h>

namespace allfives::referee {
namespace {

std::string escaped(std::string_view in, uint64_t expected_invalid) {
  uint64_t invalid = 99;
  std::string out = valid_utf8(in, &invalid);
  EXPECT_EQ(invalid, expected_invalid) << out;
  return out;
}

TEST(Utf8Text, ValidTextIsKeptAsItIs) {
  EXPECT_EQ(escaped("plain ASCII, a \\ backslash\n", 0), "plain ASCII, a \\ backslash\n");
  // Two, three and four bytes: é, €, 😀; the last code point, U+10FFFF; NUL is valid too.
  const std::string valid =
      "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf " + std::string(1, '\0');
  EXPECT_EQ(escaped(valid, 0), valid);
  EXPECT_EQ(escaped("", 0), "");
}

TEST(Utf8Text, EachBadByteIsEscapedAndCounted) {
  EXPECT_EQ(escaped("a\x80z", 1), "a\\x80z");         // a lone continuation byte
  EXPECT_EQ(escaped("a\xc3", 1), "a\\xc3");           // a sequence cut at the end
  EXPECT_EQ(escaped("\xc3z", 1), "\\xc3z");           // a lead byte without its continuation
  EXPECT_EQ(escaped("\xe2\x82z", 2), "\\xe2\\x82z");  // a three-byte sequence cut short
  EXPECT_EQ(escaped("\xff\xfe", 2), "\\xff\\xfe");    // never valid anywhere
  EXPECT_EQ(escaped("\xf5\x80\x80\x80", 4), "\\xf5\\x80\\x80\\x80");  // lead byte above U+10FFFF
}

TEST(Utf8Text, OverlongFormsSurrogatesAndCodePointsAboveTheMaximumAreInvalid) {
  EXPECT_EQ(escaped("\xc0\xaf", 2), "\\xc0\\xaf");                    // '/' in two bytes
  EXPECT_EQ(escaped("\xe0\x80\xaf", 3), "\\xe0\\x80\\xaf");           // '/' in three bytes
  EXPECT_EQ(escaped("\xf0\x80\x80\xaf", 4), "\\xf0\\x80\\x80\\xaf");  // '/' in four bytes
  EXPECT_EQ(escaped("\xed\xa0\x80", 3), "\\xed\\xa0\\x80");           // U+D800, a surrogate
  EXPECT_EQ(escaped("\xf4\x90\x80\x80", 4), "\\xf4\\x90\\x80\\x80");  // U+110000
}

TEST(Utf8Text, ValidTextAroundBadBytesIsKept) {
  EXPECT_EQ(escaped("\xc3\xa9\xff\xc3\xa9", 1), "\xc3\xa9\\xff\xc3\xa9");
  // The count may be left out.
  EXPECT_EQ(valid_utf8("\x80"), "\\x80");
}

}  // namespace
}  // namespace allfives::referee
