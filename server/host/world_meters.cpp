#include "world_meters.hpp"

#include <atomic>

namespace linkage::server {
namespace {
std::atomic<WorldMeterFactory*> g_factory{nullptr};
}  // namespace

void set_world_meter_factory(WorldMeterFactory* factory) { g_factory.store(factory); }
WorldMeterFactory* world_meter_factory() { return g_factory.load(); }

std::shared_ptr<WorldMeters> world_meters(const std::string& world) {
  WorldMeterFactory* f = g_factory.load();
  return f ? f->meters(world) : nullptr;
}

}  // namespace linkage::server
