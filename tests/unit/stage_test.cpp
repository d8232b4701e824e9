// A step's time by stage: every moment charged to one stage, so the stages
// sum to the step's time; each stage a configuration runs takes time, and
// one it does not run takes none.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "linkage/scenes/build.hpp"
#include "scenes.hpp"

using namespace linkage;

namespace {

void expect_stages(const WorldSettings& s, std::initializer_list<Stage> idle) {
  scenes::SceneWorld scene = scenes::build_world(scenes::chain(50), s).value();
  for (int i = 0; i < 5; ++i) {
    const StepDiagnostics& d = scene.world.step();
    EXPECT_NEAR(d.stage_seconds.total(), d.step_seconds, 1e-12 + 1e-12 * d.step_seconds) << "step " << i;
    for (int k = 0; k < kStageCount; ++k) {
      const Stage stage = static_cast<Stage>(k);
      const bool runs = std::find(idle.begin(), idle.end(), stage) == idle.end();
      SCOPED_TRACE(std::string(stage_name(stage)));
      if (runs) {
        EXPECT_GT(d.stage_seconds[stage], 0.0);
      } else {
        EXPECT_EQ(d.stage_seconds[stage], 0.0);
      }
    }
  }
}

TEST(Stages, SumToTheStepTimeForceBasedRk4) {
  WorldSettings s;
  s.integrator = Integrator::rk4;  // four nested evaluations a substep
  s.substeps = 2;
  expect_stages(s, {Stage::project_positions, Stage::project_velocities});
}

TEST(Stages, SumToTheStepTimeExactPreset) { expect_stages(with_preset(Preset::exact), {}); }

TEST(Stages, SumToTheStepTimeSequentialImpulses) {
  WorldSettings s;
  s.dynamics = Dynamics::sequential_impulses;
  expect_stages(s, {Stage::project_positions, Stage::project_velocities});
}

}  // namespace
