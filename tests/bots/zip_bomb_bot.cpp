// A test bot that answers its first turn request with a compression bomb: a message of --mib
// MiB (a play and then an unknown field of zero bytes) sent gzip-compressed, about a thousandth
// of that on the wire. It is a bare HTTP/2 server written by hand, not a gRPC one, so that it
// compresses its answer whatever the referee says it accepts (a gRPC library would fall back
// to sending it uncompressed): it is what a hostile author would write.
//
//   zip_bomb_bot --listen unix:PATH|host:port [--mib N]
//
// On each connection: the first stream gets a health answer, SERVING; every later stream is a
// match, whose MatchStart gets a Hello and whose first TurnRequest gets the bomb (HEADERS say
// grpc-encoding: gzip; the message has the compressed flag). It never ends a stream itself.
// It keeps to HTTP/2 flow control, and decodes none of the referee's headers (HPACK): which
// method a stream calls follows from its order on its connection, as the referee makes them.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <thread>

#include "allfives/v1/bot.pb.h"
#include "allfives/wire/convert.h"

namespace {

constexpr uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoaway = 7,
                  kWindowUpdate = 8;
constexpr uint8_t kEndStream = 0x1, kEndHeaders = 0x4, kAck = 0x1;

int g_mib = 1024;

bool read_exactly(int fd, void* buffer, size_t n) {
  auto* p = static_cast<char*>(buffer);
  while (n > 0) {
    const ssize_t got = ::read(fd, p, n);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string f(9, '\0');
  f[0] = static_cast<char>(payload.size() >> 16);
  f[1] = static_cast<char>(payload.size() >> 8);
  f[2] = static_cast<char>(payload.size());
  f[3] = static_cast<char>(type);
  f[4] = static_cast<char>(flags);
  for (int i = 0; i < 4; ++i) f[5 + i] = static_cast<char>(stream >> (24 - 8 * i));
  return f + payload;
}

// HPACK "literal header field without indexing, new name" (no Huffman coding).
std::string header(const std::string& name, const std::string& value) {
  return std::string(1, '\0') + static_cast<char>(name.size()) + name +
         static_cast<char>(value.size()) + value;
}

std::string grpc_message(bool compressed, const std::string& payload) {
  std::string m(5, '\0');
  m[0] = compressed ? 1 : 0;
  for (int i = 0; i < 4; ++i) m[1 + i] = static_cast<char>(payload.size() >> (24 - 8 * i));
  return m + payload;
}

// The bomb's payload: a BotMessage (a play, then an unknown field of g_mib MiB of zeros),
// gzip-compressed as it is produced, so the bot never holds it inflated.
std::string bomb() {
  allfives::v1::BotMessage play;
  play.mutable_play()->set_legal_play_index(0);
  std::string head = play.SerializeAsString();
  const uint64_t size = static_cast<uint64_t>(g_mib) << 20;
  const auto varint = [&](uint64_t v) {
    for (; v >= 0x80; v >>= 7) head += static_cast<char>((v & 0x7f) | 0x80);
    head += static_cast<char>(v);
  };
  varint((1000 << 3) | 2);  // field 1000, length-delimited: unknown to the referee
  varint(size);
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out;
  char buffer[1 << 16];
  const std::string zeros(1 << 20, '\0');
  auto feed = [&](const std::string& in, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      deflate(&z, flush);
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0);
  };
  feed(head, Z_NO_FLUSH);
  for (int i = 0; i < g_mib; ++i) feed(zeros, i + 1 == g_mib ? Z_FINISH : Z_NO_FLUSH);
  deflateEnd(&z);
  return out;
}

void serve_connection(int fd, const std::string* payload) {
  char preface[24];
  if (!read_exactly(fd, preface, sizeof preface)) return;
  write_all(fd, frame(kSettings, 0, 0, ""));
  int64_t connection_window = 65535, initial_window = 65535;
  std::map<uint32_t, int64_t> windows;      // per stream, what we may still send
  std::map<uint32_t, int> messages;         // per stream, the referee's messages received
  std::map<uint32_t, std::string> partial;  // per stream, received bytes of the current message
  uint32_t first_stream = 0;
  std::string pending;  // the bomb's DATA payload not yet sent
  uint32_t bomb_stream = 0;
  for (;;) {
    // Send what the windows allow, then read a frame.
    while (!pending.empty() && connection_window > 0 && windows[bomb_stream] > 0) {
      const size_t n =
          std::min<size_t>({pending.size(), 16384, static_cast<size_t>(connection_window),
                            static_cast<size_t>(windows[bomb_stream])});
      if (!write_all(fd, frame(kData, 0, bomb_stream, pending.substr(0, n)))) return;
      pending.erase(0, n);
      connection_window -= static_cast<int64_t>(n);
      windows[bomb_stream] -= static_cast<int64_t>(n);
    }
    unsigned char h[9];
    if (!read_exactly(fd, h, sizeof h)) return;
    const uint32_t length = (uint32_t{h[0]} << 16) | (uint32_t{h[1]} << 8) | h[2];
    const uint8_t type = h[3], flags = h[4];
    const uint32_t stream =
        ((uint32_t{h[5]} << 24) | (uint32_t{h[6]} << 16) | (uint32_t{h[7]} << 8) | h[8]) &
        0x7fffffff;
    std::string body(length, '\0');
    if (length > 0 && !read_exactly(fd, body.data(), length)) return;
    if (type == kSettings && !(flags & kAck)) {
      for (size_t i = 0; i + 6 <= body.size(); i += 6) {
        const unsigned id =
            (static_cast<unsigned char>(body[i]) << 8) | static_cast<unsigned char>(body[i + 1]);
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(body[i + 2 + k]);
        if (id == 4) {
          for (auto& [s, w] : windows) w += static_cast<int64_t>(v) - initial_window;
          initial_window = v;
        }
      }
      write_all(fd, frame(kSettings, kAck, 0, ""));
    } else if (type == kPing && !(flags & kAck)) {
      write_all(fd, frame(kPing, kAck, 0, body));
    } else if (type == kWindowUpdate && body.size() == 4) {
      uint32_t v = 0;
      for (int k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(body[k]);
      v &= 0x7fffffff;
      (stream == 0 ? connection_window : windows[stream]) += v;
    } else if (type == kHeaders) {
      if (first_stream == 0) first_stream = stream;
      windows.emplace(stream, initial_window);
    } else if (type == kData) {
      std::string& got = partial[stream];
      got += body;
      // The referee's messages on this stream, each complete once its length has arrived.
      while (got.size() >= 5) {
        uint32_t n = 0;
        for (int k = 1; k < 5; ++k) n = (n << 8) | static_cast<unsigned char>(got[k]);
        if (got.size() < 5 + n) break;
        allfives::v1::RefereeMessage asked;
        (void)asked.ParseFromArray(got.data() + 5, static_cast<int>(n));
        got.erase(0, 5 + n);
        const int count = ++messages[stream];
        std::string reply;
        if (stream == first_stream) {
          // grpc.health.v1.HealthCheckResponse{status: SERVING}
          reply = frame(kHeaders, kEndHeaders, stream,
                        std::string(1, '\x88') + header("content-type", "application/grpc")) +
                  frame(kData, 0, stream, grpc_message(false, std::string("\x08\x01", 2))) +
                  frame(kHeaders, kEndHeaders | kEndStream, stream, header("grpc-status", "0"));
        } else if (count == 1) {
          allfives::v1::BotMessage hello;
          hello.mutable_hello()->set_name("zip-bomb");
          hello.mutable_hello()->set_version("1");
          // MatchStart's nonce carried back: a Hello the referee takes, so the bomb is what it
          // meets next.
          hello.mutable_hello()->set_protocol_version(allfives::wire::kProtocolVersion);
          hello.set_nonce(asked.nonce());
          reply = frame(kHeaders, kEndHeaders, stream,
                        std::string(1, '\x88') + header("content-type", "application/grpc") +
                            header("grpc-encoding", "gzip")) +
                  frame(kData, 0, stream, grpc_message(false, hello.SerializeAsString()));
        } else if (count == 2) {
          std::cerr << "zip_bomb_bot: sending " << g_mib << " MiB as " << payload->size()
                    << " bytes of gzip\n";
          pending = grpc_message(true, *payload);
          bomb_stream = stream;
        }
        if (!reply.empty() && !write_all(fd, reply)) return;
      }
      // Every byte received is granted again, so the referee can go on sending.
      if (length > 0) {
        std::string inc(4, '\0');
        for (int k = 0; k < 4; ++k) inc[k] = static_cast<char>(length >> (24 - 8 * k));
        write_all(fd, frame(kWindowUpdate, 0, 0, inc) + frame(kWindowUpdate, 0, stream, inc));
      }
    } else if (type == kGoaway) {
      return;
    } else if (type == kRstStream) {
      windows.erase(stream);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--listen") {
      listen = v;
    } else if (k == "--mib") {
      g_mib = std::atoi(v.c_str());
    } else {
      std::cerr << "zip_bomb_bot: unknown flag " << k << "\n";
      return 2;
    }
  }
  if (listen.empty() || g_mib < 1) {
    std::cerr << "usage: zip_bomb_bot --listen unix:PATH|host:port [--mib N]\n";
    return 2;
  }
  const std::string payload = bomb();
  int server = -1;
  if (listen.rfind("unix:", 0) == 0) {
    server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", listen.c_str() + 5);
    if (::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) server = -1;
  } else {
    server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(std::atoi(listen.c_str() + listen.rfind(':') + 1)));
    const int one = 1;
    ::setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) server = -1;
  }
  if (server < 0 || ::listen(server, 16) != 0) {
    std::cerr << "zip_bomb_bot: cannot listen on " << listen << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  std::cerr << "zip_bomb_bot listening on " << listen << "\n";
  for (;;) {
    const int fd = ::accept4(server, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::thread([fd, &payload] {
      serve_connection(fd, &payload);
      ::close(fd);
    }).detach();
  }
}
