// Human output (tables, one-line answers) and JSON (the proto3 JSON mapping,
// field names as in the .proto files, one document per command).
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "linkage/client/proto.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {

void print_json(const google::protobuf::Message& message) { std::cout << lc::to_json(message) << "\n"; }

std::string id_text(const v1::Id& id) { return std::to_string(id.index()) + ":" + std::to_string(id.generation()); }

std::string ref_text(const v1::BodyRef& ref) {
  if (ref.has_id() && ref.id().generation() != 0) return id_text(ref.id());
  if (!ref.name().empty()) return ref.name();
  return "world";
}

std::string num(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return std::string(buf) == "-0" ? "0" : buf;
}

std::string vec_text(const v1::Vec3& v, int dimension) {
  std::string s = num(v.x()) + "," + num(v.y());
  if (dimension == 3) s += "," + num(v.z());
  return s;
}

namespace {

// Columns are counted in characters, not bytes: "λ" and "²" are one each.
std::size_t width_of(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = width_of(header[i]);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], width_of(row[i]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      out += cells[i];
      if (i + 1 < cells.size()) out += std::string(width[i] - width_of(cells[i]) + 2, ' ');
    }
    std::cout << out << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
}

namespace {

const char* integrator_name(v1::Integrator i) {
  switch (i) {
    case v1::INTEGRATOR_EXPLICIT_EULER: return "euler";
    case v1::INTEGRATOR_SEMI_IMPLICIT_EULER: return "semi-implicit-euler";
    case v1::INTEGRATOR_MIDPOINT: return "midpoint";
    case v1::INTEGRATOR_RK4: return "rk4";
    case v1::INTEGRATOR_VELOCITY_VERLET: return "verlet";
    default: return "-";
  }
}

const char* solver_name(v1::LinearSolver s) {
  switch (s) {
    case v1::LINEAR_SOLVER_CONJUGATE_GRADIENT: return "cg";
    case v1::LINEAR_SOLVER_LDLT: return "ldlt";
    case v1::LINEAR_SOLVER_GAUSS_SEIDEL: return "gs";
    default: return "-";
  }
}

const char* dynamics_name(v1::Dynamics d) {
  switch (d) {
    case v1::DYNAMICS_FORCE_BASED: return "force-based";
    case v1::DYNAMICS_VELOCITY_PROJECTION: return "velocity-projection";
    case v1::DYNAMICS_SEQUENTIAL_IMPULSES: return "sequential-impulses";
    default: return "-";
  }
}

std::string motion_name(v1::Motion m) {
  switch (m) {
    case v1::MOTION_FIXED: return "fixed";
    case v1::MOTION_KINEMATIC: return "kinematic";
    default: return "dynamic";
  }
}

// Both body references of a constraint, "a→b".
template <class Msg>
std::string pair(const Msg& m) {
  return ref_text(m.a()) + "," + ref_text(m.b());
}

std::string constraint_bodies(const v1::ConstraintDef& d) {
  switch (d.type_case()) {
    case v1::ConstraintDef::kDistance: return pair(d.distance());
    case v1::ConstraintDef::kRope: return pair(d.rope());
    case v1::ConstraintDef::kPin: return pair(d.pin());
    case v1::ConstraintDef::kPointOnLine: return pair(d.point_on_line());
    case v1::ConstraintDef::kPointOnCircle: return pair(d.point_on_circle());
    case v1::ConstraintDef::kPointOnPlane: return pair(d.point_on_plane());
    case v1::ConstraintDef::kWeld: return pair(d.weld());
    case v1::ConstraintDef::kRelativeAngle: return pair(d.relative_angle());
    case v1::ConstraintDef::kGear: return pair(d.gear());
    case v1::ConstraintDef::kRackAndPinion:
      return ref_text(d.rack_and_pinion().rack()) + "," + ref_text(d.rack_and_pinion().pinion());
    case v1::ConstraintDef::kMotor: return pair(d.motor());
    case v1::ConstraintDef::kTrajectory: return ref_text(d.trajectory().body());
    default: return "-";
  }
}

}  // namespace

