// The system-call filter of every sandboxed bot (bwrap --seccomp): the few calls that would
// reach outside the sandbox through a file it may read.
//
// A bound folder may hold a Unix socket of the host (a service's socket beside the bot's
// program, an agent's in a folder given to it). The mount is read-only, but connecting to a
// socket is not writing to the file system: the bot could talk to that service. So a
// sandboxed bot may not connect() at all (its gRPC server only listens; nothing else in the
// sandbox could answer but its own processes, which can use pipes and socketpair()), nor
// make a Unix datagram or seqpacket socket (sendto() names its peer by path without
// connecting), nor use io_uring (which connects without the connect call). The bot's own
// listening socket (a Unix stream socket: bind, listen, accept) is untouched. Everything
// refused fails with EACCES, as connecting to a socket one may not write does; calls of
// another architecture's ABI (32-bit x86, x32), which would name the same calls by other
// numbers, fail with ENOSYS.
#pragma once

#include <string>

namespace allfives::referee {

// The filter as a classic BPF program (struct sock_filter[]), bytes for bwrap's --seccomp;
// empty on an architecture this file has no system-call numbers for (x86-64 and AArch64 have).
std::string sandbox_seccomp_filter();

}  // namespace allfives::referee
