// core_transcript FORMAT FIRST_SEED LAST_SEED: plays one match per seed with the C++ rules core,
// every seat choosing uniformly among its legal plays with SplitMix64(seed ^ 0x5eed), and
// prints every event, one line each. tests/python/test_core.py plays the same matches through
// the Python binding and must print exactly the same text.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "allfives/core/rng.h"
#include "allfives/core/state.h"

namespace {

using namespace allfives;

std::string tiles(TileSet s) {
  std::string out;
  for (Tile t : s) {
    if (!out.empty()) out += ',';
    out += to_string(t);
  }
  return out;
}

void print(const Event& e) {
  std::string play = "-";
  if (e.kind == EventKind::kPlay) {
    play = to_string(e.play.tile);
    play += e.play.end == End::kLeft ? 'L' : 'R';
  }
  std::string open = "-";
  if (e.kind == EventKind::kHandStart &&
      static_cast<OpenRule>(e.reason) != OpenRule::kWinnerChooses)
    open = to_string(e.open_with);
  std::string hands, values;
  for (int s = 0; s < kMaxPlayers; ++s) {
    if (s) {
      hands += '|';
      values += ',';
    }
    hands += tiles(e.hands[s]);
    values += std::to_string(e.values[s]);
  }
  std::printf("%s h=%d s=%d side=%d play=%s c=%d p=%d t=%s r=%d o=%s hands=%s v=%s\n",
              std::string(to_string(e.kind)).c_str(), e.hand_index, e.seat, e.side, play.c_str(),
              e.count, e.points, tiles(e.tiles).c_str(), e.reason, open.c_str(), hands.c_str(),
              values.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Format format;
  if (argc != 4 || !parse_format(argv[1], format)) {
    std::fprintf(stderr, "usage: core_transcript 2p|3p|4p|partners FIRST_SEED LAST_SEED\n");
    return 2;
  }
  const uint64_t first = std::strtoull(argv[2], nullptr, 10),
                 last = std::strtoull(argv[3], nullptr, 10);
  for (uint64_t seed = first; seed <= last; ++seed) {
    std::printf("match %s seed %llu\n", argv[1], static_cast<unsigned long long>(seed));
    EventList events;
    State s = State::new_match(Config::standard(format), seed, &events);
    SplitMix64 rng(seed ^ 0x5eed);
    for (;;) {
      for (const Event& e : events) print(e);
      if (s.is_terminal()) break;
      const PlayList legal = s.legal_plays();
      events.clear();
      s.apply(legal[static_cast<int>(rng.below(static_cast<uint32_t>(legal.size())))], &events);
    }
    std::printf("end scores=%d,%d winner=%d\n", s.score(0), s.score(1), s.outcome().winner_side);
  }
  return 0;
}
