// A test bot that misbehaves on purpose, written against the raw protocol (not the SDK, which
// would not let it). End-to-end tests start the real referee against it (fastchess's mock
// engines idea).
//
//   misbehaving_bot --listen ADDRESS [--mode MODE] [--at K] [--ms N] [--delay-ms N]
//                   [--record FILE] [--pid-file FILE] [--fail-starts N --count-file FILE]
//                   [--protocol N]
// Modes: normal (first legal play), crash (print its last words to stderr and exit 3 at
// decision K), hang (never answer decision K), late (answer decision K after N ms), illegal
// (a tile not in hand at decision K),
// malformed (a tile 9-9 at decision K), wrong-version (Hello says protocol 99), wrong-kind
// (answer decision K with Hello), close-stream (end the stream cleanly at decision K),
// exit-at-startup (exit 7 at once), no-socket (never listen), flood-stderr (print N bytes of
// noise to stderr at decision K, then play normally), flood-every (the same at every
// decision), spawn-child (start `sleep 1000` as a
// grandchild at startup, then play normally), slow (answer every decision after N ms: a match
// that lasts long enough to be watched live).
// Protocol abuse: answer-twice (send two answers to decision K), answer-early (send a
// PlayAnswer right after Hello, before any turn request), abort-stream (cancel the stream at
// decision K, the process staying alive), error-status (the handler returns INTERNAL at
// decision K), oversized (answer decision K with a 5 MiB message), long-comment (every
// answer with a 1 MiB comment, an escape sequence at its start), invalid-utf8 (print bytes
// that are not UTF-8 to stderr at decision K, then play normally), no-hello (never answer
// MatchStart, the process staying alive), stale-nonce (answer decision K carrying the nonce of
// the request before it: MatchStart's at K = 1), forged-nonce (answer decision K carrying a
// guessed nonce, 12345), hello-nonce (answer MatchStart with a Hello carrying nonce 0).
// Start-up and serving mistakes (for `referee check-bot` and the start-up messages):
// slow-start (listen only after N ms), listen-tcp (ignore --listen, serve on 0.0.0.0:50051),
// listen-own-unix (ignore --listen, serve on unix:/tmp/misbehaving.sock), no-health (serve the
// Bot service without the health service), no-listen-flag (refuse --listen as an unknown flag,
// exit 2), exit-after-match (exit 0 when its first match ends), chatty (print a line to
// stdout and one to stderr at startup, with a terminal escape sequence, and at every decision,
// then play normally),
// ignore-sigterm (play normally but ignore SIGTERM), flood-unasked (right after Hello, 200
// PlayAnswers of 1 MiB nobody asked for), exit-after-answer (exit 0 at once after its answer
// to decision K; with --ms N, end the stream at once and exit N ms later).
// Start-up: late-ready (the health service answers NOT_SERVING until the referee's start-up
// deadline is near, then holds that check and answers SERVING N ms before the deadline: ready
// in time, at the last moment).
// --protocol N: the protocol version its Hello says (default: the newest,
// PROTOCOL_VERSION_CURRENT); from 3 on every answer carries the nonce of the request it answers
// (bot.proto, "Unasked answers"), 2 carries none (a bot written for version 2).
// --delay-ms N waits N ms before every answer (Hello included), in every mode: a slow opponent
// gives the tests of unasked answers a wide window between two requests.
// --record FILE appends every message received, as JSON lines, for the hidden-tile test.
// --pid-file FILE appends "PID PGID" of this process (and of its spawned child) at startup,
// for the no-orphans tests.
// --fail-starts N --count-file FILE: the first N starts (counted by lines appended to FILE, so
// the bot must run unsandboxed) exit 7 at once, as exit-at-startup; later ones run MODE.
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "allfives/v1/bot.grpc.pb.h"
#include "allfives/wire/convert.h"
#include "health_service.h"

namespace v1 = allfives::v1;

