#include "text/utf8_text.h"

namespace allfives::referee {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0 if there is none.
size_t sequence_length(std::string_view s) {
  const auto c = static_cast<unsigned char>(s[0]);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;  // overlong below U+0800
    if (c == 0xed) hi = 0x9f;  // surrogates U+D800..U+DFFF
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;  // overlong below U+10000
    if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (0xc0, 0xc1) or 0xf5..0xff
  }
  if (s.size() < len) return 0;
  const auto second = static_cast<unsigned char>(s[1]);
  if (second < lo || second > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return len;
}

}  // namespace

std::string valid_utf8(std::string_view text, uint64_t* invalid_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  uint64_t invalid = 0;
  while (!text.empty()) {
    const size_t n = sequence_length(text);
    if (n > 0) {
      out.append(text.substr(0, n));
      text.remove_prefix(n);
      continue;
    }
    const auto c = static_cast<unsigned char>(text[0]);
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
    ++invalid;
    text.remove_prefix(1);
  }
  if (invalid_bytes) *invalid_bytes = invalid;
  return out;
}

}  // namespace allfives::referee
