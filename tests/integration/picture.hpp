#pragma once
// What a refused request must leave as it was: a world as its clients see it
// through the API (its bodies, constraints and forces, settings, counts and
// topology version, whether it runs, and its tick if paused).

#include <cstdint>

#include "support.hpp"

namespace linkage::itest {

struct Picture {
  v1::ListBodiesResponse bodies;
  v1::ListConstraintsResponse constraints;
  v1::ListForcesResponse forces;
  v1::World world;  // without the counters that move on their own (subscribers, overruns; tick and time if running)
};

Picture picture(Client& c, const std::string& world);
// EXPECTs that `after` equals `before`, naming what differs.
void expect_same(const Picture& after, const Picture& before);

}  // namespace linkage::itest
