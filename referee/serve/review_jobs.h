// Game reviews (review/review_logs.h) computed in the background for the served pages: `referee
// serve`'s "review this match" and the human seat's "review my decisions". One job per log at
// a time and at most a few at once, since each takes a core for seconds to minutes; each job
// reports how far it is, which the pages poll.
#pragma once

#include <memory>
#include <string>

namespace allfives::referee::serve {

struct ReviewJobStatus {
  std::string state = "none";  // none, running, done, failed, refused
  int done = 0;                // decisions reviewed so far
  int total = 0;               // decisions to review (0 until the log is read)
  std::string error;           // failed or refused: why, in words for the page
};
// {"state":…,"done":D,"total":T,"error":…}
std::string status_json(const ReviewJobStatus& s);

class ReviewJobs {
 public:
  explicit ReviewJobs(int max_running = 2);
  // Stops the running reviews (at their next decision) and waits for them.
  ~ReviewJobs();
  ReviewJobs(const ReviewJobs&) = delete;
  ReviewJobs& operator=(const ReviewJobs&) = delete;

  // Starts reviewing the seats of the log at `path` (seat -1: every seat) with the default
  // settings, writing the review beside it. A log already being reviewed answers with that
  // job's status; beyond max_running jobs the answer is "refused" with the reason.
  ReviewJobStatus start(const std::string& path, int seat);
  // The last job's status for this log ("none" if there was none).
  ReviewJobStatus status(const std::string& path) const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace allfives::referee::serve
