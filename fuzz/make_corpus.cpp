// Writes the request fuzzer's seed corpus: for every RPC a valid request on
// the seed world (fuzz/world.json), one file per input, plus sequences that
// build on each other (create, then refer to it by name). Usage:
//     make_corpus DIRECTORY
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "calls.hpp"
#include "linkage/v1/service.pb.h"

namespace linkage::fuzz {
namespace {

std::string svc(const char* service, const char* method) {
  return std::string("/linkage.v1.") + service + "/" + method;
}

v1::Vec3 vec(double x, double y, double z = 0) {
  v1::Vec3 v;
  v.set_x(x);
  v.set_y(y);
  v.set_z(z);
  return v;
}

v1::BodyRef named(const std::string& name) {
  v1::BodyRef r;
  r.set_name(name);
  return r;
}

v1::BodyDef particle(const std::string& name, double x, double y) {
  v1::BodyDef b;
  b.set_name(name);
  *b.mutable_position() = vec(x, y);
  b.set_mass(1);
  return b;
}

v1::BodyDef polygon(const std::string& name) {
  v1::BodyDef b = particle(name, -4, 2);
  b.set_kind(v1::BODY_KIND_RIGID);
  for (const auto& [x, y] : {std::pair{0.0, 0.0}, {1.0, 0.0}, {1.0, 1.0}, {0.0, 1.0}})
    *b.mutable_shape()->mutable_polygon()->add_vertices() = vec(x, y);
  return b;
}

// One of each constraint type the seed world's bodies allow.
std::vector<v1::ConstraintDef> constraints() {
  std::vector<v1::ConstraintDef> out(10);
  out[0].mutable_distance()->mutable_b()->set_name("bob2");
  out[0].mutable_distance()->set_length(2.5);
  out[0].set_name("rod2");
  *out[1].mutable_rope()->mutable_a() = named("anchor");
  *out[1].mutable_rope()->mutable_b() = named("bob2");
  *out[2].mutable_pin()->mutable_a() = named("box");
  *out[2].mutable_pin()->mutable_b() = named("tri");
  *out[2].mutable_pin()->mutable_anchor_a() = vec(0.3, 0);
  *out[3].mutable_point_on_line()->mutable_b() = named("bob");
  *out[3].mutable_point_on_line()->mutable_axis() = vec(1, 1);
  *out[4].mutable_point_on_circle()->mutable_b() = named("bob");
  out[4].mutable_point_on_circle()->set_radius(1);
  *out[5].mutable_weld()->mutable_a() = named("box");
  *out[5].mutable_weld()->mutable_b() = named("tri");
  out[5].mutable_softness()->set_frequency(3);
  *out[6].mutable_relative_angle()->mutable_b() = named("gear");
  out[6].mutable_relative_angle()->set_angle(0.5);
  *out[7].mutable_gear()->mutable_a() = named("box");
  *out[7].mutable_gear()->mutable_b() = named("tri");
  out[7].mutable_gear()->set_radius_b(2);
  *out[8].mutable_motor()->mutable_b() = named("bob2");
  out[8].mutable_motor()->set_kind(v1::MOTOR_KIND_LINEAR);
  out[8].mutable_motor()->set_speed(-0.5);
  *out[9].mutable_trajectory()->mutable_body() = named("bob");
  out[9].mutable_trajectory()->mutable_path()->mutable_velocity()->set_x(0.2);
  return out;
}

template <class Request>
Call call(const std::string& method, const Request& request) {
  return {method, false, request.SerializeAsString()};
}

std::vector<std::vector<Call>> inputs() {
  std::vector<std::vector<Call>> out;
  auto one = [&](Call c) { out.push_back({std::move(c)}); };

  v1::CreateWorldRequest create;
  create.set_name("lab");
  create.set_paused(true);
  create.mutable_settings()->set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
  create.mutable_limits()->set_max_bodies(8);
  one(call(svc("WorldService", "CreateWorld"), create));
  one(call(svc("WorldService", "ListWorlds"), v1::ListWorldsRequest{}));
  v1::GetWorldRequest get_world;
  get_world.set_world("fuzz");
  one(call(svc("WorldService", "GetWorld"), get_world));
  v1::UpdateWorldRequest update_world;
  update_world.set_world("fuzz");
  update_world.mutable_settings()->set_substeps(2);
  update_world.mutable_settings()->set_dynamics(v1::DYNAMICS_SEQUENTIAL_IMPULSES);
  update_world.mutable_settings()->set_project_positions(true);
  one(call(svc("WorldService", "UpdateWorld"), update_world));
  v1::DeleteWorldRequest delete_world;
  delete_world.set_world("other");
  one(call(svc("WorldService", "DeleteWorld"), delete_world));
  v1::PauseRequest pause;
  pause.set_world("fuzz");
  one(call(svc("WorldService", "Pause"), pause));
  v1::ResumeRequest resume;
  resume.set_world("fuzz");
  one(call(svc("WorldService", "Resume"), resume));
  v1::StepRequest step;
  step.set_world("fuzz");
  step.set_ticks(3);
  one(call(svc("WorldService", "Step"), step));
  v1::ResetRequest reset;
  reset.set_world("fuzz");
  one(call(svc("WorldService", "Reset"), reset));
  v1::LoadSceneRequest load;
  load.set_world("other");
  *load.mutable_scene()->add_bodies() = particle("p", 1, 0);
  *load.mutable_scene()->add_bodies() = polygon("q");
  v1::ConstraintDef hang;
  hang.mutable_distance()->mutable_b()->set_name("p");
  *load.mutable_scene()->add_constraints() = hang;
  v1::ForceDef pull;
  *pull.mutable_spring()->mutable_a() = named("p");
  *pull.mutable_spring()->mutable_b() = named("q");
  *load.mutable_scene()->add_forces() = pull;
  one(call(svc("WorldService", "LoadScene"), load));
  v1::SaveSceneRequest save;
  save.set_world("fuzz");
  one(call(svc("WorldService", "SaveScene"), save));
  v1::ApplyBatchRequest batch;
  batch.set_world("fuzz");
  *batch.add_commands()->mutable_create_body() = particle("b1", 6, 0);
  v1::ConstraintDef to_b1;
  *to_b1.mutable_pin()->mutable_b() = named("b1");
  to_b1.mutable_pin()->mutable_anchor_a()->set_x(6);
  *batch.add_commands()->mutable_add_constraint() = to_b1;
  *batch.add_commands()->mutable_apply_impulse()->mutable_body() = named("b1");
  batch.mutable_commands(2)->mutable_apply_impulse()->mutable_impulse()->set_y(1);
  *batch.add_commands()->mutable_remove_body() = named("bob");
  one(call(svc("WorldService", "ApplyBatch"), batch));
  v1::StreamStateRequest stream;
  stream.set_world("fuzz");
  stream.set_rate_hz(30);
  stream.set_constraints(true);
  stream.set_diagnostics(true);
  one({svc("WorldService", "StreamState"), true, stream.SerializeAsString()});

  v1::CreateBodyRequest body;
  body.set_world("fuzz");
  *body.mutable_body() = polygon("square");
  one(call(svc("BodyService", "CreateBody"), body));
  v1::CreateBodiesRequest bodies;
  bodies.set_world("fuzz");
  *bodies.add_bodies() = particle("c1", 0, 3);
  *bodies.add_bodies() = particle("", 1, 3);
  one(call(svc("BodyService", "CreateBodies"), bodies));
  v1::GetBodyRequest get_body;
  get_body.set_world("fuzz");
  *get_body.mutable_body() = named("wheel");
  one(call(svc("BodyService", "GetBody"), get_body));
  v1::ListBodiesRequest list_bodies;
  list_bodies.set_world("fuzz");
  one(call(svc("BodyService", "ListBodies"), list_bodies));
  v1::UpdateBodyRequest update_body;
  update_body.set_world("fuzz");
  *update_body.mutable_body() = named("bob");
  *update_body.mutable_def() = particle("bobby", 1, 0.5);
  update_body.mutable_def()->mutable_velocity()->set_x(2);
  one(call(svc("BodyService", "UpdateBody"), update_body));
  v1::RemoveBodyRequest remove_body;
  remove_body.set_world("fuzz");
  remove_body.mutable_body()->mutable_id()->set_index(3);
  remove_body.mutable_body()->mutable_id()->set_generation(1);
  one(call(svc("BodyService", "RemoveBody"), remove_body));

  for (const v1::ConstraintDef& def : constraints()) {
    v1::AddConstraintRequest add;
    add.set_world("fuzz");
    *add.mutable_constraint() = def;
    one(call(svc("ConstraintService", "AddConstraint"), add));
  }
  v1::AddConstraintsRequest adds;
  adds.set_world("fuzz");
  for (const v1::ConstraintDef& def : constraints()) *adds.add_constraints() = def;
  one(call(svc("ConstraintService", "AddConstraints"), adds));
  v1::GetConstraintRequest get_constraint;
  get_constraint.set_world("fuzz");
  get_constraint.mutable_id()->set_index(0);
  get_constraint.mutable_id()->set_generation(1);
  one(call(svc("ConstraintService", "GetConstraint"), get_constraint));
  v1::ListConstraintsRequest list_constraints;
  list_constraints.set_world("fuzz");
  one(call(svc("ConstraintService", "ListConstraints"), list_constraints));
  v1::UpdateConstraintRequest update_constraint;
  update_constraint.set_world("fuzz");
  *update_constraint.mutable_id() = get_constraint.id();
  update_constraint.mutable_constraint()->mutable_distance()->mutable_a()->set_name("anchor");
  update_constraint.mutable_constraint()->mutable_distance()->mutable_b()->set_name("bob");
  update_constraint.mutable_constraint()->mutable_distance()->set_length(1.5);
  update_constraint.mutable_constraint()->set_name("rod-renamed");
  update_constraint.mutable_constraint()->mutable_softness()->set_frequency(2);
  one(call(svc("ConstraintService", "UpdateConstraint"), update_constraint));
  v1::RemoveConstraintRequest remove_constraint;
  remove_constraint.set_world("fuzz");
  *remove_constraint.mutable_id() = get_constraint.id();
  one(call(svc("ConstraintService", "RemoveConstraint"), remove_constraint));

  v1::AddForceRequest spring;
  spring.set_world("fuzz");
  *spring.mutable_force()->mutable_spring()->mutable_a() = named("bob2");
  *spring.mutable_force()->mutable_spring()->mutable_anchor_b() = vec(2, 1);
  spring.mutable_force()->mutable_spring()->set_rest_length(0.5);
  one(call(svc("ForceService", "AddForce"), spring));
  v1::AddForceRequest applied;
  applied.set_world("fuzz");
  *applied.mutable_force()->mutable_applied()->mutable_body() = named("wheel");
  applied.mutable_force()->mutable_applied()->set_torque(2);
  applied.mutable_force()->mutable_applied()->set_ticks(10);
  one(call(svc("ForceService", "AddForce"), applied));
  v1::UpdateForceRequest update_force;
  update_force.set_world("fuzz");
  update_force.mutable_id()->set_index(0);
  update_force.mutable_id()->set_generation(1);
  *update_force.mutable_force()->mutable_spring()->mutable_a() = named("bob");
  *update_force.mutable_force()->mutable_spring()->mutable_b() = named("wheel");
  update_force.mutable_force()->mutable_spring()->set_stiffness(50);
  one(call(svc("ForceService", "UpdateForce"), update_force));
  v1::RemoveForceRequest remove_force;
  remove_force.set_world("fuzz");
  *remove_force.mutable_id() = update_force.id();
  one(call(svc("ForceService", "RemoveForce"), remove_force));
  v1::ListForcesRequest list_forces;
  list_forces.set_world("fuzz");
  one(call(svc("ForceService", "ListForces"), list_forces));
  v1::ApplyImpulseRequest impulse;
  impulse.set_world("fuzz");
  *impulse.mutable_impulse()->mutable_body() = named("box");
  *impulse.mutable_impulse()->mutable_impulse() = vec(1, 2);
  *impulse.mutable_impulse()->mutable_point() = vec(0.1, 0);
  one(call(svc("ForceService", "ApplyImpulse"), impulse));

  // Sequences: each call builds on the ones before.
  out.push_back({call(svc("BodyService", "CreateBody"), body), call(svc("WorldService", "Step"), step),
                 call(svc("BodyService", "GetBody"), get_body), call(svc("WorldService", "SaveScene"), save)});
  out.push_back({call(svc("WorldService", "CreateWorld"), create), call(svc("WorldService", "Resume"), resume),
                 call(svc("WorldService", "UpdateWorld"), update_world), call(svc("WorldService", "Step"), step),
                 call(svc("WorldService", "Reset"), reset)});
  out.push_back({call(svc("WorldService", "ApplyBatch"), batch), call(svc("ConstraintService", "AddConstraints"), adds),
                 call(svc("BodyService", "RemoveBody"), remove_body), call(svc("WorldService", "Step"), step)});
  return out;
}

}  // namespace
}  // namespace linkage::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus DIRECTORY\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  std::set<std::string> methods;
  int n = 0;
  for (const auto& calls : linkage::fuzz::inputs()) {
    std::string name = calls.front().method.substr(calls.front().method.rfind('/') + 1);
    if (calls.size() > 1) name = "sequence";
    char file[96];
    std::snprintf(file, sizeof file, "%02d-%s", n++, name.c_str());
    std::ofstream(dir / file, std::ios::binary) << linkage::fuzz::encode(calls);
    for (const auto& c : calls) methods.insert(c.method);
  }
  // Every RPC has a seed.
  for (const auto& m : linkage::fuzz::methods())
    if (!methods.contains(m.method)) {
      std::fprintf(stderr, "no seed for %s\n", m.method.c_str());
      return 1;
    }
  std::printf("%d inputs in %s\n", n, argv[1]);
  return 0;
}