std::string constraint_type(const v1::ConstraintDef& d) {
  switch (d.type_case()) {
    case v1::ConstraintDef::kDistance: return "distance";
    case v1::ConstraintDef::kRope: return "rope";
    case v1::ConstraintDef::kPin: return "pin";
    case v1::ConstraintDef::kPointOnLine: return "point-on-line";
    case v1::ConstraintDef::kPointOnCircle: return "point-on-circle";
    case v1::ConstraintDef::kPointOnPlane: return "point-on-plane";
    case v1::ConstraintDef::kWeld: return "weld";
    case v1::ConstraintDef::kRelativeAngle: return "relative-angle";
    case v1::ConstraintDef::kGear: return "gear";
    case v1::ConstraintDef::kRackAndPinion: return "rack-and-pinion";
    case v1::ConstraintDef::kMotor: return "motor";
    case v1::ConstraintDef::kTrajectory: return "trajectory";
    default: return "-";
  }
}

std::string world_state(const v1::World& w) {
  switch (w.halt().reason()) {
    case v1::HALT_REASON_WATCHDOG: return "halted (watchdog)";
    case v1::HALT_REASON_DIVERGED: return "halted (diverged)";
    default: return w.paused() ? "paused" : "running";
  }
}

std::string step_end_text(v1::StepEnd end) {
  switch (end) {
    case v1::STEP_END_DEADLINE: return "the call's deadline came";
    case v1::STEP_END_RESUMED: return "the world was resumed";
    case v1::STEP_END_HALTED: return "the world paused itself";
    default: return "done";
  }
}

void print_world(const v1::World& w) {
  const v1::WorldSettings& s = w.settings();
  std::cout << "world:        " << w.name() << " (" << world_state(w) << ")\n";
  if (w.has_halt()) std::cout << "halted:       " << w.halt().message() << "\n";
  std::cout << "tick:         " << w.tick() << " (t = " << num(w.time()) << " s)\n"
            << "bodies:       " << w.body_count() << "\n"
            << "constraints:  " << w.constraint_count() << "\n"
            << "forces:       " << w.force_count() << "\n"
            << "topology:     version " << w.topology_version() << "\n"
            << "overruns:     " << w.overruns() << " (last step " << num(w.step_seconds() * 1000.0) << " ms)\n"
            << "halts:        " << w.watchdog_halts() << " by the watchdog, " << w.divergences() << " diverged\n"
            << "subscribers:  " << w.subscribers() << "\n"
            << "dimension:    " << s.dimension() << "\n"
            << "gravity:      " << vec_text(s.gravity()) << " m/s²\n"
            << "tick rate:    " << num(s.tick_rate()) << " Hz, " << s.substeps() << " substep(s)\n"
            << "dynamics:     " << dynamics_name(s.dynamics()) << "\n"
            << "integrator:   " << integrator_name(s.integrator()) << "\n"
            << "solver:       " << solver_name(s.solver()) << " (tolerance " << num(s.solver_tolerance())
            << ", at most " << s.solver_max_iterations() << " iterations)\n"
            << "feedback:     k_s " << num(s.feedback_stiffness()) << " 1/s², k_d " << num(s.feedback_damping())
            << " 1/s\n"
            << "projection:   positions " << (s.project_positions() ? "on" : "off") << ", velocities "
            << (s.project_velocities() ? "on" : "off") << "\n"
            << "limits:       " << w.limits().max_bodies() << " bodies, " << w.limits().max_constraints()
            << " constraints, " << w.limits().max_forces() << " forces, max error "
            << (w.limits().max_error() > 0.0 ? num(w.limits().max_error()) : "none") << "\n";
}

void print_worlds(const std::vector<v1::World>& worlds) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::World& w : worlds)
    rows.push_back({w.name(), world_state(w), std::to_string(w.tick()), num(w.time()),
                    std::to_string(w.settings().dimension()), std::to_string(w.body_count()),
                    std::to_string(w.constraint_count()), std::to_string(w.force_count()),
                    integrator_name(w.settings().integrator()), solver_name(w.settings().solver()),
                    std::to_string(w.subscribers())});
  print_table({"NAME", "STATE", "TICK", "TIME", "DIM", "BODIES", "CONSTRAINTS", "FORCES", "INTEGRATOR", "SOLVER",
               "SUBSCRIBERS"},
              rows);
}

