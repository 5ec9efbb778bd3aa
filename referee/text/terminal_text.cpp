#include "text/terminal_text.h"

#include <cstdio>

namespace allfives::referee {

std::string terminal_text(std::string_view text, bool keep_breaks) {
  std::string out;
  out.reserve(text.size());
  const auto hex = [&out](unsigned char u) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    out += buf;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    const bool c1 = u == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (c1) {
      hex(u);
      hex(static_cast<unsigned char>(text[++i]));
    } else if ((u < 0x20 && !(keep_breaks && (u == '\n' || u == '\t'))) || u == 0x7f) {
      hex(u);
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace allfives::referee
