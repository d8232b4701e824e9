// A world's state as bytes. One description per record lists its fields
// (`describe`), and serves both directions: the Writer appends what it reads
// through it, the Reader fills it in. The Reader checks every length against
// the bytes left before it allocates, and check_decoded checks what it read
// against what the rest of the core assumes (invariants.hpp) before any of
// it is used.
#include "linkage/snapshot.hpp"

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "constraints/constraint.hpp"
#include "world_data.hpp"
#include "world_internal.hpp"

namespace linkage {
namespace {

constexpr char kMagic[4] = {'L', 'N', 'K', 'W'};
constexpr std::uint32_t kByteOrder = 0x01020304;
// Magic, byte order, format, payload length; the checksum follows the payload.
constexpr std::size_t kHeader = 4 + 4 + 4 + 8;

std::uint64_t checksum(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The largest value of each enum the format holds: a decoded enum beyond it
// is corrupt.
template <class E>
constexpr int kEnumMax = -1;
template <> constexpr int kEnumMax<Integrator> = static_cast<int>(Integrator::velocity_verlet);
template <> constexpr int kEnumMax<LinearSolver> = static_cast<int>(LinearSolver::gauss_seidel);
template <> constexpr int kEnumMax<Dynamics> = static_cast<int>(Dynamics::sequential_impulses);
template <> constexpr int kEnumMax<Projection> = static_cast<int>(Projection::nearest);
template <> constexpr int kEnumMax<BodyKind> = static_cast<int>(BodyKind::rigid);
template <> constexpr int kEnumMax<Motion> = static_cast<int>(Motion::kinematic);
template <> constexpr int kEnumMax<MotorKind> = static_cast<int>(MotorKind::linear);
template <> constexpr int kEnumMax<SolverPath> = static_cast<int>(SolverPath::sequential);

// A parameter that is T, const or not: one description serves the Writer
// (which reads through a const record) and the Reader (which fills one in).
template <class P, class T>
concept Of = std::same_as<std::remove_const_t<P>, T>;

// --- what each record holds, in the order it is written ---

template <class A> void describe(A& a, Of<WorldSettings> auto& s) {
  a(s.dimension, s.gravity, s.dt, s.substeps, s.integrator, s.solver, s.feedback_stiffness, s.feedback_damping,
    s.solver_tolerance, s.solver_max_iterations, s.regularization, s.warm_start, s.threads, s.dynamics, s.baumgarte,
    s.velocity_iterations, s.relax_iterations, s.position_iterations, s.max_translation, s.max_rotation,
    s.max_correction, s.project_positions, s.project_velocities, s.projection, s.projection_tolerance,
    s.projection_max_iterations, s.contacts, s.contact_margin, s.contact_slop, s.restitution_threshold);
}
template <class A> void describe(A&, Of<NoShape> auto&) {}
template <class A> void describe(A& a, Of<Disk> auto& s) { a(s.radius); }
template <class A> void describe(A& a, Of<Box> auto& s) { a(s.half_width, s.half_height); }
template <class A> void describe(A& a, Of<Polygon> auto& s) { a(s.vertices); }
template <class A> void describe(A& a, Of<Capsule> auto& s) { a(s.radius, s.half_length); }
template <class A> void describe(A& a, Of<Segment> auto& s) { a(s.a, s.b); }
template <class A> void describe(A& a, Of<Plane> auto& s) { a(s.normal); }
template <class A> void describe(A& a, Of<Material> auto& m) { a(m.friction, m.restitution); }
template <class A> void describe(A& a, Of<Filter> auto& f) { a(f.category, f.mask, f.group); }
template <class A> void describe(A& a, Of<BodyRecord> auto& r) {
  a(r.id, r.kind, r.motion, r.offset, r.dof, r.mass, r.inertia, r.inv_mass, r.inv_inertia, r.shape, r.linear_damping,
    r.angular_damping, r.material, r.filter);
}
template <class A> void describe(A& a, Of<ContactRecord> auto& c) {
  a(c.a, c.b, c.feature, c.point, c.normal, c.separation, c.normal_impulse, c.friction_impulse);
}
template <class A> void describe(A& a, Of<DistanceDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.length); }
template <class A> void describe(A& a, Of<RopeDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.max_length); }
template <class A> void describe(A& a, Of<PinDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b); }
template <class A> void describe(A& a, Of<PointOnLineDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.axis); }
template <class A> void describe(A& a, Of<PointOnCircleDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.radius); }
template <class A> void describe(A& a, Of<PointOnPlaneDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.normal); }
template <class A> void describe(A& a, Of<WeldDef> auto& c) { a(c.a, c.b, c.anchor_a, c.anchor_b, c.angle); }
template <class A> void describe(A& a, Of<RelativeAngleDef> auto& c) { a(c.a, c.b, c.angle); }
template <class A> void describe(A& a, Of<GearDef> auto& c) { a(c.a, c.b, c.radius_a, c.radius_b, c.offset); }
template <class A> void describe(A& a, Of<RackAndPinionDef> auto& c) {
  a(c.rack, c.pinion, c.anchor, c.axis, c.radius, c.offset);
}
template <class A> void describe(A& a, Of<MotorDef> auto& c) { a(c.a, c.b, c.kind, c.speed, c.axis, c.max_force); }
template <class A> void describe(A& a, Of<Path> auto& p) { a(p.origin, p.velocity, p.amplitude, p.frequency, p.phase); }
template <class A> void describe(A& a, Of<TrajectoryDef> auto& c) { a(c.body, c.anchor, c.path); }
template <class A> void describe(A& a, Of<Softness> auto& s) { a(s.frequency, s.damping_ratio); }
template <class A> void describe(A& a, Of<Reaction> auto& r) { a(r.force, r.torque); }
template <class A> void describe(A& a, Of<ConstraintRecord> auto& c) {
  a(c.id, c.def, c.softness, c.rows, c.body_a, c.body_b);
}
template <class A> void describe(A& a, Of<ConstraintState> auto& c) { a(c.lambda, c.on_a, c.on_b, c.warm); }
template <class A> void describe(A& a, Of<SpringDef> auto& f) {
  a(f.a, f.b, f.anchor_a, f.anchor_b, f.stiffness, f.damping, f.rest_length);
}
template <class A> void describe(A& a, Of<ForceDef> auto& f) { a(f.body, f.force, f.point, f.torque, f.steps); }
template <class A> void describe(A& a, Of<ForceRecord> auto& f) { a(f.id, f.def, f.body_a, f.body_b); }
template <class A> void describe(A& a, Of<StageTimes> auto& t) { a(t.seconds); }
template <class A> void describe(A& a, Of<StepDiagnostics> auto& d) {
  a(d.step, d.time, d.max_error, d.rms_error, d.max_error_rate, d.rms_error_rate, d.kinetic_energy,
    d.gravitational_energy, d.spring_energy, d.linear_momentum, d.angular_momentum, d.solver_iterations,
    d.solver_residual, d.rank_deficiency, d.projection_iterations, d.projection_capped, d.projection_error,
    d.factorizations, d.solves, d.pcg_iterations, d.solver_path, d.stage_seconds, d.step_seconds);
}
template <class A> void describe(A& a, Of<WorldModel> auto& m) {
  a(m.settings, m.body_ids, m.bodies, m.constraint_ids, m.constraints, m.force_ids, m.forces, m.topology_version,
    m.model_version, m.settings_version);
}
template <class A> void describe(A& a, Of<WorldData> auto& d) {
  a(d.q, d.v, d.constraints, d.steps_left, d.contacts, d.time, d.steps, d.diagnostics);
}