void print_bodies(const std::vector<v1::Body>& bodies) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::Body& b : bodies) {
    const v1::BodyDef& d = b.def();
    rows.push_back({id_text(b.id()), d.name().empty() ? "-" : d.name(),
                    d.kind() == v1::BODY_KIND_RIGID ? "rigid" : "particle", motion_name(d.motion()),
                    vec_text(d.position()), num(d.angle()), vec_text(d.velocity()), num(d.mass())});
  }
  print_table({"ID", "NAME", "KIND", "MOTION", "POSITION", "ANGLE", "VELOCITY", "MASS"}, rows);
}

void print_constraints(const std::vector<v1::Constraint>& constraints) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::Constraint& c : constraints) {
    double err = 0.0;
    for (double e : c.error()) err = std::max(err, std::abs(e));
    std::string lambda;
    for (double l : c.lambda()) lambda += (lambda.empty() ? "" : ",") + num(l);
    rows.push_back({id_text(c.id()), c.def().name().empty() ? "-" : c.def().name(), constraint_type(c.def()),
                    constraint_bodies(c.def()), std::to_string(c.lambda_size()), num(err),
                    lambda.empty() ? "-" : lambda});
  }
  print_table({"ID", "NAME", "TYPE", "BODIES", "ROWS", "MAX|C|", "LAMBDA"}, rows);
}

void print_forces(const std::vector<v1::Force>& forces) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::Force& f : forces) {
    if (f.def().has_spring()) {
      const v1::Spring& s = f.def().spring();
      rows.push_back({id_text(f.id()), "spring", ref_text(s.a()) + "," + ref_text(s.b()),
                      "k=" + num(s.stiffness()) + " c=" + num(s.damping()) + " L=" + num(s.rest_length()), "-"});
    } else {
      const v1::AppliedForce& a = f.def().applied();
      rows.push_back({id_text(f.id()), "applied", ref_text(a.body()),
                      "F=" + vec_text(a.force()) + " τ=" + num(a.torque()),
                      f.ticks_left() == 0 ? "until removed" : std::to_string(f.ticks_left())});
    }
  }
  print_table({"ID", "TYPE", "BODIES", "DETAILS", "TICKS LEFT"}, rows);
}

void print_created(Context& ctx, const std::string& what, const lc::Id& id) {
  if (ctx.json) {
    v1::CreateBodyResponse r;  // {"id": {...}}, the shape every Create/Add answer has
    *r.mutable_id() = lc::to_proto(id);
    print_json(r);
  } else {
    std::cout << "created " << what << " " << id.to_string() << "\n";
  }
}

void print_world_line(Context& ctx, const std::string& what, const v1::World& w) {
  if (ctx.json) {
    v1::GetWorldResponse r;
    *r.mutable_world() = w;
    print_json(r);
  } else {
    std::cout << "world " << w.name() << ": " << what << ", " << world_state(w) << " at tick "
              << w.tick() << " (t = " << num(w.time()) << " s), " << w.body_count() << " bodies, "
              << w.constraint_count() << " constraints\n";
  }
}

void print_details(const std::string& title, const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.SetUseShortRepeatedPrimitives(true);
  printer.PrintToString(message, &text);
  std::cout << title << "\n";
  std::string indented = "  ";
  for (char c : text) {
    indented += c;
    if (c == '\n') indented += "  ";
  }
  while (!indented.empty() && (indented.back() == ' ' || indented.back() == '\n')) indented.pop_back();
  std::cout << indented << "\n";
}

CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description,
                  const std::string& examples) {
  CLI::App* app = parent.add_subcommand(name, description);
  // Global flags (--json, --world, ...) may come after the verb too.
  app->fallthrough();
  if (!examples.empty()) app->footer("\nExamples:\n" + examples);
  return app;
}

}  // namespace linkage::linkctl
