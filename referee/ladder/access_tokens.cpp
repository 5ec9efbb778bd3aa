#include "ladder/access_tokens.h"

#include <nettle/memops.h>
#include <nettle/pbkdf2.h>
#include <sys/random.h>

#include <stdexcept>

namespace allfives::referee {
namespace {

// Stretching makes each guess cost, should the database leak; a token is 128 random bits
// anyway, so this guards only against reuse of a weaker secret, and stays a few milliseconds.
constexpr unsigned kIterations = 20'000;
constexpr size_t kTokenBytes = 16, kSaltBytes = 16, kHashBytes = 32;

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0) throw std::runtime_error("getrandom failed: no randomness for a token");
    got += static_cast<size_t>(r);
  }
  return out;
}

std::string derive(std::string_view token, std::string_view salt) {
  std::string out(kHashBytes, '\0');
  pbkdf2_hmac_sha256(token.size(), reinterpret_cast<const uint8_t*>(token.data()), kIterations,
                     salt.size(), reinterpret_cast<const uint8_t*>(salt.data()), kHashBytes,
                     reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

}  // namespace

std::string make_token() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : random_bytes(kTokenBytes)) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

TokenHash hash_token(std::string_view token) {
  TokenHash t;
  t.salt = random_bytes(kSaltBytes);
  t.hash = derive(token, t.salt);
  return t;
}

bool token_matches(std::string_view token, const TokenHash& stored) {
  if (stored.hash.size() != kHashBytes) return false;
  const std::string h = derive(token, stored.salt);
  return memeql_sec(h.data(), stored.hash.data(), kHashBytes) != 0;
}

}  // namespace allfives::referee
