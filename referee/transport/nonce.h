// The nonces of the bot protocol (bot.proto, "Unasked answers"): a number per request that its
// answer carries back, which a bot cannot predict, so an answer sent ahead of its request cannot
// carry the right one and an old answer carries an old one.
#pragma once

#include <cstdint>
#include <string_view>

namespace allfives::referee {

// SipHash-2-4 (Aumasson and Bernstein) of one 64-bit word under the 128-bit key (k0, k1): a
// keyed pseudo-random function, so outputs for distinct words look independent to anyone
// without the key, however many of them they see.
uint64_t siphash24(uint64_t k0, uint64_t k1, uint64_t word);
// The same of any bytes (the opaque match ids bots are told, tournament/schedule.h).
uint64_t siphash24(uint64_t k0, uint64_t k1, std::string_view data);

// The nonces of one stream: SipHash of a counter under a key drawn from the kernel's random
// source (getrandom) when the source is made. One system call per stream, none per request;
// never 0 (the value of an answer that carries none).
class NonceSource {
 public:
  NonceSource();
  uint64_t next();

 private:
  uint64_t k0_ = 0, k1_ = 0;
  uint64_t counter_ = 0;
};

}  // namespace allfives::referee
