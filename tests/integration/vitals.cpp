#include "vitals.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "grpc/health/v1/health.grpc.pb.h"

namespace linkage::itest {

Vitals::Vitals(const std::string& target, std::string steady) : steady_(std::move(steady)), client_(target) {
  thread_ = std::thread([this] { watch(); });
}

Vitals::~Vitals() { stop(); }

void Vitals::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void Vitals::watch() {
  auto health = grpc::health::v1::Health::NewStub(client_.channel);
  while (!stopping_) {
    const auto round = std::chrono::steady_clock::now();
    v1::ListWorldsResponse listed;
    const grpc::Status list = client_.worlds->ListWorlds(context(1s).get(), v1::ListWorldsRequest(), &listed);
    const auto after_list = std::chrono::steady_clock::now();
    grpc::health::v1::HealthCheckResponse checked;
    const grpc::Status check = health->Check(context(1s).get(), grpc::health::v1::HealthCheckRequest(), &checked);
    const auto after_check = std::chrono::steady_clock::now();
    const v1::World* steady = nullptr;
    for (const v1::World& w : listed.worlds())
      if (w.name() == steady_) steady = &w;
    {
      std::lock_guard lock(mutex_);
      ++rounds_;
      const bool serving = check.ok() && checked.status() == grpc::health::v1::HealthCheckResponse::SERVING;
      failures_ += !list.ok() + !serving + (steady == nullptr);
      slowest_ = std::max({slowest_, std::chrono::duration_cast<std::chrono::milliseconds>(after_list - round),
                           std::chrono::duration_cast<std::chrono::milliseconds>(after_check - after_list)});
      if (steady) {
        if (first_at_ == std::chrono::steady_clock::time_point{}) {
          first_tick_ = steady->tick();
          first_at_ = after_list;
        }
        last_tick_ = steady->tick();
        last_at_ = after_list;
      }
    }
    std::this_thread::sleep_until(round + 100ms);
  }
}

int Vitals::rounds() const {
  std::lock_guard lock(mutex_);
  return rounds_;
}

int Vitals::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

std::chrono::milliseconds Vitals::slowest() const {
  std::lock_guard lock(mutex_);
  return slowest_;
}

double Vitals::steady_rate() const {
  std::lock_guard lock(mutex_);
  const double seconds = std::chrono::duration<double>(last_at_ - first_at_).count();
  return seconds > 0.0 ? static_cast<double>(last_tick_ - first_tick_) / seconds : 0.0;
}

std::string Vitals::report() const {
  char text[160];
  std::snprintf(text, sizeof text, "%d rounds, %d failed calls, slowest answer %lld ms, steady world at %.1f Hz",
                rounds(), failures(), static_cast<long long>(slowest().count()), steady_rate());
  return text;
}

void create_steady_world(Client& c, const std::string& name) {
  v1::CreateWorldRequest create;
  create.set_name(name);
  create.mutable_settings()->set_tick_rate(60);
  create.mutable_settings()->set_dynamics(v1::DYNAMICS_VELOCITY_PROJECTION);
  c.create_world(create);
  c.apply_batch(chain_batch(name, 20, 0.1, 0.0, -1.0));
}

void expect_healthy(Vitals& vitals) {
  vitals.stop();
  std::printf("vitals: %s\n", vitals.report().c_str());
  EXPECT_GE(vitals.rounds(), 5) << "the watch was too short to say anything";
  EXPECT_EQ(vitals.failures(), 0) << vitals.report();
  EXPECT_LT(vitals.slowest(), 1s) << vitals.report();
  EXPECT_NEAR(vitals.steady_rate(), 60.0, 6.0) << vitals.report();
}

}  // namespace linkage::itest
