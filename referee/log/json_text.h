// A string as a JSON string literal, for the files the referee writes by hand (standings,
// the HTML replay's data). '<', '>' and '&' are escaped too, so no text from a log (a bot's
// name, a fault's reason) can close an HTML <script> element; other bytes pass through.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace allfives::referee {

inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

}  // namespace allfives::referee
