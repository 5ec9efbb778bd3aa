#include "tournament/worker_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <iostream>

#include "log/match_log.h"
#include "process/bot_process.h"

namespace allfives::referee {
namespace {

struct Worker {
  pid_t pid = -1;
  int jobs = -1;          // our end of its job pipe; closed when it gets no more jobs
  int results = -1;       // our end of its result pipe; closed at EOF
  RecordReader reader;    // what it sent, as records
  bool busy = false;      // a job was handed out and its result has not come back
  bool lost_job = false;  // it closed its results with a job in hand
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

JobDealer::JobDealer(int workers, size_t job_count, size_t period)
    : own_(static_cast<size_t>(std::max(workers, 1))),
      lane_of_thief_(own_.size()),
      scan_(job_count),
      left_(job_count),
      workers_(own_.size()),
      period_(period == 0 ? own_.size() : period) {
  for (size_t w = 0; w < workers_; ++w) own_[w] = w;
}

bool JobDealer::stolen(size_t j) const {
  const auto it = stolen_from_.find(j % period_);
  return it != stolen_from_.end() && j >= it->second;
}

std::optional<size_t> JobDealer::next(int worker) {
  size_t& own = own_[static_cast<size_t>(worker)];
  for (; own < scan_; own += workers_) {
    if (stolen(own)) continue;
    --left_;
    const size_t j = own;
    own += workers_;
    return j;
  }
  return left_ < kMinStolen ? std::nullopt : steal(worker);
}

std::optional<size_t> JobDealer::steal(int worker) {
  std::optional<size_t>& lane = lane_of_thief_[static_cast<size_t>(worker)];
  // The job before the last one stolen in its lane, if its owner has not reached it.
  if (lane) {
    size_t& from = stolen_from_[*lane];
    if (from >= period_ && !dealt(from - period_)) {
      from -= period_;
      --left_;
      return from;
    }
  }
  // Else the last job not dealt, and its lane from there on.
  for (; scan_ > 0; --scan_) {
    const size_t j = scan_ - 1;
    if (dealt(j)) continue;
    lane = j % period_;
    stolen_from_[*lane] = j;
    --left_;
    return j;
  }
  return std::nullopt;
}

bool write_record(int fd, std::string_view bytes) {
  if (bytes.size() > kMaxRecordBytes) return false;
  const auto n = static_cast<uint32_t>(bytes.size());
  std::string framed(4, '\0');
  for (int i = 0; i < 4; ++i)
    framed[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  framed.append(bytes);
  return write_fully(fd, framed);
}

bool RecordReader::next(std::string* record) {
  if (!error_.empty() || pending() < 4) return false;
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= static_cast<uint32_t>(static_cast<unsigned char>(buffer_[start_ + static_cast<size_t>(i)]))
         << (8 * i);
  if (n > kMaxRecordBytes) {
    error_ = "a record of " + std::to_string(n) + " bytes, over the cap of " +
             std::to_string(kMaxRecordBytes) + " (a corrupt stream)";
    return false;
  }
  if (pending() - 4 < n) return false;
  record->assign(buffer_, start_ + 4, n);
  start_ += 4 + n;
  // What was read is dropped once it is most of the buffer, so a long stream stays small.
  if (start_ > buffer_.size() / 2) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  return true;
}

namespace {

// The parent's side of run_workers: the workers, the jobs handed out, their results read.
class Workers {
 public:
  Workers(int workers, size_t job_count, size_t lane_period,
          const std::function<std::optional<std::string>(size_t)>& job,
          const std::function<bool(const std::string&)>& on_result, const std::atomic<bool>& stop)
      : ws_(static_cast<size_t>(workers)),
        dealer_(workers, job_count, lane_period),
        job_(job),
        on_result_(on_result),
        stop_(stop) {}

  // Forks every worker (stops at the first that cannot be started: the run fails), then hands
  // each its first job.
  void start(const WorkerMain& work);
  // Reads what the workers send until every one has closed its results.
  void serve();
  // Waits for every worker to exit; what went wrong, if anything.
  WorkerOutcome reap();

 private:
  void fail(std::string why) {
    if (outcome_.ok) outcome_.error = std::move(why);
    outcome_.ok = false;
  }
  bool fork_worker(size_t w, const WorkerMain& work);
  void give(Worker& w);
  void forward_stop();
  void read_from(Worker& w);
  void ended(Worker& w);

  std::vector<Worker> ws_;
  JobDealer dealer_;
  const std::function<std::optional<std::string>(size_t)>& job_;
  const std::function<bool(const std::string&)>& on_result_;
  const std::atomic<bool>& stop_;
  WorkerOutcome outcome_;
  bool handing_out_ = false;
  bool forwarded_ = false;
};

bool Workers::fork_worker(size_t w, const WorkerMain& work) {
  const pid_t parent = ::getpid();
  int job_pipe[2], result_pipe[2];
  if (::pipe2(job_pipe, O_CLOEXEC) != 0) {
    fail("cannot create a pipe for a worker process");
    return false;
  }
  if (::pipe2(result_pipe, O_CLOEXEC) != 0) {
    ::close(job_pipe[0]);
    ::close(job_pipe[1]);
    fail("cannot create a pipe for a worker process");
    return false;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {job_pipe[0], job_pipe[1], result_pipe[0], result_pipe[1]}) ::close(fd);
    fail("cannot start a worker process");
    return false;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    // The pipes of earlier workers: kept open here, they would hide those workers' EOF.
    for (size_t k = 0; k < w; ++k) {
      close_fd(ws_[k].jobs);
      close_fd(ws_[k].results);
    }
    ::close(job_pipe[1]);
    ::close(result_pipe[0]);
    const int code = work(static_cast<int>(w), job_pipe[0], result_pipe[1]);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    ::_exit(code);  // not exit(): the parent's atexit handlers and statics are not ours
  }
  ::close(job_pipe[0]);
  ::close(result_pipe[1]);
  ws_[w].pid = pid;
  ws_[w].jobs = job_pipe[1];
  ws_[w].results = result_pipe[0];
  return true;
}

void Workers::start(const WorkerMain& work) {
  // Buffered output would otherwise be written twice, by the parent and by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  for (size_t w = 0; w < ws_.size(); ++w)
    if (!fork_worker(w, work)) break;
  handing_out_ = outcome_.ok;
  for (Worker& w : ws_)
    if (w.pid > 0) give(w);
}

void Workers::give(Worker& w) {
  while (handing_out_ && !stop_.load() && w.jobs >= 0) {
    const std::optional<size_t> next = dealer_.next(static_cast<int>(&w - ws_.data()));
    if (!next) break;
    const std::optional<std::string> line = job_(*next);
    if (!line) continue;  // skipped
    if (!write_fully(w.jobs, *line + "\n")) break;
    w.busy = true;
    return;
  }
  close_fd(w.jobs);  // no more jobs: the worker finishes and exits
}

void Workers::forward_stop() {
  // Ctrl-C on a terminal reaches the workers too; a SIGTERM to the referee alone does not.
  forwarded_ = true;
  handing_out_ = false;
  for (Worker& w : ws_) {
    if (w.pid > 0) ::kill(w.pid, SIGTERM);
    close_fd(w.jobs);
  }
}

void Workers::serve() {
  for (;;) {
    if (stop_.load() && !forwarded_) forward_stop();
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : ws_) {
      if (w.results < 0) continue;
      fds.push_back(pollfd{w.results, POLLIN, 0});
      owners.push_back(&w);
    }
    if (fds.empty()) return;
    // A slice, so a raised stop flag is seen even while no worker writes.
    if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
      fail("cannot wait for the worker processes");
      return;
    }
    for (size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(*owners[i]);
  }
}

// The worker closed its results (it exited, or died): a job in hand is lost, and so is a
// record it had begun.
void Workers::ended(Worker& w) {
  close_fd(w.results);
  close_fd(w.jobs);
  if (w.reader.pending() > 0)
    fail("worker process " + std::to_string(w.pid) + " ended in the middle of a message (" +
         std::to_string(w.reader.pending()) + " bytes of it received)");
  if (w.busy && !stop_.load()) {
    w.lost_job = true;
    handing_out_ = false;  // the others finish their match; the run then fails
  }
}

void Workers::read_from(Worker& w) {
  char chunk[1 << 16];
  const ssize_t got = ::read(w.results, chunk, sizeof chunk);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (got <= 0) return ended(w);
  w.reader.append(std::string_view(chunk, static_cast<size_t>(got)));
  for (std::string record; w.reader.next(&record);) {
    w.busy = false;
    if (!on_result_(record)) handing_out_ = false;
    give(w);
  }
  if (!w.reader.error().empty()) {
    fail("worker process " + std::to_string(w.pid) + " sent " + w.reader.error());
    handing_out_ = false;
    close_fd(w.results);  // nothing more of it can be read as records
    close_fd(w.jobs);
  }
}

WorkerOutcome Workers::reap() {
  for (Worker& w : ws_) {
    close_fd(w.jobs);
    close_fd(w.results);
    if (w.pid <= 0) continue;
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if ((!clean && !stop_.load()) || w.lost_job) {
      const ExitStatus how = exit_status_of(status);
      fail("worker process " + std::to_string(w.pid) + (how.signaled ? " was " : " ") +
           how.describe() + (w.lost_job ? " in the middle of a match" : ""));
    }
  }
  return outcome_;
}

}  // namespace

WorkerOutcome run_workers(int workers, size_t job_count, size_t lane_period,
                          const std::function<std::optional<std::string>(size_t)>& job,
                          const WorkerMain& work,
                          const std::function<bool(const std::string&)>& on_result,
                          const std::atomic<bool>& stop) {
  Workers ws(workers, job_count, lane_period, job, on_result, stop);
  ws.start(work);
  ws.serve();
  return ws.reap();
}

}  // namespace allfives::referee
