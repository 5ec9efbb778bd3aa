#include "bots/bot_spec.h"

#include <filesystem>

namespace allfives::referee {

std::string BotSpec::describe() const {
  if (!started()) return address;
  std::string out;
  for (const std::string& a : command) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t\"'") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

namespace {

bool looks_like_address(const std::string& s) {
  if (s.rfind("unix:", 0) == 0) return s.size() > 5;
  if (s.find_first_of(" \t/") != std::string::npos) return false;
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  return s.find_first_not_of("0123456789", colon + 1) == std::string::npos;
}

bool split_command(const std::string& s, std::vector<std::string>& out, std::string* error) {
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) {
    if (error) *error = std::string("unclosed ") + quote + " in '" + s + "'";
    return false;
  }
  if (in_word) out.push_back(cur);
  return true;
}

// Whether `text` names an existing file as it is (from `base` if relative).
bool names_a_file(const std::string& text, const std::string& base) {
  std::error_code ec;
  const std::filesystem::path p(text);
  return std::filesystem::is_regular_file(p.is_absolute() || base.empty() ? p : base / p, ec);
}

}  // namespace

bool parse_bot_spec(const std::string& text, BotSpec& out, std::string* error,
                    const std::string& base) {
  BotSpec spec;
  std::string rest = text;
  const auto eq = text.find('=');
  const auto space = text.find_first_of(" \t");
  if (eq != std::string::npos && (space == std::string::npos || eq < space) && eq > 0) {
    spec.display_name = text.substr(0, eq);
    spec.named = true;
    rest = text.substr(eq + 1);
  }
  if (rest.find_first_not_of(" \t") == std::string::npos) {
    if (error) *error = "empty bot: expected [NAME=]COMMAND or [NAME=]ADDRESS, got '" + text + "'";
    return false;
  }
  if (looks_like_address(rest)) {
    // host:port: the port must be one (unix:PATH has none).
    if (rest.rfind("unix:", 0) != 0) {
      const std::string port = rest.substr(rest.rfind(':') + 1);
      if (port.size() > 5 || std::stoi(port) < 1 || std::stoi(port) > 65535) {
        if (error) *error = "the port of address '" + rest + "' must be 1..65535";
        return false;
      }
    }
    spec.address = rest;
    if (spec.display_name.empty()) spec.display_name = rest;
  } else if (rest.find_first_of(" \t") != std::string::npos && names_a_file(rest, base)) {
    spec.command = {rest};
    if (spec.display_name.empty()) spec.display_name = rest.substr(rest.find_last_of('/') + 1);
  } else {
    if (!split_command(rest, spec.command, error)) return false;
    if (spec.display_name.empty()) {
      const std::string& prog = spec.command[0];
      spec.display_name = prog.substr(prog.find_last_of('/') + 1);
    }
  }
  out = spec;
  return true;
}

}  // namespace allfives::referee
