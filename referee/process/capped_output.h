// A capped buffer for a bot's output: keeps the first and the last bytes of each window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace allfives::referee {

// Collects output between two take() calls, keeping at most `cap` bytes of it: the first
// cap - cap/2 bytes (where a flood started) and the last cap/2 bytes (how it ended, e.g. a crash
// message). take() puts "\n[... N bytes dropped]\n" where the dropped middle was. Not
// thread-safe; BotProcess guards it with a mutex.
class CappedOutput {
 public:
  explicit CappedOutput(size_t cap) : head_cap_(cap - cap / 2), tail_cap_(cap / 2) {}

  void append(std::string_view data);
  // What a take() gives: the text kept (with the marker where the dropped middle was) and how
  // many bytes were dropped, counted by the capture (never read back from the text, which the
  // bot may have written to look like a marker).
  struct Taken {
    std::string text;
    uint64_t dropped = 0;
    size_t kept = 0;  // bytes of the bot's own in text (the marker aside)
  };
  // Everything kept since the last take(), and resets.
  Taken take();
  // The same, keeping at most `cap` bytes of the window (at most the buffer's own cap): its
  // first cap - cap/2 and its last cap/2 bytes, the rest counted as dropped. With cap 0 the
  // text is empty (no marker) and everything counts as dropped.
  Taken take(size_t cap);

  uint64_t dropped() const { return dropped_; }  // in the current window

  static std::string marker(uint64_t dropped);

 private:
  size_t head_cap_;
  size_t tail_cap_;
  std::string head_;
  std::string tail_;       // up to tail_cap_ bytes; once full, a ring starting at tail_start_
  size_t tail_start_ = 0;  // index of the oldest byte of tail_ (0 until the ring wraps)
  uint64_t dropped_ = 0;
};

}  // namespace allfives::referee
