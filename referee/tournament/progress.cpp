#include "tournament/progress.h"

#include <unistd.h>

#include <algorithm>

namespace allfives::referee {

Progress::Progress(int total, int already, std::FILE* out)
    : out_(out),
      tty_(::isatty(::fileno(out)) != 0),
      total_(total),
      already_(already),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::tally(const v1::IndexEntry& e) {
  const auto& bots = e.match().seat_bots();
  const int sides = static_cast<int>(e.scores_size());
  // One credit per side: its first bot (partners are the same bot).
  for (int side = 0; side < sides && side < bots.size(); ++side) {
    const std::string& bot = bots[side];
    ++played_[bot];
    if (e.placements_size() > side && e.placements(side) == 1) {
      const auto firsts = std::count(e.placements().begin(), e.placements().end(), 1u);
      points_[bot] += 1.0 / static_cast<double>(firsts);
    }
  }
  if (e.fault_seat() >= 0) ++faults_;
}

void Progress::add_earlier(const v1::IndexEntry& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  tally(e);
}

std::string Progress::line(bool final) {
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = secs > 0 ? done_ / secs : 0;
  const int64_t left = expected_left_ >= 0 ? expected_left_ : total_ - already_ - done_;
  char buf[256];
  std::string leader = "-";
  double best = -1;
  for (const auto& [bot, pts] : points_)
    if (pts > best) {
      best = pts;
      leader = bot + " " + std::to_string(static_cast<int>(pts * 10) / 10) +
               (pts - static_cast<int>(pts) >= 0.5 ? ".5" : "") + "/" +
               std::to_string(played_[bot]);
    }
  const std::string count =
      expected_left_ >= 0
          ? std::to_string(already_ + done_) + " matches (at most " + std::to_string(total_) + ")"
          : std::to_string(already_ + done_) + "/" + std::to_string(total_) + " matches";
  const std::string eta =
      rate > 0 && left > 0 && !final
          ? std::to_string(static_cast<long long>(static_cast<double>(left) / rate + 0.5)) + "s"
          : "-";
  std::snprintf(buf, sizeof buf, "%s%s  %.2f/s  ETA %s  leader %s  faults %d",
                final ? "done: " : "", count.c_str(), rate, eta.c_str(), leader.c_str(), faults_);
  return status_.empty() ? std::string(buf) : std::string(buf) + "  " + status_;
}

void Progress::set_expected_left(int64_t matches) {
  std::lock_guard<std::mutex> lock(mutex_);
  expected_left_ = matches;
}

void Progress::set_status(std::string status) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = std::move(status);
}

void Progress::add(const v1::IndexEntry& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  tally(e);
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    std::fprintf(out_, "\r\033[K%s", line(false).c_str());
    std::fflush(out_);
  } else if (now - last_print_ >= std::chrono::seconds(5) || already_ + done_ == total_) {
    std::fprintf(out_, "%s\n", line(false).c_str());
    std::fflush(out_);
    last_print_ = now;
  }
  if (e.fault_seat() >= 0) {
    std::fprintf(out_, "%sfault in %s: seat %d (%s): %s\n", tty_ ? "\r\033[K" : "",
                 e.match().match_id().c_str(), e.fault_seat(),
                 e.match().seat_bots(e.fault_seat()).c_str(), e.fault_reason().c_str());
  }
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%s%s\n", tty_ ? "\r\033[K" : "", line(true).c_str());
  std::fflush(out_);
}

}  // namespace allfives::referee
