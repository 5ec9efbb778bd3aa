#include "serve/review_jobs.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "log/json_text.h"
#include "review/review_logs.h"

namespace allfives::referee::serve {

namespace {

// Thrown from the progress callback to abandon a review when the server stops.
struct Cancelled {};

// Finished jobs' statuses kept for the pages that poll them; older ones are forgotten.
constexpr size_t kMaxRemembered = 256;

}  // namespace

struct ReviewJobs::State {
  mutable std::mutex mu;
  int max_running = 2;
  int running = 0;
  std::atomic<bool> stopping{false};
  std::map<std::string, ReviewJobStatus> jobs;  // by log path
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;  // set once the thread no longer takes mu
  };
  std::vector<Worker> workers;

  // Forgets finished jobs beyond the bound (call with mu held).
  void forget_locked() {
    for (auto it = jobs.begin(); it != jobs.end() && jobs.size() > kMaxRemembered;)
      it = it->second.state == "running" ? std::next(it) : jobs.erase(it);
  }

  void run(const std::string& path, int seat, const std::shared_ptr<std::atomic<bool>>& finished) {
    struct Finish {
      const std::shared_ptr<std::atomic<bool>>& flag;
      ~Finish() { *flag = true; }
    } finish{finished};
    LogReview r;
    try {
      r = review_log_file(path, SeatChoice{seat, ""}, default_review_settings(), false,
                          [this, &path](int done, int total) {
                            if (stopping) throw Cancelled{};
                            std::lock_guard lock(mu);
                            jobs[path].done = done;
                            jobs[path].total = total;
                          });
    } catch (const Cancelled&) {
      r.error = "the server stopped";
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    std::lock_guard lock(mu);
    ReviewJobStatus& s = jobs[path];
    s.state = r.ok ? "done" : "failed";
    s.error = r.ok ? "" : r.error;
    --running;
  }
};

std::string status_json(const ReviewJobStatus& s) {
  std::string out = "{\"state\":";
  append_json_string(out, s.state);
  out += ",\"done\":" + std::to_string(s.done) + ",\"total\":" + std::to_string(s.total) +
         ",\"error\":";
  append_json_string(out, s.error);
  return out + "}";
}

ReviewJobs::ReviewJobs(int max_running) : state_(std::make_shared<State>()) {
  state_->max_running = max_running;
}

ReviewJobs::~ReviewJobs() {
  state_->stopping = true;
  for (State::Worker& w : state_->workers) w.thread.join();
}

ReviewJobStatus ReviewJobs::start(const std::string& path, int seat) {
  std::lock_guard lock(state_->mu);
  auto it = state_->jobs.find(path);
  if (it != state_->jobs.end() && it->second.state == "running") return it->second;
  if (state_->running >= state_->max_running) {
    ReviewJobStatus refused;
    refused.state = "refused";
    refused.error = std::to_string(state_->running) +
                    " reviews are running, as many as this server computes at once; try again "
                    "when one has finished";
    return refused;
  }
  // Threads of finished jobs are joined here, so they never pile up.
  std::erase_if(state_->workers, [](State::Worker& w) {
    if (!*w.finished) return false;
    w.thread.join();
    return true;
  });
  ReviewJobStatus& s = state_->jobs[path];
  s = ReviewJobStatus{"running", 0, 0, ""};
  ++state_->running;
  state_->forget_locked();
  State* st = state_.get();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  state_->workers.push_back(
      {std::thread([st, path, seat, finished] { st->run(path, seat, finished); }), finished});
  return s;
}

ReviewJobStatus ReviewJobs::status(const std::string& path) const {
  std::lock_guard lock(state_->mu);
  const auto it = state_->jobs.find(path);
  return it == state_->jobs.end() ? ReviewJobStatus{} : it->second;
}

}  // namespace allfives::referee::serve
