#include "convert/footprint.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <string>

#include "convert/convert.hpp"
#include "convert/convert_internal.hpp"
#include "linkage/v1/body.pb.h"
#include "linkage/v1/constraint.pb.h"
#include "linkage/v1/force.pb.h"

namespace linkage::server {
namespace {

using google::protobuf::io::CodedOutputStream;

constexpr std::uint32_t kLongestId = 0xffffffffu;  // 5 bytes as a varint
// A constraint or spring refers to its bodies by name in a scene: at most 64 characters.
constexpr std::size_t kSceneName = 64;

// A message of `n` bytes as a field (or an element of a repeated field): tag, length, bytes.
std::size_t field(std::size_t n) { return 1 + CodedOutputStream::VarintSize64(n) + n; }

// A non-zero component is always written, so ones are the worst case; z only in 3D.
Vec3 worst(int dimension) { return dimension == 3 ? Vec3(1, 1, 1) : Vec3(1, 1, 0); }

// The messages the bounds are measured on, kept per thread so that a big
// CreateBodies does not allocate them once per body.
struct Scratch {
  v1::Body body;
  v1::Constraint constraint;
  v1::ConstraintDef scene_constraint;
  v1::Force force;
  v1::ForceDef scene_force;
  std::string name;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

std::string_view name_of(std::size_t length) {
  std::string& name = scratch().name;
  name.assign(length, 'n');
  return name;
}

// Scenes refer to bodies by name, each at most kSceneName characters.
BodyRefWriter longest_names() {
  return [](BodyId id, v1::BodyRef* out) {
    if (!id.is_null()) out->set_name(std::string(kSceneName, 'n'));
  };
}

std::uint32_t narrow(std::size_t n) { return static_cast<std::uint32_t>(std::min<std::size_t>(n, 0xffffffffu)); }

}  // namespace

std::uint64_t footprint_limit(std::uint64_t max_message_bytes) {
  return max_message_bytes > kAnswerOverhead ? max_message_bytes - kAnswerOverhead : 0;
}

std::string footprint_exceeded(std::uint64_t bytes, std::uint64_t limit) {
  return "the world's answers (a full frame, SaveScene) could then take " + std::to_string(bytes) +
         " bytes, over its limit of " + std::to_string(limit) +
         " (--max-message-bytes less " + std::to_string(kAnswerOverhead) +
         "); remove bodies, constraints or forces, or give names and polygons fewer characters and vertices";
}

std::uint32_t Footprint::body(const BodyDef& def, std::size_t name_length, int dimension) {
  BodyInfo info;
  info.kind = def.kind;
  info.motion = def.motion;
  // Mass and inertia left at 0 are resolved from the shape when the body is added.
  info.mass = def.mass != 0.0 ? def.mass : 1.0;
  info.inertia = def.inertia != 0.0 ? def.inertia : 1.0;
  info.shape = def.shape;
  info.linear_damping = def.linear_damping;
  info.angular_damping = def.angular_damping;
  return body(info, name_length, dimension);
}

std::uint32_t Footprint::body(const BodyInfo& info, std::size_t name_length, int dimension) {
  BodyInfo w = info;
  w.id = {kLongestId, kLongestId};
  w.position = w.velocity = worst(dimension);
  if (w.kind == BodyKind::rigid) w.angle = w.angular_velocity = 1.0;  // a particle's stay 0
  // The core re-centres a polygon on its centroid: any vertex may end up non-zero.
  if (auto* polygon = std::get_if<Polygon>(&w.shape))
    for (Vec2& v : polygon->vertices) v = Vec2(1, 1);
  // A segment's ends and a plane's normal may have any component non-zero.
  if (auto* segment = std::get_if<Segment>(&w.shape)) segment->a = segment->b = Vec2(1, 1);
  if (auto* plane = std::get_if<Plane>(&w.shape)) plane->normal = Vec3(1, 1, 1);
  v1::Body& b = scratch().body;
  b.Clear();
  // Counted under its name in a scene, which a world loaded from it keeps.
  const std::size_t name = name_length > 0 ? name_length : kGeneratedNameLength;
  body_to_proto(w, name_of(name), &b);
  // A frame: the body whole in the topology, then id, position, velocity, angle
  // and angular velocity in the packed columns. A scene: its definition alone.
  const std::size_t columns = 2 * 5 + 2 * 8 * static_cast<std::size_t>(dimension) + 2 * 8;
  return narrow(std::max(field(b.ByteSizeLong()) + columns, field(b.def().ByteSizeLong())));
}

int Footprint::rows(const ConstraintDef& def, int dimension) {
  return std::visit(Overload{
                        [&](const PinDef&) { return dimension; },
                        [&](const TrajectoryDef&) { return dimension; },
                        [&](const PointOnLineDef&) { return dimension - 1; },
                        [](const WeldDef&) { return 3; },
                        [](const auto&) { return 1; },
                    },
                    def);
}

std::uint32_t Footprint::constraint(const ConstraintDef& def, const Softness& softness, std::size_t name_length,
                                    int dimension) {
  ConstraintInfo info;
  info.id = {kLongestId, kLongestId};
  info.def = def;
  // A scene shifts a trajectory's path to the world's time: origin and phase may become anything.
  if (auto* t = std::get_if<TrajectoryDef>(&info.def)) t->path.origin = t->path.phase = Vec3(1, 1, 1);
  info.softness = softness;
  info.rows = rows(def, dimension);
  info.lambda = info.error = info.error_rate = std::vector<double>(static_cast<std::size_t>(info.rows), 1.0);
  info.on_a = info.on_b = Reaction{worst(dimension), 1.0};
  Scratch& s = scratch();
  s.constraint.Clear();
  constraint_to_proto(info, name_of(name_length), &s.constraint);
  // A frame: the constraint whole, and its id, row count, λ and error per row in the columns.
  const std::size_t frame = field(s.constraint.ByteSizeLong()) + 2 * 5 + 1 + 2 * 8 * static_cast<std::size_t>(info.rows);
  s.scene_constraint.Clear();
  constraint_def_to_proto(info.def, softness, name_of(name_length), longest_names(), &s.scene_constraint);
  return narrow(std::max(frame, field(s.scene_constraint.ByteSizeLong())));
}

std::uint32_t Footprint::force(const ForceDefAny& def) {
  Scratch& s = scratch();
  s.force.Clear();
  force_to_proto(ForceInfo{{kLongestId, kLongestId}, def}, &s.force);
  s.scene_force.Clear();
  force_def_to_proto(def, longest_names(), &s.scene_force);
  return narrow(std::max(field(s.force.ByteSizeLong()), field(s.scene_force.ByteSizeLong())));
}

Footprint Footprint::of(const World& world, const Names& names) {
  Footprint f;
  const int dimension = world.settings().dimension;
  for (const BodyId id : world.bodies())
    f.set(id, body(world.body(id).value(), names.body_name(id).size(), dimension));
  for (const ConstraintId id : world.constraints()) {
    const ConstraintInfo info = world.constraint(id).value();
    f.set(id, constraint(info.def, info.softness, names.constraint_name(id).size(), dimension));
  }
  for (const ForceId id : world.forces()) f.set(id, force(world.force(id).value().def));
  return f;
}

void Footprint::erase(BodyId id, const Removed& removed) {
  erase(id);
  for (const ConstraintId c : removed.constraints) erase(c);
  for (const ForceId f : removed.forces) erase(f);
}

void Footprint::put(std::vector<std::uint32_t>& table, std::uint32_t index, std::uint32_t bytes) {
  if (index >= table.size()) {
    if (bytes == 0) return;
    table.resize(std::max<std::size_t>(index + 1, table.size() * 2));
  }
  total_ = total_ - table[index] + bytes;
  table[index] = bytes;
}

}  // namespace linkage::server
