// generate_rules OUT.json: writes the tables the JavaScript kit scores plays with, computed by
// the rules core itself (allfives/core/line.h), so the kit holds no copy of a rule: the tiles in
// the core's order, and the count and points of every play on every pair of open ends (and of
// every opening tile). sdk/js/CMakeLists.txt runs it at build time; allfives_bot/rules.js reads
// the file.
#include <cstdio>
#include <string>

#include "allfives/core/line.h"
#include "allfives/core/types.h"

namespace {

using namespace allfives;

template <typename F>
std::string table(F value) {
  std::string out = "[";
  bool first = true;
  for (int lv = 0; lv <= kMaxPips; ++lv)
    for (int ld = 0; ld < 2; ++ld)
      for (int rv = 0; rv <= kMaxPips; ++rv)
        for (int rd = 0; rd < 2; ++rd)
          for (int t = 0; t < kNumTiles; ++t)
            for (int e = 0; e < 2; ++e) {
              const LineEnd left{static_cast<uint8_t>(lv), ld == 1};
              const LineEnd right{static_cast<uint8_t>(rv), rd == 1};
              const Play play{Tile::from_index(t), e == 0 ? End::kLeft : End::kRight};
              const bool fits = play.tile.has(e == 0 ? lv : rv);
              if (!first) out += ',';
              first = false;
              out += std::to_string(fits ? value(left, right, play) : -1);
            }
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generate_rules OUT.json\n");
    return 2;
  }
  std::string tiles = "[", opening_count = "[", opening_points = "[";
  for (int t = 0; t < kNumTiles; ++t) {
    const Tile tile = Tile::from_index(t);
    Line line;
    line.place(tile, End::kLeft, 0);
    if (t > 0) {
      tiles += ',';
      opening_count += ',';
      opening_points += ',';
    }
    tiles += '[';
    tiles += std::to_string(tile.hi());
    tiles += ',';
    tiles += std::to_string(tile.lo());
    tiles += ']';
    opening_count += std::to_string(line.count());
    opening_points += std::to_string(points_after(Line{}, Play{tile, End::kLeft}));
  }
  const std::string count =
      table([](LineEnd l, LineEnd r, Play p) { return count_after(l, r, p); });
  const std::string points =
      table([](LineEnd l, LineEnd r, Play p) { return points_for_count(count_after(l, r, p)); });
  FILE* f = std::fopen(argv[1], "w");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(
      f,
      "{\"generated_by\": \"sdk/js/generate_rules.cpp from the rules core; do not edit\",\n"
      " \"rules_version\": \"%s\",\n"
      " \"layout\": \"tiles[i] = [high, low] in the core's order; opening_*[i] for tile i "
      "alone on the line; count_after and points_after at index "
      "((((left.value * 2 + left.is_double) * 7 + right.value) * 2 + "
      "right.is_double) * 28 + tile) * 2 + end (0 left, 1 right), -1 where the tile does "
      "not fit that end\",\n"
      " \"tiles\": %s],\n \"opening_count\": %s],\n \"opening_points\": %s],\n"
      " \"count_after\": %s,\n \"points_after\": %s}\n",
      kRulesVersion, tiles.c_str(), opening_count.c_str(), opening_points.c_str(), count.c_str(),
      points.c_str());
  return std::fclose(f) == 0 ? 0 : 1;
}
