#include "transport/nonce.h"

#include <sys/random.h>

#include <random>

namespace allfives::referee {
namespace {

constexpr uint64_t rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

struct State {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  // One 8-byte block: two compression rounds.
  void absorb(uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

State keyed(uint64_t k0, uint64_t k1) {
  return State{k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
               k1 ^ 0x7465646279746573ull};
}

uint64_t finish(State s) {
  s.v2 ^= 0xff;  // finalization: four rounds
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace

uint64_t siphash24(uint64_t k0, uint64_t k1, uint64_t word) {
  State s = keyed(k0, k1);
  s.absorb(word);        // the message: 8 bytes, little-endian
  s.absorb(8ull << 56);  // the last block: no bytes left, the length (8) in its top byte
  return finish(s);
}

uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view data) {
  State s = keyed(k0, k1);
  uint64_t m = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    m |= static_cast<uint64_t>(static_cast<unsigned char>(data[i])) << (8 * (i % 8));
    if (i % 8 == 7) {
      s.absorb(m);
      m = 0;
    }
  }
  s.absorb(m | static_cast<uint64_t>(data.size() & 0xff) << 56);  // the rest and the length
  return finish(s);
}

NonceSource::NonceSource() {
  uint64_t key[2] = {0, 0};
  if (::getrandom(key, sizeof key, 0) != static_cast<ssize_t>(sizeof key)) {
    // No getrandom (a kernel before 3.17): the C++ library's own source.
    std::random_device device;
    key[0] = (static_cast<uint64_t>(device()) << 32) ^ device();
    key[1] = (static_cast<uint64_t>(device()) << 32) ^ device();
  }
  k0_ = key[0];
  k1_ = key[1];
}

uint64_t NonceSource::next() {
  for (;;) {
    const uint64_t n = siphash24(k0_, k1_, counter_++);
    if (n != 0) return n;
  }
}

}  // namespace allfives::referee
