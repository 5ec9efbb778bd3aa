#include "review/review_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "allfives/core/rng.h"
#include "log/match_log.h"

namespace allfives::referee {

namespace {

constexpr std::string_view kLogSuffix = ".jsonl";
constexpr std::string_view kReviewSuffix = ".review.jsonl";

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

// What a decision record must be for a viewer to draw it without checks of its own.
std::string decision_problem(const v1::ReviewDecision& d, uint32_t previous_line) {
  const int n = d.options_size();
  if (n < 1 || n > kMaxReviewOptions)
    return "a decision has " + std::to_string(n) + " options; 1 to " +
           std::to_string(kMaxReviewOptions) + " expected";
  if (d.played_option() >= static_cast<uint32_t>(n) || d.best_option() >= static_cast<uint32_t>(n))
    return "played_option or best_option is not an index into its options";
  if (d.log_line() <= previous_line) return "decisions must come in log order";
  if (d.seat() > 3) return "seat " + std::to_string(d.seat()) + " is not a seat (0 to 3)";
  return "";
}

}  // namespace

std::string review_path_for(const std::string& log_path) {
  if (log_path.ends_with(kLogSuffix))
    return log_path.substr(0, log_path.size() - kLogSuffix.size()) + std::string(kReviewSuffix);
  return log_path + std::string(kReviewSuffix);
}

bool is_review_path(std::string_view path) {
  return path.ends_with(kReviewSuffix);
}

v1::ReviewMark mark_for(double loss, double loss_se, const MarkThresholds& t) {
  if (!(loss > 2 * loss_se)) return v1::REVIEW_MARK_NONE;
  if (loss >= t.blunder) return v1::REVIEW_MARK_BLUNDER;
  if (loss >= t.mistake) return v1::REVIEW_MARK_MISTAKE;
  if (loss >= t.inaccuracy) return v1::REVIEW_MARK_INACCURACY;
  return v1::REVIEW_MARK_NONE;
}

std::string_view mark_word(v1::ReviewMark mark) {
  switch (mark) {
    case v1::REVIEW_MARK_INACCURACY:
      return "inaccuracy";
    case v1::REVIEW_MARK_MISTAKE:
      return "mistake";
    case v1::REVIEW_MARK_BLUNDER:
      return "blunder";
    default:
      return "";
  }
}

std::string_view phase_word(v1::HandPhase phase) {
  switch (phase) {
    case v1::HAND_PHASE_OPENING:
      return "opening";
    case v1::HAND_PHASE_END:
      return "end";
    default:
      return "middle";
  }
}

std::string_view kind_words(v1::LossKind kind) {
  switch (kind) {
    case v1::LOSS_KIND_SCORE_MISSED:
      return "a score missed";
    case v1::LOSS_KIND_SCORE_HANDED:
      return "a score handed to the next seat";
    case v1::LOSS_KIND_WEIGHT_KEPT:
      return "weight kept";
    case v1::LOSS_KIND_OTHER:
      return "later in the hand";
    default:
      return "";
  }
}

std::string log_digest(std::string_view log_bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(log_bytes)));
  return hex;
}

bool review_matches_log(const v1::ReviewHeader& header, std::string_view log_bytes) {
  return header.log_bytes() == log_bytes.size() && header.log_digest() == log_digest(log_bytes);
}

bool write_review_file(const std::string& path, const ReviewFile& review, std::string* error) {
  std::string text;
  v1::ReviewRecord record;
  *record.mutable_header() = review.header;
  append_json_line(record, text);
  text += '\n';
  for (const v1::ReviewDecision& d : review.decisions) {
    *record.mutable_decision() = d;
    append_json_line(record, text);
    text += '\n';
  }
  std::string temp = path + ".XXXXXX";
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return fail(error, "cannot write " + path + ": " + std::strerror(errno));
  const bool written = write_fully(fd, text) && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
  const int saved = errno;
  if (close(fd) != 0 || !written || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int why = written ? errno : saved;
    unlink(temp.c_str());
    return fail(error, "cannot write " + path + ": " + std::strerror(why));
  }
  return true;
}

bool read_review_file(const std::string& path, ReviewFile& out, std::string* error) {
  out = ReviewFile{};
  const int fd = open_regular_file(path, O_RDONLY, error);
  if (fd < 0) return false;
  std::string text;
  bool too_big = false;
  const int err = read_chunks(fd, [&](std::string_view chunk) {
    if (text.size() + chunk.size() > kMaxReviewFileBytes) return !(too_big = true);
    text.append(chunk);
    return true;
  });
  close(fd);
  if (err != 0) return fail(error, path + ": cannot read: " + std::strerror(err));
  if (too_big)
    return fail(error, path + ": larger than " + std::to_string(kMaxReviewFileBytes >> 20) +
                           " MiB; not a review the referee wrote");
  size_t at = 0;
  int line = 0;
  uint32_t previous_line = 0;
  v1::ReviewRecord record;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string where = path + ":" + std::to_string(line) + ": ";
    if (end - at > kMaxReviewLineBytes)
      return fail(error, where + "the line is longer than " +
                             std::to_string(kMaxReviewLineBytes >> 10) + " KiB");
    std::string why;
    if (!from_json_line(text.substr(at, end - at), &record, &why))
      return fail(error, where + "not a review record: " + why);
    at = end + 1;
    if (line == 1) {
      if (!record.has_header()) return fail(error, where + "a review starts with its header");
      if (record.header().review_version() != kReviewVersion)
        return fail(error, where + "review_version " +
                               std::to_string(record.header().review_version()) + "; this " +
                               "referee reads version " + std::to_string(kReviewVersion) +
                               " (review the log again: referee review LOG)");
      out.header = std::move(*record.mutable_header());
      continue;
    }
    if (!record.has_decision()) return fail(error, where + "only decisions follow the header");
    if (std::string p = decision_problem(record.decision(), previous_line); !p.empty())
      return fail(error, where + p);
    previous_line = record.decision().log_line();
    out.decisions.push_back(std::move(*record.mutable_decision()));
  }
  if (line == 0) return fail(error, path + ": empty; a review starts with its header");
  return true;
}

}  // namespace allfives::referee
