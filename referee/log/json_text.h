// Text for the files and terminals the referee writes by hand.
//
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

// Text read from a file (a bot's name in an index line, a match id) made safe to print on a
// terminal: every byte outside printable ASCII, and the backslash, as \xNN, so no newline or
// escape sequence in a file can forge lines or drive the terminal. Names the referee accepts
// (check_safe_name) pass unchanged.
inline std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace allfives::referee
