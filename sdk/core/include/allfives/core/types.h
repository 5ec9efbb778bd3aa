// Small value types of the All Fives rules core: tiles, tile sets, ends, plays, formats.
//
// Everything here is a few bytes, trivially copyable and allocation-free, so a whole game
// state copies with one memcpy (see state.h). The rule book is docs/RULES.md.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace allfives {

// The rules this core plays, as MatchStart.rules_version and the log header state them:
// docs/RULES.md as of this version (two open ends, no spinner, targets 250/200, a 200-hand
// safety valve). The referee, both SDKs and the log checker read it from here.
inline constexpr const char* kRulesVersion = "allfives-1";

inline constexpr int kNumTiles = 28;
inline constexpr int kMaxPips = 6;
inline constexpr int kMaxPlayers = 4;

namespace detail {
// Tile index -> low / high half, and value -> tiles of that suit, built at compile time.
constexpr std::array<uint8_t, kNumTiles> make_halves(bool high) {
  std::array<uint8_t, kNumTiles> t{};
  int i = 0;
  for (int a = 0; a <= kMaxPips; ++a)
    for (int b = a; b <= kMaxPips; ++b) t[i++] = static_cast<uint8_t>(high ? b : a);
  return t;
}
inline constexpr std::array<uint8_t, kNumTiles> kLo = make_halves(false);
inline constexpr std::array<uint8_t, kNumTiles> kHi = make_halves(true);
constexpr std::array<uint32_t, kMaxPips + 1> make_suits() {
  std::array<uint32_t, kMaxPips + 1> s{};
  for (int i = 0; i < kNumTiles; ++i)
    for (int v = 0; v <= kMaxPips; ++v)
      if (kLo[i] == v || kHi[i] == v) s[v] |= 1u << i;
  return s;
}
inline constexpr std::array<uint32_t, kMaxPips + 1> kSuits = make_suits();
}  // namespace detail

// A tile of the double-six set, identified by an index 0..27 ordered (0-0, 0-1, ..., 0-6,
// 1-1, ..., 6-6). A plain index keeps hands as 28-bit masks and tables tiny.
class Tile {
 public:
  constexpr Tile() = default;
  static constexpr Tile from_index(int index) { return Tile(static_cast<uint8_t>(index)); }
  // Either half order is accepted: of(6, 4) == of(4, 6).
  static constexpr Tile of(int a, int b) {
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return Tile(static_cast<uint8_t>(lo * (2 * (kMaxPips + 1) - lo + 1) / 2 + (hi - lo)));
  }

  constexpr int index() const { return id_; }
  constexpr int lo() const { return kLo[id_]; }
  constexpr int hi() const { return kHi[id_]; }
  constexpr int pips() const { return kLo[id_] + kHi[id_]; }
  constexpr bool is_double() const { return kLo[id_] == kHi[id_]; }
  constexpr bool has(int value) const { return kLo[id_] == value || kHi[id_] == value; }
  // The half left open when this tile is laid against `value` (which it must have).
  constexpr int other(int value) const { return kLo[id_] == value ? kHi[id_] : kLo[id_]; }

  friend constexpr bool operator==(Tile, Tile) = default;
  friend constexpr auto operator<=>(Tile, Tile) = default;

 private:
  constexpr explicit Tile(uint8_t id) : id_(id) {}
  static constexpr const auto& kLo = detail::kLo;
  static constexpr const auto& kHi = detail::kHi;

  uint8_t id_ = 0;
};

// "6-4": the higher half first, as players say it.
std::string to_string(Tile t);
// Parses "a-b" (either order, 0..6). Returns false on anything else.
bool parse_tile(std::string_view text, Tile& out);

// A set of tiles as a 28-bit mask: hands, the boneyard and "tiles of a suit" are all sets.
class TileSet {
 public:
  constexpr TileSet() = default;
  static constexpr TileSet from_bits(uint32_t bits) { return TileSet(bits & kAllBits); }
  static constexpr TileSet all() { return TileSet(kAllBits); }
  // Every tile that has `value` on one of its halves.
  static constexpr TileSet suit(int value) { return TileSet(kSuits[value]); }

  constexpr uint32_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const { return std::popcount(bits_); }
  constexpr bool contains(Tile t) const { return (bits_ >> t.index()) & 1u; }
  constexpr void add(Tile t) { bits_ |= 1u << t.index(); }
  constexpr void remove(Tile t) { bits_ &= ~(1u << t.index()); }
  constexpr int pips() const {
    int sum = 0;
    for (Tile t : *this) sum += t.pips();
    return sum;
  }

  constexpr TileSet operator&(TileSet o) const { return TileSet(bits_ & o.bits_); }
  constexpr TileSet operator|(TileSet o) const { return TileSet(bits_ | o.bits_); }
  constexpr TileSet operator-(TileSet o) const { return TileSet(bits_ & ~o.bits_); }
  constexpr TileSet& operator|=(TileSet o) {
    bits_ |= o.bits_;
    return *this;
  }
  friend constexpr bool operator==(TileSet, TileSet) = default;

