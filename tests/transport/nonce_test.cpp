// The nonces of protocol 3 (referee/transport/nonce.h): SipHash-2-4 against the reference
// implementation's published vector, and a source's nonces never 0 and never repeated.
#include "transport/nonce.h"

#include <gtest/gtest.h>

#include <set>

namespace allfives::referee {
namespace {

TEST(Nonce, SipHashMatchesTheReferenceVectorForAnEightByteMessage) {
  // The reference's key 00 01 .. 0f and message 00 01 .. 07 (little-endian words); its
  // vectors_sip64[8] is 62 24 93 9a 79 f5 f5 93.
  EXPECT_EQ(siphash24(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull, 0x0706050403020100ull),
            0x93f5f5799a932462ull);
}

TEST(Nonce, ASourceNeverRepeatsNorGivesZero) {
  NonceSource source;
  std::set<uint64_t> seen;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t n = source.next();
    EXPECT_NE(n, 0u);
    EXPECT_TRUE(seen.insert(n).second) << "repeated at " << i;
  }
}

TEST(Nonce, TwoSourcesDrawDifferentKeys) {
  // Keys come from getrandom: two streams' first nonces differ (equal with chance 2^-64).
  NonceSource a, b;
  EXPECT_NE(a.next(), b.next());
}

}  // namespace
}  // namespace allfives::referee
