#include "process/seccomp.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
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

}  // namespace

std::string sandbox_seccomp_filter() {
#if defined(__x86_64__) || defined(__aarch64__)
  constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
  constexpr uint32_t kRefuse = SECCOMP_RET_ERRNO | EACCES;
  constexpr uint32_t kNoSuchCall = SECCOMP_RET_ERRNO | ENOSYS;
  // The low 32 bits of argument i (little-endian on both architectures).
  const auto arg = [](int i) {
    return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * static_cast<size_t>(i));
  };
  std::vector<sock_filter> f = {
      load(offsetof(seccomp_data, arch)),
      jump_if(kArch, 1, 0),
      ret(kNoSuchCall),
      load(offsetof(seccomp_data, nr)),
  };
  if (kForeignBit != 0) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kForeignBit, 0, 1));
    f.push_back(ret(kNoSuchCall));
  }
  const std::vector<sock_filter> calls = {
      jump_if(SYS_connect, 0, 1),
      ret(kRefuse),
      jump_if(SYS_io_uring_setup, 0, 1),
      ret(kNoSuchCall),
      jump_if(SYS_socket, 0, 1),
      BPF_STMT(BPF_JMP | BPF_JA, 1),  // to the socket checks below
      ret(kAllow),
      // socket(domain, type, ...): a Unix socket only of the stream type.
      load(arg(0)),
      jump_if(AF_UNIX, 1, 0),
      ret(kAllow),
      load(arg(1)),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),  // the type without SOCK_NONBLOCK | SOCK_CLOEXEC
      jump_if(SOCK_STREAM, 0, 1),
      ret(kAllow),
      ret(kRefuse),
  };
  f.insert(f.end(), calls.begin(), calls.end());
  return std::string(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(sock_filter));
#else
  return "";
#endif
}

}  // namespace allfives::referee
