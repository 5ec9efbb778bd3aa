// Starting and containing bot processes. The design is summarised in bot_process.h; the
// reasons for the less obvious choices are here.
//
// Why plain _Fork + execve and not Boost.Process (1.74): we need setpgid and PR_SET_PDEATHSIG in
// the child, a start-up handshake with the child, a second forked process (the guardian) that
// never execs, and exact control over which descriptors survive. Boost.Process v1 can do the
// first through on_exec_setup handlers but none of the rest, so it would add a layer without
// removing any of the code below. _Fork (glibc >= 2.34) rather than fork: it runs no
// pthread_atfork handlers (gRPC installs some), and the children only make async-signal-safe
// calls anyway, on data prepared before the fork, as required after forking a multi-threaded
// process.
//
// Why a guardian process per bot (forked, no exec) rather than re-executing the referee with a
// hidden argument: it needs no cooperation from whichever main() links this library (the
// referee, the tests, a future tournament runner), and it is ~25 lines of async-signal-safe
// code. Its cost is one small copy-on-write process per bot. Why one per bot rather than one per
// referee: it needs no protocol (the pipe's EOF is the only message), and a guardian that is
// killed takes only one bot's cover away.
//
// Why the guardian reads a pipe: the kernel closes a dead process's descriptors whatever killed
// it, so EOF on a pipe whose only write end is in the referee is a reliable "the referee is
// gone", independent of which thread forked. Every descriptor is O_CLOEXEC and every child
// closes all descriptors it does not need, so no bot, grandchild or other guardian holds a
// write end that would keep a guardian from seeing that EOF.
//
// This file starts a bot and answers for what it was given; the launch is prepared in
// bot_launch.cpp, its output kept in bot_output.cpp, its exit seen and its stop made in
// bot_stop.cpp, and the fork, the child and the guardian are spawn.cpp's.
#include "process/bot_process.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

#include "process/bot_process_impl.h"

namespace allfives::referee {

namespace {

using Clock = std::chrono::steady_clock;
using spawn::close_fd;
using spawn::errno_text;
using spawn::Prepared;
using spawn::Spawned;
using std::chrono::milliseconds;

}  // namespace

BotProcess::BotProcess() = default;

BotProcess::~BotProcess() {
  if (impl_) stop();
}

std::unique_ptr<BotProcess> BotProcess::start(const LaunchSpec& spec, std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  error->clear();

  std::optional<Prepared> prepared = prepare_launch(spec, error);
  if (!prepared) return nullptr;

  Spawned spawned;
  try {
    spawned = spawn::spawn_bot(*prepared);
  } catch (const std::system_error& e) {  // the launcher thread could not be created
    *error = std::string("cannot start the launcher thread: ") + e.what();
    return nullptr;
  }
  if (spawned.pid < 0) {
    *error = spawned.error;
    return nullptr;
  }

  std::unique_ptr<BotProcess> bot(new BotProcess());
  bot->pid_ = spawned.pid;
  bot->guardian_pid_ = spawned.guardian;
  bot->uid_ = spawned.uid != 0 ? spawned.uid : static_cast<uint32_t>(::getuid());
  bot->impl_ = std::make_unique<Impl>(spec.stderr_cap_bytes);
  Impl& impl = *bot->impl_;
  impl.limits = spec.limits;
  impl.cgroup = prepared->cgroup;
  if (impl.cgroup) impl.cgroup_folders = impl.cgroup->folders();
  impl.memory_by = prepared->memory_by;
  impl.processes_by = prepared->processes_by;
  if (impl.processes_by == LimitMechanism::kNone) impl.limits.processes = 0;  // not applied
  impl.sandboxed = spec.sandbox;
  impl.read_only = prepared->read_only;
  impl.guard_w = spawned.guard_w;
  impl.info_r = spawned.info_r;
  impl.out_r = spawned.out_r;
  // Non-blocking on our side only (the bot holds the other end, a separate open file).
  ::fcntl(impl.out_r, F_SETFL, ::fcntl(impl.out_r, F_GETFL) | O_NONBLOCK);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    *error = "cannot create pipes: " + errno_text(errno);
    bot->stop(milliseconds(0));  // kills and reaps everything started so far
    return nullptr;
  }
  impl.wake_r = wake[0];
  impl.wake_w = wake[1];
  try {
    impl.reader = std::thread([&impl] { impl.read_output(); });
  } catch (const std::system_error& e) {
    *error = std::string("cannot start the output reader thread: ") + e.what();
    bot->stop(milliseconds(0));
    return nullptr;
  }
  return bot;
}

int BotProcess::sandbox_pid(Clock::time_point deadline) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.info_mu);
  if (impl.info_r < 0) return impl.sandbox_pid;
  // bwrap writes {"child-pid": N, ...} once it has made the sandbox's first process, then
  // closes the pipe; if it fails before, the pipe just closes (EOF).
  std::string text;
  char buffer[512];
  while (text.size() < 4096) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd pfd{impl.info_r, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(impl.info_r, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.find('}') != std::string::npos) break;
  }
  close_fd(impl.info_r);
  const size_t key = text.find("\"child-pid\"");
  const size_t digits = key == std::string::npos ? key : text.find_first_of("0123456789", key);
  if (digits != std::string::npos) {
    const int pid = std::atoi(text.c_str() + digits);
    if (pid > 0) impl.sandbox_pid = pid;
  }
  return impl.sandbox_pid;
}

const std::vector<std::string>& BotProcess::read_only_dirs() const {
  return impl_->read_only;
}

const ResourceLimits& BotProcess::limits() const {
  return impl_->limits;
}

LimitMechanism BotProcess::memory_limit_by() const {
  return impl_->memory_by;
}

LimitMechanism BotProcess::processes_limit_by() const {
  return impl_->processes_by;
}

const std::vector<std::string>& BotProcess::cgroups() const {
  return impl_->cgroup_folders;
}

LimitMechanism BotProcess::freezer_by() const {
  return impl_->cgroup ? impl_->cgroup->freezer_by() : LimitMechanism::kNone;
}

LimitMechanism BotProcess::cpu_limit_by() const {
  return impl_->cgroup ? impl_->cgroup->cpu_by() : LimitMechanism::kNone;
}

std::optional<uint64_t> BotProcess::cpu_time_us() const {
  return impl_->cgroup ? impl_->cgroup->cpu_time_us() : std::nullopt;
}

bool BotProcess::set_frozen(bool frozen) {
  std::lock_guard lock(impl_->mu);
  if (impl_->stopped || !impl_->cgroup) return false;
  return impl_->cgroup->set_frozen(frozen);
}

LimitEvidence BotProcess::limit_evidence() const {
  LimitEvidence evidence;
  if (impl_->cgroup) {
    evidence.oom_kills = impl_->cgroup->oom_kills();
    evidence.process_limit_hits = impl_->cgroup->process_limit_hits();
  }
  return evidence;
}

std::string BotProcess::limit_reached_since(const LimitEvidence& before) const {
  LimitEvidence now = limit_evidence();
  now.oom_kills -= std::min(now.oom_kills, before.oom_kills);
  now.process_limit_hits -= std::min(now.process_limit_hits, before.process_limit_hits);
  return limit_reached(impl_->limits, now);
}

}  // namespace allfives::referee