namespace {

struct Options {
  std::string listen;
  std::string mode = "normal";
  int at = 1;
  int ms = 0;
  int delay_ms = 0;
  std::string record;
  std::string pid_file;
  int fail_starts = 0;
  std::string count_file;
  uint32_t protocol = allfives::wire::kProtocolVersion;
};

Options g_opt;
std::mutex g_record_mutex;

void record(const v1::RefereeMessage& m) {
  if (g_opt.record.empty()) return;
  std::string json;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &json, o);
  std::lock_guard<std::mutex> lock(g_record_mutex);
  std::ofstream(g_opt.record, std::ios::app) << json << "\n";
}

class MisbehavingBot final : public v1::Bot::Service {
  grpc::Status PlayMatch(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    v1::RefereeMessage in;
    int decision = 0;
    uint64_t last_nonce = 0;  // the nonce of the request before this one
    // Protocol 3: an answer carries the nonce of the request it answers, or `nonce` if given.
    auto stamp = [&](v1::BotMessage& out, uint64_t nonce) {
      if (g_opt.protocol >= 3) out.set_nonce(nonce);
    };
    while (stream->Read(&in)) {
      const uint64_t asked_nonce = in.nonce();
      const uint64_t previous_nonce = last_nonce;
      last_nonce = asked_nonce;
      record(in);
      if (g_opt.delay_ms > 0 && !in.has_match_end())
        std::this_thread::sleep_for(std::chrono::milliseconds(g_opt.delay_ms));
      v1::BotMessage out;
      if (in.has_match_start()) {
        out.mutable_hello()->set_name("misbehaving-" + g_opt.mode);
        out.mutable_hello()->set_version("1");
        out.mutable_hello()->set_protocol_version(g_opt.mode == "wrong-version" ? 99
                                                                                : g_opt.protocol);
        stamp(out, g_opt.mode == "hello-nonce" ? 0 : asked_nonce);
        if (g_opt.mode == "no-hello") {
          while (!ctx->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return grpc::Status::CANCELLED;
        }
        stream->Write(out);
        if (g_opt.mode == "answer-early") {
          v1::BotMessage early;
          early.mutable_play()->set_legal_play_index(0);
          stamp(early, asked_nonce);
          stream->Write(early);
        }
        if (g_opt.mode == "flood-unasked") {
          // 200 answers of 1 MiB nobody asked for, written until the referee stops reading.
          v1::BotMessage early;
          early.mutable_play()->set_legal_play_index(0);
          early.mutable_play()->set_comment(std::string(1 << 20, 'u'));
          stamp(early, asked_nonce);
          for (int i = 0; i < 200 && stream->Write(early); ++i) {
          }
        }
        continue;
      }
      if (in.has_match_end() && g_opt.mode == "exit-after-match") std::_Exit(0);
      if (!in.has_turn_request()) continue;
      const v1::TurnRequest& t = in.turn_request();
      ++decision;
      const bool now = decision == g_opt.at;
      if (g_opt.mode == "chatty") {
        std::printf("chatty: thinking about decision %d\n", decision);
        std::fflush(stdout);
        std::fprintf(stderr, "chatty: decision %d, %d legal plays\n", decision,
                     t.legal_plays_size());
      }
      if (now && g_opt.mode == "crash") {
        std::fprintf(stderr, "crash: giving up at decision %d\n", decision);
        _exit(3);
      }
      if (now && g_opt.mode == "hang") {
        while (!ctx->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return grpc::Status::CANCELLED;
      }
      if ((now && g_opt.mode == "late") || g_opt.mode == "slow")
        std::this_thread::sleep_for(std::chrono::milliseconds(g_opt.ms));
      if (now && g_opt.mode == "close-stream") return grpc::Status::OK;
      if (now && g_opt.mode == "abort-stream") {
        ctx->TryCancel();
        return grpc::Status::CANCELLED;
      }
      if (now && g_opt.mode == "error-status")
        return grpc::Status(grpc::StatusCode::INTERNAL, "the handler failed on purpose \xff");
      if (now && g_opt.mode == "invalid-utf8") {
        // A lone continuation byte, a cut two-byte sequence, 0xff, then valid UTF-8 (é).
        std::fputs("bad bytes: \x80 \xc3 \xff, good: \xc3\xa9\n", stderr);
        std::fflush(stderr);
      }
      if ((now && g_opt.mode == "flood-stderr") || g_opt.mode == "flood-every") {
        std::string noise(1024, 'x');
        for (int i = 0; i < g_opt.ms / 1024; ++i) std::fprintf(stderr, "%s\n", noise.c_str());
      }
      if (now && g_opt.mode == "wrong-kind") {
        out.mutable_hello()->set_name("confused");
        stamp(out, asked_nonce);
        stream->Write(out);
        continue;
      }
      v1::PlayAnswer* a = out.mutable_play();
      if (now && g_opt.mode == "illegal") {
        // A tile this seat does not hold: the first tile of the set that is not in its hand.
        for (uint32_t hi = 0; hi <= 6; ++hi)
          for (uint32_t lo = 0; lo <= hi; ++lo) {
            bool held = false;
            for (const v1::Tile& mine : t.your_tiles())
              held |= mine.high() == hi && mine.low() == lo;
            bool on_line = false;
            for (const v1::LineTile& lt : t.line())
              on_line |= lt.tile().high() == hi && lt.tile().low() == lo;
            if (!held && !on_line && !a->has_play()) {
              a->mutable_play()->mutable_tile()->set_high(hi);
              a->mutable_play()->mutable_tile()->set_low(lo);
              a->mutable_play()->set_end(v1::END_LEFT);
            }
          }
      } else if (g_opt.mode == "reversed-tiles") {
        // Every answer names the first legal play with its halves the other way round (low
        // first), which common.proto allows: a tile has no orientation.
        const v1::Play& first = t.legal_plays(0);
        a->mutable_play()->mutable_tile()->set_high(first.tile().low());
        a->mutable_play()->mutable_tile()->set_low(first.tile().high());
        a->mutable_play()->set_end(first.end());
      } else if (now && g_opt.mode == "malformed") {
        a->mutable_play()->mutable_tile()->set_high(9);
        a->mutable_play()->mutable_tile()->set_low(9);
        a->mutable_play()->set_end(v1::END_LEFT);
      } else {
        a->set_legal_play_index(0);
      }
      if (g_opt.mode == "long-comment") {
        // Every answer: 1 MiB of comment, its 256th byte inside a 3-byte character, with a
        // terminal escape sequence: the referee keeps the 254 bytes before that character.
        std::string c = "\x1b[2J\x1b]0;pwned\x07" + std::string(240, 'a') + "\xe2\x82\xac";
        c += std::string((1 << 20) - c.size(), 'z');
        a->set_comment(c);
      }
      if (now && g_opt.mode == "oversized") {
        // A field the referee does not know, 5 MiB long: over the 4 MiB limit of bot.proto.
        out.GetReflection()->MutableUnknownFields(&out)->AddLengthDelimited(
            1000, std::string(5 << 20, 'x'));
      }
      stamp(out, !now                           ? asked_nonce
                 : g_opt.mode == "stale-nonce"  ? previous_nonce
                 : g_opt.mode == "forged-nonce" ? 12345
                                                : asked_nonce);
      stream->Write(out);
      if (now && g_opt.mode == "answer-twice") stream->Write(out);
      if (now && g_opt.mode == "exit-after-answer") {
        // With N ms: the stream ends at once and the exit comes N ms later (a slow teardown).
        if (g_opt.ms > 0) {
          ctx->TryCancel();
          std::this_thread::sleep_for(std::chrono::milliseconds(g_opt.ms));
        }
        std::_Exit(0);
      }
    }
    return grpc::Status::OK;
  }
};

// late-ready: NOT_SERVING while the referee's check has its own short deadline (500 ms at most,
// bot_channel.cpp); once a check's deadline is the start-up deadline itself (closer than that),
// it is held until N ms before it and answered SERVING.
class LateHealth final : public grpc::health::v1::Health::Service {
  grpc::Status Check(grpc::ServerContext* ctx, const grpc::health::v1::HealthCheckRequest*,
                     grpc::health::v1::HealthCheckResponse* response) override {
    const auto deadline = ctx->deadline();
    const auto now = std::chrono::system_clock::now();
    if (deadline - now > std::chrono::milliseconds(450)) {
      response->set_status(grpc::health::v1::HealthCheckResponse::NOT_SERVING);
      return grpc::Status::OK;
    }
    std::this_thread::sleep_until(deadline - std::chrono::milliseconds(g_opt.ms));
    response->set_status(grpc::health::v1::HealthCheckResponse::SERVING);
    return grpc::Status::OK;
  }
};

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--listen")
      g_opt.listen = v;
    else if (k == "--mode")
      g_opt.mode = v;
    else if (k == "--at")
      g_opt.at = std::atoi(v.c_str());
    else if (k == "--ms")
      g_opt.ms = std::atoi(v.c_str());
    else if (k == "--delay-ms")
      g_opt.delay_ms = std::atoi(v.c_str());
    else if (k == "--record")
      g_opt.record = v;
    else if (k == "--pid-file")
      g_opt.pid_file = v;
    else if (k == "--fail-starts")
      g_opt.fail_starts = std::atoi(v.c_str());
    else if (k == "--count-file")
      g_opt.count_file = v;
    else if (k == "--protocol")
      g_opt.protocol = static_cast<uint32_t>(std::atoi(v.c_str()));
    else {
      std::cerr << "misbehaving_bot: unknown flag " << k << "\n";
      return 2;
    }
  }
  if (g_opt.fail_starts > 0 && !g_opt.count_file.empty()) {
    int starts = 0;
    {
      std::ifstream in(g_opt.count_file);
      for (std::string line; std::getline(in, line);) ++starts;
    }
    std::ofstream(g_opt.count_file, std::ios::app) << getpid() << "\n";
    if (starts < g_opt.fail_starts) {
      std::cerr << "misbehaving_bot: failing start " << starts + 1 << " of " << g_opt.fail_starts
                << " as asked\n";
      return 7;
    }
  }
  if (g_opt.mode == "exit-at-startup") {
    std::cerr << "misbehaving_bot: exiting at startup as asked\n";
    return 7;
  }
  if (g_opt.mode == "no-listen-flag") {
    std::cerr << "usage: misbehaving_bot [--mode MODE]\nmisbehaving_bot: error: unrecognized "
                 "arguments: --listen "
              << g_opt.listen << "\n";
    return 2;
  }
  if (g_opt.mode == "slow-start") std::this_thread::sleep_for(std::chrono::milliseconds(g_opt.ms));
  if (g_opt.mode == "listen-tcp") g_opt.listen = "0.0.0.0:50051";
  if (g_opt.mode == "listen-own-unix") g_opt.listen = "unix:/tmp/misbehaving.sock";
  if (g_opt.mode == "ignore-sigterm") std::signal(SIGTERM, SIG_IGN);
  if (g_opt.mode == "chatty") {
    std::printf("chatty: hello on stdout\n");
    std::fflush(stdout);
    std::fprintf(stderr, "chatty: hello on stderr\n");
    // An escape sequence that would clear the terminal a report is printed on.
    std::fprintf(stderr, "chatty: \x1b[2J\x1b[Hcleared\n");
  }
  if (g_opt.mode == "no-socket") {
    std::this_thread::sleep_for(std::chrono::hours(1));
    return 0;
  }
  if (!g_opt.pid_file.empty())
    std::ofstream(g_opt.pid_file, std::ios::app) << getpid() << " " << getpgrp() << "\n";
  if (g_opt.mode == "spawn-child") {
    const pid_t child = fork();
    if (child == 0) {
      execlp("sleep", "sleep", "1000", static_cast<char*>(nullptr));
      _exit(127);
    }
    if (!g_opt.pid_file.empty())
      std::ofstream(g_opt.pid_file, std::ios::app) << child << " " << getpgrp() << "\n";
  }
  MisbehavingBot service;
  allfives::test::HealthService health;
  LateHealth late_health;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(g_opt.listen, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  if (g_opt.mode == "late-ready") {
    builder.RegisterService(&late_health);
  } else if (g_opt.mode != "no-health") {
    builder.RegisterService(&health);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::cerr << "misbehaving_bot: cannot listen on " << g_opt.listen << "\n";
    return 1;
  }
  server->Wait();
  return 0;
}
