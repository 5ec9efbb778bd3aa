// The standard grpc.health.v1.Health service (Check only), served synchronously, for test bots
// written against the raw protocol with gRPC's synchronous server (misbehaving_bot). The SDK's
// own server answers Check on its completion queue and does not use this.
//
// gRPC 1.51's built-in one (EnableDefaultHealthCheckService) uses the callback API, which on
// this version starts extra "nexting" threads that poll all the time: in a tournament they
// burned about a fifth of the machine's CPU. This one costs nothing between probes.
#pragma once

#include <atomic>

#include "grpc/health/v1/health.grpc.pb.h"

namespace allfives::test {

class HealthService final : public grpc::health::v1::Health::Service {
 public:
  // NOT_SERVING from now on (a draining server accepts no new matches).
  void set_serving(bool serving) { serving_.store(serving); }

  grpc::Status Check(grpc::ServerContext*, const grpc::health::v1::HealthCheckRequest*,
                     grpc::health::v1::HealthCheckResponse* response) override {
    response->set_status(serving_.load() ? grpc::health::v1::HealthCheckResponse::SERVING
                                         : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
    return grpc::Status::OK;
  }

 private:
  std::atomic<bool> serving_{true};
};

}  // namespace allfives::test
