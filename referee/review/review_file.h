// A game review on disk (proto/allfives/v1/review.proto): NAME.review.jsonl beside the log
// NAME.jsonl, read back with limits, since a served folder may hold a file anyone wrote; the
// marks' thresholds and words. Computing a review is review/match_review.h's job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "allfives/v1/review.pb.h"

namespace allfives::referee {

inline constexpr uint32_t kReviewVersion = 1;
// Limits on hostile input: a real review is far below each (a match has at most a few
// thousand plays, each a line of about 2 KiB).
inline constexpr size_t kMaxReviewFileBytes = size_t{64} << 20;
inline constexpr size_t kMaxReviewLineBytes = size_t{64} << 10;
inline constexpr int kMaxReviewOptions = 16;

// The review beside a log: "m1.jsonl" -> "m1.review.jsonl" (any other name gains the suffix).
std::string review_path_for(const std::string& log_path);

// Whether a file's name is a review's ("NAME.review.jsonl"), which log readers pass over.
bool is_review_path(std::string_view path);

// The marks' thresholds, in expected points lost.
struct MarkThresholds {
  double inaccuracy = 2.5;
  double mistake = 5;
  double blunder = 10;
};
// The mark of a play that lost `loss` expected points with standard error `loss_se`: none
// unless the loss is more than twice its standard error, so noise never marks a play.
v1::ReviewMark mark_for(double loss, double loss_se, const MarkThresholds& t);
// "inaccuracy", "mistake", "blunder", "" for none.
std::string_view mark_word(v1::ReviewMark mark);
// "opening", "middle", "end".
std::string_view phase_word(v1::HandPhase phase);
// "a score missed", "a score handed to the next seat", "weight kept", "later in the hand".
std::string_view kind_words(v1::LossKind kind);

// The log's fingerprint a review records (ReviewHeader.log_digest): FNV-1a of its bytes.
std::string log_digest(std::string_view log_bytes);

struct ReviewFile {
  v1::ReviewHeader header;
  std::vector<v1::ReviewDecision> decisions;  // in log order
};

// Writes `review` to `path` whole or not at all (a temporary file beside it, synced, then
// renamed over it). False with "cannot write PATH: why" otherwise.
bool write_review_file(const std::string& path, const ReviewFile& review, std::string* error);
// Reads a review, checking it as untrusted input: a header first, its version, decisions in
// log order whose option indexes are in range. False with "PATH:LINE: why" otherwise.
bool read_review_file(const std::string& path, ReviewFile& out, std::string* error);
// Whether `review` was made from exactly these log bytes.
bool review_matches_log(const v1::ReviewHeader& header, std::string_view log_bytes);

}  // namespace allfives::referee
