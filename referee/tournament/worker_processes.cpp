#include "tournament/worker_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "log/match_log.h"
#include "process/bot_process.h"

namespace allfives::referee {
namespace {

struct Worker {
  pid_t pid = -1;
  int jobs = -1;     // our end of its job pipe; closed when it gets no more jobs
  int results = -1;  // our end of its result pipe; closed at EOF
  std::string buffer;
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

WorkerOutcome run_workers(int workers, size_t job_count, size_t lane_period,
                          const std::function<std::optional<std::string>(size_t)>& job,
                          const WorkerMain& work,
                          const std::function<bool(const std::string&)>& on_result,
                          const std::atomic<bool>& stop) {
  WorkerOutcome outcome;
  auto fail = [&](std::string why) {
    if (outcome.ok) outcome.error = std::move(why);
    outcome.ok = false;
  };
  std::vector<Worker> ws(static_cast<size_t>(workers));
  const pid_t parent = ::getpid();
  // Buffered output would otherwise be written twice, by the parent and by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  for (size_t w = 0; w < ws.size(); ++w) {
    int job_pipe[2], result_pipe[2];
    if (::pipe2(job_pipe, O_CLOEXEC) != 0) {
      fail("cannot create a pipe for a worker process");
      break;
    }
    if (::pipe2(result_pipe, O_CLOEXEC) != 0) {
      ::close(job_pipe[0]);
      ::close(job_pipe[1]);
      fail("cannot create a pipe for a worker process");
      break;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (int fd : {job_pipe[0], job_pipe[1], result_pipe[0], result_pipe[1]}) ::close(fd);
      fail("cannot start a worker process");
      break;
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
      // The pipes of earlier workers: kept open here, they would hide those workers' EOF.
      for (size_t k = 0; k < w; ++k) {
        close_fd(ws[k].jobs);
        close_fd(ws[k].results);
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
    ws[w].pid = pid;
    ws[w].jobs = job_pipe[1];
    ws[w].results = result_pipe[0];
  }

  JobDealer dealer(workers, job_count, lane_period);
  bool handing_out = outcome.ok;
  auto give = [&](Worker& w) {
    while (handing_out && !stop.load() && w.jobs >= 0) {
      const std::optional<size_t> next = dealer.next(static_cast<int>(&w - ws.data()));
      if (!next) break;
      const std::optional<std::string> line = job(*next);
      if (!line) continue;  // skipped
      if (!write_fully(w.jobs, *line + "\n")) break;
      w.busy = true;
      return;
    }
    close_fd(w.jobs);  // no more jobs: the worker finishes and exits
  };
  for (Worker& w : ws)
    if (w.pid > 0) give(w);

  bool forwarded = false;
  for (;;) {
    if (stop.load() && !forwarded) {
      // Ctrl-C on a terminal reaches the workers too; a SIGTERM to the referee alone does not.
      forwarded = true;
      handing_out = false;
      for (Worker& w : ws) {
        if (w.pid > 0) ::kill(w.pid, SIGTERM);
        close_fd(w.jobs);
      }
    }
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : ws) {
      if (w.results < 0) continue;
      fds.push_back(pollfd{w.results, POLLIN, 0});
      owners.push_back(&w);
    }
    if (fds.empty()) break;
    // A slice, so a raised stop flag is seen even while no worker writes.
    if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
      fail("cannot wait for the worker processes");
      break;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = *owners[i];
      char chunk[1 << 16];
      const ssize_t got = ::read(w.results, chunk, sizeof chunk);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        close_fd(w.results);
        close_fd(w.jobs);
        if (w.busy && !stop.load()) {
          w.lost_job = true;
          handing_out = false;  // the others finish their match; the run then fails
        }
        continue;
      }
      w.buffer.append(chunk, static_cast<size_t>(got));
      for (size_t nl; (nl = w.buffer.find('\n')) != std::string::npos;) {
        const std::string line = w.buffer.substr(0, nl);
        w.buffer.erase(0, nl + 1);
        w.busy = false;
        if (!on_result(line)) handing_out = false;
        give(w);
      }
    }
  }

  for (Worker& w : ws) {
    close_fd(w.jobs);
    close_fd(w.results);
    if (w.pid <= 0) continue;
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if ((!clean && !stop.load()) || w.lost_job) {
      const ExitStatus how = exit_status_of(status);
      fail("worker process " + std::to_string(w.pid) + (how.signaled ? " was " : " ") +
           how.describe() + (w.lost_job ? " in the middle of a match" : ""));
    }
  }
  return outcome;
}

}  // namespace allfives::referee
