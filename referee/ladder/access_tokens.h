// A ladder user's access token: 128 random bits shown once as 32 hex digits, stored only as a
// salted, stretched hash (PBKDF2-HMAC-SHA256 from Debian's libnettle, which libarchive already
// loads), and compared in constant time.
#pragma once

#include <string>
#include <string_view>

namespace allfives::referee {

// A fresh token (getrandom). Throws std::runtime_error if the kernel gives no randomness.
std::string make_token();

// What the database keeps of a token.
struct TokenHash {
  std::string salt;  // 16 random bytes
  std::string hash;  // 32 bytes
};
TokenHash hash_token(std::string_view token);
// Whether `token` is the one `stored` was made from; the time taken does not depend on where
// the two hashes differ.
bool token_matches(std::string_view token, const TokenHash& stored);

}  // namespace allfives::referee
