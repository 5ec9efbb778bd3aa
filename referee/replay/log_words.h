// The words of the log checker's messages ("the log says X; the rules say Y"): hostile log
// bytes made printable, tiles, ends, enum values, what a record or a core event is, and Diff,
// which collects the fields where the log and the rules disagree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "allfives/core/events.h"
#include "allfives/v1/log.pb.h"

namespace allfives::referee::log_words {

// Log bytes may be anything: keep messages printable (control and non-ASCII bytes as \xNN)
// and at most about `limit` bytes long.
std::string printable(std::string_view s, size_t limit = 300);

std::string num(int64_t v);
std::string tile_words(const v1::Tile& t);                                        // "6-4"
std::string tiles_words(const google::protobuf::RepeatedPtrField<v1::Tile>& ts);  // "[6-4 2-2]"
std::string end_words(End e);
std::string end_words(v1::End e);
std::string line_end_words(uint32_t value, bool is_double);  // "5 (double)"
// An enum value by its proto name, or its number if it has none.
std::string words(v1::MatchEndReason r);
std::string words(v1::HandEndKind k);
std::string words(v1::OpenRule k);
std::string words(v1::FaultKind k);
std::string words(v1::Format k);

// What a record is, in a few words: "a play of 6-4 by seat 1".
std::string what(const v1::LogRecord& r);
// What the core reported, in the same words.
std::string what(const Event& e);

// A list of scores: "[120 85]" (at most 8 shown).
std::string scores_words(const google::protobuf::RepeatedField<uint32_t>& v);
template <class V>
std::string scores_words(const V& v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += num(v[i]);
  }
  return "[" + out + "]";
}

// Collects the fields where the log and the rules disagree, and says so in one sentence.
class Diff {
 public:
  void num(std::string_view name, int64_t log, int64_t rules) {
    if (log != rules) add(name, log_words::num(log), log_words::num(rules));
  }
  void add(std::string_view name, const std::string& log, const std::string& rules) {
    log_ += (log_.empty() ? "" : ", ") + std::string(name) + (name.empty() ? "" : " ") + log;
    rules_ += (rules_.empty() ? "" : ", ") + std::string(name) + (name.empty() ? "" : " ") + rules;
  }
  bool empty() const { return log_.empty(); }
  std::string text() const { return "the log says " + log_ + "; the rules say " + rules_; }

 private:
  std::string log_, rules_;
};

}  // namespace allfives::referee::log_words
