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
  switch (f) {
    case Format::kTwoPlayers:
      return "2p";
    case Format::kThreePlayers:
      return "3p";
    case Format::kFourPlayers:
      return "4p";
    case Format::kPartnerships:
      return "partners";
  }
  return "?";
}

std::string_view format_name(Format f) {
  switch (f) {
    case Format::kTwoPlayers:
      return "2 players";
    case Format::kThreePlayers:
      return "3 players";
    case Format::kFourPlayers:
      return "4 players";
    case Format::kPartnerships:
      return "partnerships";
  }
  return "?";
}

bool parse_format(std::string_view text, Format& out) {
  for (Format f : kAllFormats) {
    if (text == to_string(f)) {
      out = f;
      return true;
    }
  }
  if (text == "partnerships") {
    out = Format::kPartnerships;
    return true;
  }
  return false;
}

}  // namespace allfives
