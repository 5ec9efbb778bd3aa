#include "allfives/core/types.h"

namespace allfives {

std::string to_string(Tile t) {
  return std::string{static_cast<char>('0' + t.hi()), '-', static_cast<char>('0' + t.lo())};
}

bool parse_tile(std::string_view text, Tile& out) {
  if (text.size() != 3 || text[1] != '-') return false;
  const int a = text[0] - '0', b = text[2] - '0';
  if (a < 0 || a > kMaxPips || b < 0 || b > kMaxPips) return false;
  out = Tile::of(a, b);
  return true;
}

std::string to_string(TileSet s) {
  std::string out = "[";
  for (Tile t : s) {
    if (out.size() > 1) out += ' ';
    out += to_string(t);
  }
  return out + "]";
}

std::string_view to_string(End e) {
  return e == End::kLeft ? "left" : "right";
}

std::string to_string(Play p) {
  return to_string(p.tile) + (p.end == End::kLeft ? "@L" : "@R");
}

std::string_view to_string(Format f) {
  return format_info(f).code;
}

std::string_view format_name(Format f) {
  return format_info(f).name;
}

bool parse_format(std::string_view text, Format& out) {
  for (const FormatInfo& f : kFormatTable) {
    if (text == f.code || text == f.name) {
      out = f.format;
      return true;
    }
  }
  return false;
}

}  // namespace allfives