  // Iterates tiles in increasing index order.
  class Iterator {
   public:
    constexpr explicit Iterator(uint32_t bits) : bits_(bits) {}
    constexpr Tile operator*() const { return Tile::from_index(std::countr_zero(bits_)); }
    constexpr Iterator& operator++() {
      bits_ &= bits_ - 1;
      return *this;
    }
    constexpr bool operator!=(const Iterator& o) const { return bits_ != o.bits_; }

   private:
    uint32_t bits_;
  };
  constexpr Iterator begin() const { return Iterator(bits_); }
  constexpr Iterator end() const { return Iterator(0); }

 private:
  constexpr explicit TileSet(uint32_t bits) : bits_(bits) {}
  static constexpr uint32_t kAllBits = (1u << kNumTiles) - 1;
  static constexpr const auto& kSuits = detail::kSuits;

  uint32_t bits_ = 0;
};

// "[6-6 5-1]" for messages and debugging.
std::string to_string(TileSet s);

// The two open ends of the line. The opening tile is laid with its low half on the left.
enum class End : uint8_t { kLeft = 0, kRight = 1 };
std::string_view to_string(End e);

// A decision: which tile, on which end. For the opening play the end is ignored.
struct Play {
  Tile tile;
  End end = End::kLeft;
  friend constexpr bool operator==(Play, Play) = default;
};
// "6-4@L" / "6-4@R".
std::string to_string(Play p);

// Who sits at the table. Partnerships are four players where seats 0+2 and 1+3 share a score.
enum class Format : uint8_t { kTwoPlayers, kThreePlayers, kFourPlayers, kPartnerships };

// Everything a format fixes, one row each (OpenSpiel's GameType): every other fact about a
// format in the project is read from this table.
struct FormatInfo {
  Format format;
  std::string_view code;  // "2p": the short name parse_format reads and to_string prints
  std::string_view name;  // "2 players": the format in words, for people
  int players;
  int sides;      // scores kept: a side is one player, or two partners (seat % 2)
  int hand_size;  // docs/RULES.md §3 "The deal"
  int target;     // docs/RULES.md §12 "Targets, and the end in the middle of a hand"
};
inline constexpr FormatInfo kFormatTable[] = {
    {Format::kTwoPlayers, "2p", "2 players", 2, 2, 7, 250},
    {Format::kThreePlayers, "3p", "3 players", 3, 3, 5, 200},
    {Format::kFourPlayers, "4p", "4 players", 4, 4, 5, 200},
    {Format::kPartnerships, "partners", "partnerships", 4, 2, 5, 250},
};
inline constexpr Format kAllFormats[] = {Format::kTwoPlayers, Format::kThreePlayers,
                                         Format::kFourPlayers, Format::kPartnerships};
constexpr const FormatInfo& format_info(Format f) {
  return kFormatTable[static_cast<size_t>(f)];
}
static_assert([] {
  for (size_t i = 0; i < std::size(kFormatTable); ++i)
    if (kFormatTable[i].format != kAllFormats[i]) return false;
  return true;
}());

// "2p", "3p", "4p", "partners".
std::string_view to_string(Format f);
// "2 players", "3 players", "4 players", "partnerships": the format in words, for people.
std::string_view format_name(Format f);
// Accepts a format's code or its name ("2p" or "2 players", "partners" or "partnerships").
bool parse_format(std::string_view text, Format& out);

constexpr int num_players(Format f) {
  return format_info(f).players;
}
constexpr int num_sides(Format f) {
  return format_info(f).sides;
}
constexpr int side_of(Format f, int seat) {
  return seat % num_sides(f);
}
// The partner's seat, or -1 without partnerships.
constexpr int partner_of(Format f, int seat) {
  return num_players(f) > num_sides(f) ? (seat + num_sides(f)) % num_players(f) : -1;
}
constexpr int hand_size(Format f) {
  return format_info(f).hand_size;
}
constexpr int standard_target(Format f) {
  return format_info(f).target;
}

// Scores live in 16 bits in the state, so a target (and the hand limit) stays well inside.
inline constexpr int kMaxTarget = 30000;
inline constexpr int kMaxHandLimit = 30000;
// The hand limit when none is given: the safety valve of docs/RULES.md §13.
inline constexpr int kDefaultMaxHands = 200;

// The immutable description of a match (OpenSpiel's "game"): a format and its limits.
struct Config {
  Format format = Format::kTwoPlayers;
  // Points a side needs to win; docs/RULES.md §12 fixes it per format.
  int target = standard_target(Format::kTwoPlayers);
  int max_hands = kDefaultMaxHands;

  static constexpr Config standard(Format f) {
    return Config{f, standard_target(f), kDefaultMaxHands};
  }
  friend constexpr bool operator==(const Config&, const Config&) = default;
};

// docs/RULES.md §11 "Rounding": remainders 1 and 2 round down, 3 and 4 round up.
constexpr int round5(int x) {
  return (x + 2) / 5 * 5;
}

}  // namespace allfives
