// A bot's output: the reader thread that keeps what its process group writes to the pipe
// (capped, CappedOutput), and taking what it kept, with what the pipe holds at that moment.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <limits>
#include <memory>
#include <string_view>

#include "process/bot_process_impl.h"

namespace allfives::referee {

namespace {

using std::chrono::milliseconds;

// A bound on a wait that should be instantaneous: the reader seeing EOF after the group is dead.
constexpr milliseconds kReaderDrainTimeout{500};
// When the reader is told to stop (someone outside the group still holds the pipe), it reads at
// most this much more.
constexpr size_t kFinalDrainBytes = 1 << 20;

}  // namespace

void BotProcess::Impl::read_output() {
  // Left uninitialized: only the pages a read fills become resident, usually one (a bot that
  // writes little), where zeroing would make all 16 resident in each bot's reader thread.
  constexpr size_t kBufferBytes = 64 * 1024;
  const auto buffer = std::make_unique_for_overwrite<char[]>(kBufferBytes);
  auto keep = [&](ssize_t n) {
    std::lock_guard lock(out_mu);
    output.append(std::string_view(buffer.get(), static_cast<size_t>(n)));
  };
  for (;;) {
    pollfd fds[2] = {{out_r, POLLIN, 0}, {wake_r, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) {
      // Told to stop: the group is dead, but someone outside it still holds the pipe. Take
      // what is there now (bounded, in case that someone keeps writing) and quit.
      size_t total = 0;
      while (total < kFinalDrainBytes) {
        const ssize_t n = ::read(out_r, buffer.get(), kBufferBytes);
        if (n <= 0) break;
        keep(n);
        total += static_cast<size_t>(n);
      }
      break;
    }
    if (fds[0].revents != 0) {
      // Read and keep under out_mu, so that take_output()'s own drain cannot reorder output.
      ssize_t n;
      int err = 0;
      {
        std::lock_guard lock(out_mu);
        n = ::read(out_r, buffer.get(), kBufferBytes);
        if (n > 0) {
          output.append(std::string_view(buffer.get(), static_cast<size_t>(n)));
        } else {
          err = errno;
        }
      }
      if (n == 0 || (n < 0 && err != EINTR && err != EAGAIN)) {
        break;  // EOF: every process that had the pipe is gone
      }
    }
  }
  std::lock_guard lock(reader_mu);
  reader_done = true;
  reader_cv.notify_all();
}

void BotProcess::Impl::finish_reader() {
  if (!reader.joinable()) return;
  bool done;
  {
    std::unique_lock lock(reader_mu);
    done = reader_cv.wait_for(lock, kReaderDrainTimeout, [this] { return reader_done; });
  }
  if (!done) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_w, &byte, 1);
  }
  reader.join();
}

CappedOutput::Taken BotProcess::take_output() {
  return take_output(std::numeric_limits<size_t>::max());
}

CappedOutput::Taken BotProcess::take_output(size_t cap) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.out_mu);
  // What the pipe holds now, before the reader thread gets to it: on a busy machine that
  // thread may lag behind a match (or a decision) that has just ended, and its output belongs
  // there. The pipe holds at most its capacity (64 KiB) while the bot waits on it, so this
  // bound is only reached by a bot that keeps writing from another thread.
  char buffer[16 * 1024];
  size_t total = 0;
  while (impl.out_r >= 0 && total < kFinalDrainBytes) {
    const ssize_t n = ::read(impl.out_r, buffer, sizeof buffer);
    if (n <= 0) break;  // empty (EAGAIN: the descriptor is non-blocking), EOF or error
    impl.output.append(std::string_view(buffer, static_cast<size_t>(n)));
    total += static_cast<size_t>(n);
  }
  return impl.output.take(cap);
}

}  // namespace allfives::referee