template <class T>
concept Archived = requires(T& x, int& a) { x.archive(a); };

class Writer {
 public:
  template <class... T>
  void operator()(const T&... x) {
    (put(x), ...);
  }
  std::string bytes;

 private:
  void raw(const void* p, std::size_t n) {
    if (n > 0) bytes.append(static_cast<const char*>(p), n);  // an empty vector's data() may be null
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  void put(T x) {
    raw(&x, sizeof x);
  }
  template <class T>
    requires std::is_enum_v<T>
  void put(T x) {
    put(static_cast<std::int32_t>(x));
  }
  template <class Tag>
  void put(Id<Tag> id) {
    put(id.index);
    put(id.generation);
  }
  void put(const Vec2& v) { raw(v.data(), sizeof(double) * 2); }
  void put(const Vec3& v) { raw(v.data(), sizeof(double) * 3); }
  void put(const Eigen::VectorXd& v) {
    put(static_cast<std::uint64_t>(v.size()));
    raw(v.data(), sizeof(double) * static_cast<std::size_t>(v.size()));
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    for (const T& x : v) put(x);
  }
  template <class T, std::size_t N>
  void put(const std::array<T, N>& v) {
    for (const T& x : v) put(x);
  }
  template <class... T>
  void put(const std::variant<T...>& v) {
    put(static_cast<std::uint32_t>(v.index()));
    std::visit([&](const auto& x) { put(x); }, v);
  }
  template <class T>
    requires Archived<T>
  void put(const T& x) {
    // archive() reads and writes; a writer only reads through it.
    const_cast<T&>(x).archive(*this);
  }
  template <class T>
    requires(std::is_class_v<T> && !Archived<T>)
  void put(const T& x) {
    describe(*this, x);
  }
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  template <class... T>
  void operator()(T&... x) {
    (get(x), ...);
  }
  // The first thing that was wrong, or empty.
  const std::string& failure() const { return failure_; }
  std::size_t left() const { return in_.size(); }

 private:
  void fail(std::string what) {
    if (failure_.empty()) failure_ = std::move(what);
    in_ = {};
  }
  bool raw(void* p, std::size_t n) {
    if (n == 0) return true;  // an empty vector's data() may be null, which memcpy must not see
    if (in_.size() < n) {
      fail("the bytes end inside a record (truncated)");
      std::memset(p, 0, n);
      return false;
    }
    std::memcpy(p, in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  // A count of elements of at least `each` bytes that the bytes left can hold.
  std::size_t count(std::size_t each) {
    std::uint64_t n = 0;
    raw(&n, sizeof n);
    if (n > in_.size() / each) {
      fail("a length of " + std::to_string(n) + " is more than the bytes left hold");
      return 0;
    }
    return static_cast<std::size_t>(n);
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  void get(T& x) {
    raw(&x, sizeof x);
  }
  void get(bool& x) {
    std::uint8_t b = 0;
    raw(&b, 1);
    if (b > 1) fail("a flag is neither 0 nor 1");
    x = b == 1;
  }
  template <class T>
    requires std::is_enum_v<T>
  void get(T& x) {
    static_assert(kEnumMax<T> >= 0, "every enum the format holds has its largest value listed");
    std::int32_t v = 0;
    get(v);
    if (v < 0 || v > kEnumMax<T>) fail("an enum value " + std::to_string(v) + " is out of range");
    x = static_cast<T>(v < 0 || v > kEnumMax<T> ? 0 : v);
  }
  template <class Tag>
  void get(Id<Tag>& id) {
    get(id.index);
    get(id.generation);
  }
  void get(Vec2& v) { raw(v.data(), sizeof(double) * 2); }
  void get(Vec3& v) { raw(v.data(), sizeof(double) * 3); }
  void get(Eigen::VectorXd& v) {
    v.resize(static_cast<Eigen::Index>(count(sizeof(double))));
    raw(v.data(), sizeof(double) * static_cast<std::size_t>(v.size()));
  }
  template <class T>
  void get(std::vector<T>& v) {
    v.clear();
    v.resize(count(1));  // every element takes at least a byte
    for (T& x : v) get(x);
  }
  template <class T, std::size_t N>
  void get(std::array<T, N>& v) {
    for (T& x : v) get(x);
  }
  template <class... T>
  void get(std::variant<T...>& v) {
    std::uint32_t index = 0;
    get(index);
    if (index >= sizeof...(T)) {
      fail("a variant's alternative " + std::to_string(index) + " does not exist");
      return;
    }
    emplace(v, index, std::index_sequence_for<T...>{});
    std::visit([&](auto& x) { get(x); }, v);
  }
  template <class V, std::size_t... I>
  static void emplace(V& v, std::size_t index, std::index_sequence<I...>) {
    ((index == I ? (void)v.template emplace<I>() : void()), ...);
  }
  template <class T>
    requires Archived<T>
  void get(T& x) {
    x.archive(*this);
  }
  template <class T>
    requires(std::is_class_v<T> && !Archived<T>)
  void get(T& x) {
    describe(*this, x);
  }

  std::string_view in_;
  std::string failure_;
};

// About the bytes as a whole: no field of a def is at fault.
Error corrupt(const std::string& what) { return Error{ErrorCode::invalid_argument, "snapshot: " + what}; }

int dof_of(BodyKind kind, int dimension) { return kind == BodyKind::rigid ? 3 : dimension; }

// What the rest of the core assumes of a world (invariants.hpp), checked on
// untrusted data: the first thing that does not hold, or ok.
Status check_decoded(const WorldModel& m, const WorldData& d) {
  if (Status s = validate(m.settings); !s) return corrupt("settings: " + s.error().message);
  const int dimension = m.settings.dimension;
  const int bodies = static_cast<int>(m.bodies.size());
  if (!m.body_ids.consistent(m.bodies.size())) return corrupt("the body ids do not match the bodies");
  int offset = 0;
  for (int i = 0; i < bodies; ++i) {
    const BodyRecord& b = m.bodies[static_cast<std::size_t>(i)];
    if (m.body_ids.find(b.id) != i) return corrupt("body " + std::to_string(i) + ": its id does not name it");
    if (b.offset != offset || b.dof != dof_of(b.kind, dimension))
      return corrupt("body " + std::to_string(i) + ": its DOF do not follow the previous body's");
    if (b.kind == BodyKind::rigid && dimension != 2) return corrupt("a rigid body in a 3D world");
    offset += b.dof;
  }
  if (d.q.size() != offset || d.v.size() != offset) return corrupt("q and q̇ do not hold the bodies' DOF");
  if (d.constraints.size() != m.constraints.size()) return corrupt("the constraints' data do not match the constraints");
  if (d.steps_left.size() != m.forces.size()) return corrupt("the forces' data do not match the forces");
  for (const ContactRecord& c : d.contacts)
    if (m.body_ids.find(c.a) < 0 || m.body_ids.find(c.b) < 0) return corrupt("a contact names a body the world does not hold");

  auto index = [&](BodyId id) { return id.is_null() ? -1 : m.body_ids.find(id); };
  auto facts = [&](int i) {
    if (i < 0) return BodyFacts{};
    const BodyRecord& r = m.bodies[static_cast<std::size_t>(i)];
    return BodyFacts{true, r.kind == BodyKind::rigid, r.motion == Motion::dynamic};
  };
  if (!m.constraint_ids.consistent(m.constraints.size())) return corrupt("the constraint ids do not match the constraints");
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const ConstraintRecord& c = m.constraints[i];
    const std::string which = "constraint " + std::to_string(i) + ": ";
    if (m.constraint_ids.find(c.id) != static_cast<int>(i)) return corrupt(which + "its id does not name it");
    const BodyPair pair = constraint_bodies(c.def);
    const int a = index(pair.a), b = index(pair.b);
    if ((!pair.a.is_null() && a < 0) || (!pair.b.is_null() && b < 0) || a != c.body_a || b != c.body_b)
      return corrupt(which + "it names bodies the world does not hold");
    if (Status s = validate_constraint(c.def, dimension, facts(a), facts(b)); !s)
      return corrupt(which + s.error().message);
    if (c.rows != constraint_rows(c.def, dimension)) return corrupt(which + "its row count is wrong for its type");
  }
  if (!m.force_ids.consistent(m.forces.size())) return corrupt("the force ids do not match the forces");
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    const ForceRecord& f = m.forces[i];
    const std::string which = "force " + std::to_string(i) + ": ";
    if (m.force_ids.find(f.id) != static_cast<int>(i)) return corrupt(which + "its id does not name it");
    const BodyPair pair = std::visit(
        [](const auto& def) {
          if constexpr (std::is_same_v<std::decay_t<decltype(def)>, SpringDef>) return BodyPair{def.a, def.b};
          else return BodyPair{def.body, BodyId{}};
        },
        f.def);
    const int a = index(pair.a), b = index(pair.b);
    if (a < 0 || (!pair.b.is_null() && b < 0) || a != f.body_a || b != f.body_b)
      return corrupt(which + "it names bodies the world does not hold");
    const auto* applied = std::get_if<ForceDef>(&f.def);
    const int given = applied ? applied->steps : 0, left = d.steps_left[i];
    if (given < 0 || (given == 0 ? left != 0 : left < 1 || left > given))
      return corrupt(which + "its steps left do not fit its steps");
  }
  return ok_status();
}

}  // namespace

std::string encode(const WorldState& state) {
  Writer payload;
  if (state.parts_) payload(*state.parts_->model, state.parts_->data);
  else payload(WorldModel{}, WorldData{});
  std::string out;
  out.reserve(kHeader + payload.bytes.size() + 8);
  auto append = [&](const auto& x) { out.append(reinterpret_cast<const char*>(&x), sizeof x); };
  out.append(kMagic, 4);
  append(kByteOrder);
  append(static_cast<std::uint32_t>(kSnapshotFormat));
  append(static_cast<std::uint64_t>(payload.bytes.size()));
  out += payload.bytes;
  append(checksum(payload.bytes));
  return out;
}

Result<WorldState> decode(std::string_view bytes) {
  if (bytes.size() < kHeader + 8) return corrupt("too short to be a snapshot (" + std::to_string(bytes.size()) + " bytes)");
  if (std::memcmp(bytes.data(), kMagic, 4) != 0) return corrupt("not a linkage world snapshot (wrong magic)");
  std::uint32_t order = 0, format = 0;
  std::uint64_t length = 0;
  std::memcpy(&order, bytes.data() + 4, 4);
  std::memcpy(&format, bytes.data() + 8, 4);
  std::memcpy(&length, bytes.data() + 12, 8);
  if (order != kByteOrder) return corrupt("written on a machine of the other byte order");
  if (format != kSnapshotFormat)
    return corrupt("format " + std::to_string(format) + ", this build reads format " + std::to_string(kSnapshotFormat));
  if (length != bytes.size() - kHeader - 8)
    return corrupt("the payload is " + std::to_string(bytes.size() - kHeader - 8) + " bytes, the header says " +
                   std::to_string(length) + " (truncated or extended)");
  const std::string_view payload = bytes.substr(kHeader, length);
  std::uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + kHeader + length, 8);
  if (sum != checksum(payload)) return corrupt("the checksum does not match (the bytes are corrupt)");

  auto model = std::make_shared<WorldModel>();
  WorldData data;
  Reader in(payload);
  in(*model, data);
  if (!in.failure().empty()) return corrupt(in.failure());
  if (in.left() != 0) return corrupt(std::to_string(in.left()) + " bytes left over after the world");
  if (Status s = check_decoded(*model, data); !s) return s.error();
  WorldState state;
  state.parts_ = std::make_unique<WorldParts>();
  state.parts_->model = std::move(model);
  state.parts_->data = std::move(data);
  return state;
}

}  // namespace linkage
