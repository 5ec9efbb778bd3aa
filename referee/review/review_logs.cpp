#include "review/review_logs.h"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <thread>

#include "log/log_reader.h"
#include "replay/ordered_pool.h"
#include "replay/verify.h"

namespace allfives::referee {

namespace {

// The seats `choice` names in a log with this header; empty when the bot asked for is not in it.
std::vector<int> seats_of(const SeatChoice& choice, const v1::LogHeader& header, int players) {
  std::vector<int> seats;
  for (int s = 0; s < players; ++s) {
    const bool by_bot = !choice.bot.empty() && s < header.bots_size() &&
                        header.bots(s).display_name() == choice.bot;
    const bool by_seat = choice.seat == s;
    const bool all = choice.bot.empty() && choice.seat < 0;
    if (by_bot || by_seat || all) seats.push_back(s);
  }
  return seats;
}

std::string marks_words(const ReviewFile& r) {
  std::array<int, 4> marks{};
  for (const v1::ReviewDecision& d : r.decisions) ++marks[static_cast<size_t>(d.mark() & 3)];
  return std::to_string(r.decisions.size()) + " decisions, " + std::to_string(marks[1]) +
         " inaccuracies, " + std::to_string(marks[2]) + " mistakes, " + std::to_string(marks[3]) +
         " blunders";
}

}  // namespace

ReviewSettings default_review_settings() {
  ReviewSettings s;
  s.eval.seed = 1;
  s.eval.worlds = 1000;
  s.eval.candidates = 8;  // the strong bot's opponent model (sample_bots/strong/README.md)
  return s;
}

LogReview review_log_file(const std::string& path, const SeatChoice& choice,
                          const ReviewSettings& settings, bool force,
                          const std::function<void(int, int)>& progress) {
  LogReview out;
  std::string text;
  if (!read_log_file(path, text, &out.error)) {
    out.error = path + ": " + out.error;
    return out;
  }
  Replay replay;
  LogError error;
  ReplayOptions options;
  options.deals_from_seed = false;  // the match the log tells; `referee verify` checks the seed
  if (!load_replay(text, path, replay, error, options)) {
    out.error = error.describe() + " (a review needs a log that follows the rules)";
    return out;
  }
  const std::vector<int> seats = seats_of(choice, replay.header, num_players(replay.config.format));
  if (seats.empty()) {
    out.ok = out.skipped = true;
    return out;
  }
  const std::string review_path = review_path_for(path);
  if (!force) {
    ReviewFile existing;
    if (read_review_file(review_path, existing, nullptr) &&
        review_is_current(existing.header, text, seats, settings)) {
      out.ok = out.reused = true;
      out.review = std::move(existing);
      return out;
    }
  }
  out.review = review_match(replay, text, seats, settings, progress);
  out.ok = write_review_file(review_path, out.review, &out.error);
  return out;
}

int review_logs(const ReviewRun& run, std::ostream& out, std::ostream& err) {
  std::vector<std::string> logs;
  for (const std::string& p : run.paths) {
    std::string why;
    if (!collect_logs(p, logs, &why)) {
      err << "referee review: " << why << "\n";
      return 2;
    }
  }
  const int jobs =
      run.jobs > 0 ? run.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<ReviewedLog> reviewed;
  int failed = 0, skipped = 0, reused = 0, done = 0;
  const auto start = std::chrono::steady_clock::now();
  {
    OrderedPool<std::string, LogReview> pool(
        jobs,
        [&run](const std::string& path) {
          return review_log_file(path, run.seats, run.settings, run.force);
        },
        [&](std::string& path, LogReview& r) {
          ++done;
          char head[48];
          std::snprintf(head, sizeof head, "[%d/%zu] ", done, logs.size());
          if (!r.ok) {
            ++failed;
            err << head << "FAIL " << r.error << "\n";
            return;
          }
          if (r.skipped) {
            ++skipped;
            return;
          }
          if (r.reused) ++reused;
          err << head << path << ": " << marks_words(r.review)
              << (r.reused ? " (its review was current)" : "") << "\n";
          reviewed.push_back(ReviewedLog{path, std::move(r.review)});
        });
    for (const std::string& log : logs) pool.push(log);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[200];
  std::snprintf(line, sizeof line,
                "Reviewed %zu logs in %.1f s (%d reused, %d without that seat or bot, %d failed); "
                "%d worlds a decision, seed %llu.\n",
                reviewed.size(), seconds, reused, skipped, failed, run.settings.eval.worlds,
                static_cast<unsigned long long>(run.settings.eval.seed));
  out << line;
  if (!run.seats.bot.empty() && reviewed.empty())
    err << "referee review: no log has a seat played by the bot " << run.seats.bot << "\n";
  out << "\n"
      << summary_text(summarize_reviews(reviewed, run.seats.bot, run.top),
                      !run.seats.bot.empty() || reviewed.size() == 1);
  return failed ? 1 : 0;
}

}  // namespace allfives::referee
