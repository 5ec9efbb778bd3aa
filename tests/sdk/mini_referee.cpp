#include "mini_referee.h"

#include <thread>

#include "allfives/wire/convert.h"
#include "allfives/wire/match_terms.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace allfives::testing {

MatchStream::MatchStream(v1::Bot::Stub& stub, std::chrono::seconds timeout) {
  context.set_deadline(deadline_in(timeout));
  stream = stub.PlayMatch(&context);
}

grpc::Status MatchStream::finish() {
  stream->WritesDone();
  v1::BotMessage extra;
  while (stream->Read(&extra)) {
  }
  return stream->Finish();
}

std::shared_ptr<grpc::Channel> connect(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

bool wait_until_serving(const std::string& address, std::chrono::milliseconds timeout) {
  // A fresh channel per attempt, with its own subchannels: a channel that failed while the
  // bot was not listening yet keeps backing off even after the bot is up.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  const auto end = std::chrono::steady_clock::now() + timeout;
  std::chrono::milliseconds pause(10);
  while (std::chrono::steady_clock::now() < end) {
    auto stub = grpc::health::v1::Health::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
    grpc::ClientContext context;
    context.set_deadline(deadline_in(std::chrono::seconds(1)));
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status st = stub->Check(&context, request, &response);
    if (st.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING) return true;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
  return false;
}

// The default terms (allfives/wire/match_terms.h), as `referee match` would state them.
v1::MatchStart make_match_start(Format format, int seat, const std::string& match_id) {
  std::vector<std::string> names;
  for (int s = 0; s < num_players(format); ++s) names.push_back("seat" + std::to_string(s));
  return wire::match_start(match_id, Config::standard(format), seat, wire::kDefaultMoveTime,
                           wire::kDefaultTimeBank, names);
}

v1::RefereeMessage wrap(const v1::MatchStart& m) {
  v1::RefereeMessage r;
  *r.mutable_match_start() = m;
  return r;
}

std::vector<int> scores_of(const State& state) {
  std::vector<int> scores;
  for (int side = 0; side < num_sides(state.format()); ++side) scores.push_back(state.score(side));
  return scores;
}

v1::Event hand_start_for(const Event& e, int seat, const State& state) {
  return wire::seat_event(e, seat, state.format(), scores_of(state));
}

MatchResult referee_match(const std::vector<v1::Bot::Stub*>& stubs, Format format,
                          uint64_t deal_seed, const std::string& match_id) {
  MatchResult result;
  const int n = num_players(format);
  const int sides = num_sides(format);
  std::vector<std::unique_ptr<MatchStream>> seats;
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    for (auto& s : seats) s->context.TryCancel();
    for (auto& s : seats) result.statuses.push_back(s->stream->Finish());
    return result;
  };
  for (int s = 0; s < n; ++s) {
    seats.push_back(std::make_unique<MatchStream>(*stubs[s], std::chrono::seconds(60)));
    v1::BotMessage hello;
    if (!seats[s]->send(wrap(make_match_start(format, s, match_id))) ||
        !seats[s]->stream->Read(&hello) || !hello.has_hello())
      return fail("no Hello from seat " + std::to_string(s));
    if (hello.hello().protocol_version() != wire::kProtocolVersion)
      return fail("wrong protocol version in Hello");
  }

  EventList events;
  State state = State::new_match(Config::standard(format), deal_seed, &events);
  std::vector<std::vector<v1::Event>> pending(static_cast<size_t>(n));
  auto send_all = [&](auto make) {
    for (int s = 0; s < n; ++s)
      if (!seats[s]->send(make(s))) return false;
    return true;
  };
  auto process = [&]() {
    for (const Event& e : events) {
      switch (e.kind) {
        case EventKind::kHandStart:
        case EventKind::kPlay:
        case EventKind::kDraw:
        case EventKind::kPass:
        case EventKind::kHandEnd:
          if (e.kind == EventKind::kHandStart) ++result.hands;
          for (int s = 0; s < n; ++s)
            pending[s].push_back(wire::seat_event(e, s, format, scores_of(state)));
          break;
        case EventKind::kMatchEnd: {
          const bool ok = send_all([&](int s) {
            v1::RefereeMessage r;
            v1::MatchEnd* m = r.mutable_match_end();
            for (auto& pe : pending[s]) *m->add_events() = pe;
            pending[s].clear();
            m->set_reason(wire::to_proto(static_cast<MatchEndReason>(e.reason)));
            m->set_winner_side(e.side);
            for (int side = 0; side < sides; ++side) {
              m->add_scores(static_cast<uint32_t>(e.values[side]));
              uint32_t place = 1;
              for (int o = 0; o < sides; ++o) place += e.values[o] > e.values[side] ? 1 : 0;
              m->add_placements(place);
            }
            m->set_fault_seat(-1);
            return r;
          });
          if (!ok) return false;
          break;
        }
      }
    }
    return true;
  };
  if (!process()) return fail("could not send to a bot");

  for (int turn = 0; !state.is_terminal(); ++turn) {
    if (turn > 20000) return fail("the match does not end");
    const int s = state.seat_to_move();
    v1::RefereeMessage request;
    v1::TurnRequest* tr = request.mutable_turn_request();
    wire::fill_turn_request(state.view(s), tr);
    for (auto& pe : pending[s]) *tr->add_events() = pe;
    pending[s].clear();
    tr->set_move_time_ms(static_cast<uint32_t>(wire::kDefaultMoveTime.count()));
    tr->set_time_bank_ms(static_cast<uint32_t>(wire::kDefaultTimeBank.count()));
    v1::BotMessage answer;
    if (!seats[s]->send(request) || !seats[s]->stream->Read(&answer) || !answer.has_play())
      return fail("no PlayAnswer from seat " + std::to_string(s));
    const PlayList legal = state.legal_plays();
    Play play;
    std::string error;
    if (!wire::from_proto(answer.play().play(), state.line().empty(), play, &error))
      return fail("malformed play: " + error);
    if (!answer.play().has_legal_play_index() ||
        answer.play().legal_play_index() >= static_cast<uint32_t>(legal.size()) ||
        !(legal[static_cast<int>(answer.play().legal_play_index())] == play))
      return fail("legal_play_index missing or disagrees with the play " + to_string(play));
    events.clear();
    if (PlayError e = state.apply(play, &events); e != PlayError::kNone)
      return fail("illegal play " + to_string(play) + ": " + std::string(describe(e)));
    result.plays.push_back(play);
    if (!process()) return fail("could not send to a bot");
  }
  result.outcome = state.outcome();
  for (auto& seat : seats) result.statuses.push_back(seat->finish());
  return result;
}

}  // namespace allfives::testing
