// Flag values: vectors, ids, enums, files.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::uint32_t to_u32(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s)); }

}  // namespace

const lc::Client& Context::client() {
  if (!client_) {
    lc::ConnectOptions options;
    const auto ms = std::chrono::milliseconds(static_cast<long long>(timeout * 1000.0));
    options.connect_timeout = ms;
    options.call_timeout = ms;
    secure(options);
    client_.emplace(must(lc::Client::connect(server, options)));
  }
  return *client_;
}

lc::Vec3 parse_vec(const std::string& text, const std::string& flag) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || end == part.c_str() || *end != '\0')
      bad_flag(flag + ": '" + text + "' is not a vector; write x,y or x,y,z (e.g. 1,0)");
    values.push_back(v);
  }
  if (values.size() < 2 || values.size() > 3)
    bad_flag(flag + ": '" + text + "' is not a vector; write x,y or x,y,z (e.g. 1,0)");
  return {values[0], values[1], values.size() == 3 ? values[2] : 0.0};
}

std::optional<lc::Id> parse_full_id(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string index = text.substr(0, colon), generation = text.substr(colon + 1);
  if (!all_digits(index) || !all_digits(generation) || index.size() > 9 || generation.size() > 9) return std::nullopt;
  return lc::Id{to_u32(index), to_u32(generation)};
}

lc::BodyRef body_ref(Context& ctx, const std::string& text, const std::string& flag) {
  if (text.empty() || text == "world") return lc::BodyRef::world();
  if (auto id = parse_full_id(text)) return *id;
  if (all_digits(text) && text.size() <= 9) {
    // An index alone: the live body there. Ids are never reused, so at most
    // one live body has a given index.
    const std::uint32_t index = to_u32(text);
    for (const v1::Body& b : must(ctx.client().list_bodies(ctx.world)))
      if (b.id().index() == index) return lc::Id{index, b.id().generation()};
    fail(grpc::StatusCode::NOT_FOUND, flag + ": no body with index " + text + " in world '" + ctx.world + "'");
  }
  return lc::BodyRef(text);
}

lc::BodyRef some_body(Context& ctx, const std::string& text, const std::string& flag) {
  lc::BodyRef ref = body_ref(ctx, text, flag);
  if (ref.is_world()) bad_flag(flag + ": name a body (an id such as 3 or 3:1, or its name)");
  return ref;
}

lc::Id constraint_id(Context& ctx, const std::string& text) {
  if (auto id = parse_full_id(text)) return *id;
  const bool index = all_digits(text) && text.size() <= 9;
  for (const v1::Constraint& c : must(ctx.client().list_constraints(ctx.world)))
    if ((index && c.id().index() == to_u32(text)) || (!index && c.def().name() == text))
      return {c.id().index(), c.id().generation()};
  fail(grpc::StatusCode::NOT_FOUND, "constraint: no constraint " + std::string(index ? "with index " : "named ") +
                                        text + " in world '" + ctx.world + "'");
}

lc::Id force_id(Context& ctx, const std::string& text) {
  if (auto id = parse_full_id(text)) return *id;
  if (!all_digits(text) || text.size() > 9)
    bad_flag("force: '" + text + "' is not a force id; write 3 or 3:1 (forces have no names)");
  for (const v1::Force& f : must(ctx.client().list_forces(ctx.world)))
    if (f.id().index() == to_u32(text)) return {f.id().index(), f.id().generation()};
  fail(grpc::StatusCode::NOT_FOUND, "force: no force with index " + text + " in world '" + ctx.world + "'");
}

lc::Integrator parse_integrator(const std::string& t) {
  if (t == "euler" || t == "explicit-euler" || t == "explicit_euler") return lc::Integrator::explicit_euler;
  if (t == "semi-implicit-euler" || t == "semi_implicit_euler" || t == "symplectic-euler")
    return lc::Integrator::semi_implicit_euler;
  if (t == "midpoint") return lc::Integrator::midpoint;
  if (t == "rk4") return lc::Integrator::rk4;
  if (t == "verlet" || t == "velocity-verlet" || t == "velocity_verlet") return lc::Integrator::velocity_verlet;
  bad_flag("--integrator: '" + t + "' is not one of euler, semi-implicit-euler, midpoint, rk4, verlet");
}

lc::LinearSolver parse_solver(const std::string& t) {
  if (t == "cg" || t == "conjugate-gradient" || t == "conjugate_gradient") return lc::LinearSolver::conjugate_gradient;
  if (t == "ldlt") return lc::LinearSolver::ldlt;
  if (t == "gs" || t == "gauss-seidel" || t == "gauss_seidel") return lc::LinearSolver::gauss_seidel;
  bad_flag("--solver: '" + t + "' is not one of cg, ldlt, gs");
}

lc::Dynamics parse_dynamics(const std::string& t) {
  if (t == "force" || t == "force-based" || t == "force_based") return lc::Dynamics::force_based;
  if (t == "projection" || t == "velocity-projection" || t == "velocity_projection")
    return lc::Dynamics::velocity_projection;
  if (t == "impulses" || t == "sequential-impulses" || t == "sequential_impulses")
    return lc::Dynamics::sequential_impulses;
  bad_flag("--dynamics: '" + t + "' is not one of force-based, velocity-projection, sequential-impulses");
}

lc::Motion parse_motion(const std::string& t) {
  if (t == "dynamic") return lc::Motion::dynamic;
  if (t == "fixed" || t == "static") return lc::Motion::fixed;
  if (t == "kinematic") return lc::Motion::kinematic;
  bad_flag("--motion: '" + t + "' is not one of dynamic, fixed, kinematic");
}

lc::BodyKind parse_kind(const std::string& t) {
  if (t == "particle") return lc::BodyKind::particle;
  if (t == "rigid") return lc::BodyKind::rigid;
  bad_flag("--kind: '" + t + "' is not one of particle, rigid");
}

std::string read_file(const std::string& path) {
  if (path == "-") return {std::istreambuf_iterator<char>(std::cin), {}};
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(grpc::StatusCode::NOT_FOUND, path + ": cannot open it for reading");
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::string& path, const std::string& text) {
  if (path == "-" || path.empty()) {
    std::cout << text << "\n";
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text << "\n";
  if (!out) fail(grpc::StatusCode::PERMISSION_DENIED, path + ": cannot write it");
}

}  // namespace linkage::linkctl
