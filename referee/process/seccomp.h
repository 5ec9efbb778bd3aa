// The system-call filter of every sandboxed bot (bwrap --seccomp): the calls that would reach
// outside the sandbox through a file it may read, or through kernel state that every process
// reading the same file shares.
//
// Reaching out. A bound folder may hold a Unix socket of the host (a service's socket beside
// the bot's program, an agent's in a folder given to it). The mount is read-only, but
// connecting to a socket is not writing to the file system: the bot could talk to that
// service. So a sandboxed bot may not connect() at all (its gRPC server only listens; nothing
// else in the sandbox could answer but its own processes, which can use pipes and
// socketpair()), nor make a Unix datagram or seqpacket socket (sendto() names its peer by path
// without connecting), nor use io_uring (which connects without the connect call). The bot's
// own listening socket (a Unix stream socket: bind, listen, accept) is untouched.
//
// Talking to a partner. Two sandboxes read the same files under /usr (and the same bound
// folders), and the kernel keeps state per file that one can set and the other read while the
// first is frozen: locks, pages in the page cache, watches, futex waiters. Partners (two
// instances of one bot) could spell their hands into it. So, for every sandboxed bot:
//   - flock() and the fcntl() lock commands succeed without locking (a bot's own files, in its
//     own /tmp, need no locks shared with anyone); leases and directory notices are refused;
//   - advice that drops or ages pages of a file (fadvise DONTNEED/NOREUSE, madvise COLD/
//     PAGEOUT) succeeds without effect, and page merging (KSM) is never turned on;
//   - nothing may ask whether a page is cached: mincore(), cachestat(), reads with
//     RWF_NOWAIT, process_madvise() and Linux AIO are refused;
//   - inotify and fanotify are refused (a watch sees the other sandbox open its files);
//   - a futex wait on a shared key (FUTEX_PRIVATE_FLAG not set: a file mapping's word is shared
//     by every process that maps the file) returns at once with EAGAIN, as a wait whose word
//     changed does, which every futex user must expect; private waits are untouched, and the
//     futex2 calls whose flags live in memory are refused.
// Everything refused fails as an old kernel or a refused permission would (ENOSYS, EACCES,
// EOPNOTSUPP, EINVAL); calls of another architecture's ABI (32-bit x86, x32), which would name
// the same calls by other numbers, fail with ENOSYS. docs/SANDBOX.md has the table of channels.
#pragma once

#include <string>

namespace allfives::referee {

// The filter as a classic BPF program (struct sock_filter[]), bytes for bwrap's --seccomp;
// empty on an architecture this file has no system-call numbers for (x86-64 and AArch64 have).
std::string sandbox_seccomp_filter();

}  // namespace allfives::referee
