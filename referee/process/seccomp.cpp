#include "process/seccomp.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace allfives::referee {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
constexpr uint32_t kForeignBit = 0x40000000;  // __X32_SYSCALL_BIT
#elif defined(__aarch64__)
constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
constexpr uint32_t kForeignBit = 0;
#endif

// Numbers newer than some C libraries' headers; the same on every architecture.
constexpr uint32_t kFutexWaitv = 449;
constexpr uint32_t kCachestat = 451;
constexpr uint32_t kFutexWake2 = 454;
constexpr uint32_t kFutexWait2 = 455;
constexpr uint32_t kFutexRequeue2 = 456;
constexpr uint32_t kSetMemoryMerge = 67;  // PR_SET_MEMORY_MERGE

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kNoEffect = SECCOMP_RET_ERRNO | 0;  // the call returns 0 and does nothing
constexpr uint32_t fail(int error) {
  return SECCOMP_RET_ERRNO | static_cast<uint32_t>(error);
}

sock_filter load(uint32_t offset) {
  return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset);
}
sock_filter ret(uint32_t value) {
  return BPF_STMT(BPF_RET | BPF_K, value);
}
// If the accumulator equals `value`, skip `on_true` instructions, else `on_false`.
sock_filter jump_if(uint32_t value, uint8_t on_true, uint8_t on_false) {
  return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, on_true, on_false);
}
// The low 32 bits of argument i (little-endian on both architectures).
uint32_t arg(int i) {
  return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * static_cast<size_t>(i));
}

using Program = std::vector<sock_filter>;

// What one call gets: a body that returns on every path.
struct Rule {
  uint32_t nr;
  Program body;
};

// Argument i masked by `mask`: each listed value gets its answer, any other is allowed.
Program by_value(int i, uint32_t mask, const std::vector<std::pair<uint32_t, uint32_t>>& answers) {
  Program p = {load(arg(i))};
  if (mask != ~0u) p.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask));
  for (const auto& [value, answer] : answers) {
    p.push_back(jump_if(value, 0, 1));
    p.push_back(ret(answer));
  }
  p.push_back(ret(kAllow));
  return p;
}

// Argument i with any of `bits` set gets `answer`; without, it is allowed.
Program by_bits(int i, uint32_t bits, uint32_t answer) {
  return {load(arg(i)), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1), ret(answer), ret(kAllow)};
}

// socket(domain, type, ...): a Unix socket only of the stream type.
Program socket_body() {
  return {load(arg(0)),
          jump_if(AF_UNIX, 1, 0),
          ret(kAllow),
          load(arg(1)),
          BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),  // the type without NONBLOCK | CLOEXEC
          jump_if(SOCK_STREAM, 0, 1),
          ret(kAllow),
          ret(fail(EACCES))};
}

// futex(uaddr, op, ...): a private operation is allowed; a shared wait returns at once.
Program futex_body() {
  Program p = {load(arg(1)), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, FUTEX_PRIVATE_FLAG, 0, 1),
               ret(kAllow)};
  const Program waits = by_value(1, FUTEX_CMD_MASK & 0x7f,
                                 {{FUTEX_WAIT, fail(EAGAIN)},
                                  {FUTEX_WAIT_BITSET, fail(EAGAIN)},
                                  {FUTEX_WAIT_REQUEUE_PI, fail(EAGAIN)}});
  p.insert(p.end(), waits.begin() + 1, waits.end());  // the argument is loaded already
  return p;
}

std::vector<Rule> rules() {
  const uint32_t refuse = fail(EACCES);
  const uint32_t absent = fail(ENOSYS);
  std::vector<Rule> r = {
      {SYS_connect, {ret(refuse)}},
      {SYS_socket, socket_body()},
      {SYS_io_uring_setup, {ret(absent)}},
      {SYS_io_setup, {ret(absent)}},
      {SYS_flock, {ret(kNoEffect)}},
      {SYS_fcntl, by_value(1, ~0u,
                           {{F_SETLK, kNoEffect},
                            {F_SETLKW, kNoEffect},
                            {F_OFD_SETLK, kNoEffect},
                            {F_OFD_SETLKW, kNoEffect},
                            {F_SETLEASE, refuse},
                            {F_NOTIFY, refuse}})},
      {SYS_fadvise64,
       by_value(3, ~0u, {{POSIX_FADV_DONTNEED, kNoEffect}, {POSIX_FADV_NOREUSE, kNoEffect}})},
      {SYS_madvise,
       by_value(2, ~0u,
                {{MADV_COLD, kNoEffect}, {MADV_PAGEOUT, kNoEffect}, {MADV_MERGEABLE, kNoEffect}})},
      {SYS_prctl, by_value(0, ~0u, {{kSetMemoryMerge, fail(EINVAL)}})},
      {SYS_process_madvise, {ret(absent)}},
      {SYS_mincore, {ret(absent)}},
      {kCachestat, {ret(absent)}},
      {SYS_preadv2, by_bits(5, RWF_NOWAIT, fail(EOPNOTSUPP))},
      {SYS_pwritev2, by_bits(5, RWF_NOWAIT, fail(EOPNOTSUPP))},
      {SYS_inotify_init1, {ret(absent)}},
      {SYS_fanotify_init, {ret(absent)}},
      {SYS_futex, futex_body()},
      {kFutexWaitv, {ret(absent)}},
      {kFutexWake2, {ret(absent)}},
      {kFutexWait2, {ret(absent)}},
      {kFutexRequeue2, {ret(absent)}},
  };
#ifdef SYS_inotify_init
  r.push_back({SYS_inotify_init, {ret(absent)}});
#endif
  return r;
}

}  // namespace

std::string sandbox_seccomp_filter() {
#if defined(__x86_64__) || defined(__aarch64__)
  Program f = {
      load(offsetof(seccomp_data, arch)),
      jump_if(kArch, 1, 0),
      ret(fail(ENOSYS)),
  };
  if (kForeignBit != 0) {
    f.push_back(load(offsetof(seccomp_data, nr)));
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kForeignBit, 0, 1));
    f.push_back(ret(fail(ENOSYS)));
  }
  for (const Rule& rule : rules()) {
    f.push_back(load(offsetof(seccomp_data, nr)));
    f.push_back(jump_if(rule.nr, 0, static_cast<uint8_t>(rule.body.size())));
    f.insert(f.end(), rule.body.begin(), rule.body.end());
  }
  f.push_back(ret(kAllow));
  return std::string(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(sock_filter));
#else
  return "";
#endif
}

}  // namespace allfives::referee
