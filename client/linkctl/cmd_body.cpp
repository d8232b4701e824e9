// body add|add-many|list|get|update|remove.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "linkage/client/proto.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

// The flags that describe a body, for `add` (all of them, defaults for the
// rest) and `update` (only those given change the body's current def).
struct BodyFlags {
  std::string name, pos, vel, kind, motion, box, polygon;
  double angle = 0, angular_velocity = 0, mass = 0, inertia = 0, density = 1, disk = 0, linear_damping = 0,
         angular_damping = 0;
  bool rigid = false;

  void add(CLI::App* app) {
    app->add_option("--name", name, "unique in the world; constraints may name the body by it");
    app->add_option("--pos", pos, "position of the centre of mass, m: x,y[,z] (negative: --pos=-1,0)");
    app->add_option("--vel", vel, "velocity, m/s: x,y[,z]");
    app->add_option("--angle", angle, "rad (rigid bodies)");
    app->add_option("--angular-velocity", angular_velocity, "rad/s (rigid bodies)");
    app->add_option("--mass", mass, "kg; 0: density × area of the shape");
    app->add_option("--inertia", inertia, "kg·m²; 0: from the shape");
    app->add_option("--density", density, "kg/m² (default 1)");
    app->add_option("--kind", kind, "particle (default) | rigid");
    app->add_flag("--rigid", rigid, "same as --kind rigid");
    app->add_option("--motion", motion, "dynamic (default) | fixed | kinematic");
    app->add_option("--disk", disk, "a disk shape of this radius, m");
    app->add_option("--box", box, "a box shape: half-width,half-height, m");
    app->add_option("--polygon", polygon, "a convex polygon: x,y;x,y;x,y (m, body frame)");
    app->add_option("--linear-damping", linear_damping, "1/s");
    app->add_option("--angular-damping", angular_damping, "1/s");
  }

  // The BodyDef fields the flags given set: an update's mask.
  std::vector<std::string> paths(const CLI::App* app) const {
    static const std::pair<const char*, const char*> fields[] = {
        {"--name", "name"}, {"--pos", "position"}, {"--vel", "velocity"}, {"--angle", "angle"},
        {"--angular-velocity", "angular_velocity"}, {"--mass", "mass"}, {"--inertia", "inertia"},
        {"--density", "density"}, {"--kind", "kind"}, {"--rigid", "kind"}, {"--motion", "motion"},
        {"--disk", "shape"}, {"--box", "shape"}, {"--polygon", "shape"}, {"--linear-damping", "linear_damping"},
        {"--angular-damping", "angular_damping"}};
    std::vector<std::string> out;
    for (const auto& [flag, field] : fields)
      if (app->count(flag) > 0 && std::find(out.begin(), out.end(), field) == out.end()) out.emplace_back(field);
    return out;
  }

  // Writes the flags given onto `d` (a default def for add, the fields an
  // update changes).
  void apply(const CLI::App* app, v1::BodyDef& d) const {
    auto given = [&](const char* flag) { return app->count(flag) > 0; };
    if (given("--name")) d.set_name(name);
    if (given("--pos")) *d.mutable_position() = lc::to_proto(parse_vec(pos, "--pos"));
    if (given("--vel")) *d.mutable_velocity() = lc::to_proto(parse_vec(vel, "--vel"));
    if (given("--angle")) d.set_angle(angle);
    if (given("--angular-velocity")) d.set_angular_velocity(angular_velocity);
    if (given("--mass")) d.set_mass(mass);
    if (given("--inertia")) d.set_inertia(inertia);
    if (given("--density")) d.set_density(density);
    if (given("--kind") || rigid) {
      const lc::BodyKind k = rigid ? lc::BodyKind::rigid : parse_kind(kind);
      d.set_kind(k == lc::BodyKind::rigid ? v1::BODY_KIND_RIGID : v1::BODY_KIND_PARTICLE);
    }
    if (given("--motion")) {
      const lc::Motion m = parse_motion(motion);
      d.set_motion(m == lc::Motion::fixed ? v1::MOTION_FIXED
                   : m == lc::Motion::kinematic ? v1::MOTION_KINEMATIC
                                                : v1::MOTION_DYNAMIC);
    }
    if (given("--disk") + given("--box") + given("--polygon") > 1) bad_flag("--disk, --box, --polygon: give one shape");
    if (given("--disk")) d.mutable_shape()->mutable_disk()->set_radius(disk);
    if (given("--box")) {
      const lc::Vec3 b = parse_vec(box, "--box");
      d.mutable_shape()->mutable_box()->set_half_width(b.x);
      d.mutable_shape()->mutable_box()->set_half_height(b.y);
    }
    if (given("--polygon")) {
      v1::Polygon* p = d.mutable_shape()->mutable_polygon();
      p->clear_vertices();
      std::stringstream in(polygon);
      std::string vertex;
      while (std::getline(in, vertex, ';')) *p->add_vertices() = lc::to_proto(parse_vec(vertex, "--polygon"));
    }
    if (given("--linear-damping")) d.set_linear_damping(linear_damping);
    if (given("--angular-damping")) d.set_angular_damping(angular_damping);
  }
};

void print_removed(Context& ctx, const std::string& what, const lc::Removed& removed) {
  if (ctx.json) {
    v1::RemoveBodyResponse r;
    for (const lc::Id& id : removed.constraints) *r.add_removed_constraints() = lc::to_proto(id);
    for (const lc::Id& id : removed.forces) *r.add_removed_forces() = lc::to_proto(id);
    print_json(r);
    return;
  }
  std::cout << "removed body " << what;
  if (!removed.constraints.empty()) {
    std::cout << " and constraint(s)";
    for (const lc::Id& id : removed.constraints) std::cout << " " << id.to_string();
  }
  if (!removed.forces.empty()) {
    std::cout << " and force(s)";
    for (const lc::Id& id : removed.forces) std::cout << " " << id.to_string();
  }
  std::cout << "\n";
}

}  // namespace

void add_body_commands(CLI::App& app, Context& ctx) {
  CLI::App* body = command(app, "body", "Create, list, inspect, change and remove bodies",
                           "  linkctl body add --pos 1,0 --mass 1\n  linkctl body list\n  linkctl body get 3\n\n"
                           "A body is named by its id (3:1, index:generation), by its index alone (3: the\n"
                           "live body at that index) or by its name (bob).");
  body->require_subcommand(1);

  auto a = std::make_shared<BodyFlags>();
  CLI::App* add = command(*body, "add", "Create a body",
                          "  linkctl body add --pos 1,0 --mass 1\n"
                          "  linkctl body add --name wheel --rigid --disk 0.5 --density 2 --pos 0,2\n"
                          "  linkctl body add --name anchor --motion fixed --pos=-1,0");
  a->add(add);
  add->callback([&ctx, a, add] {
    v1::BodyDef def = lc::to_proto(lc::BodyDef{});
    a->apply(add, def);
    print_created(ctx, "body", must(ctx.client().create_body(ctx.world, def)));
  });

  auto many = std::make_shared<std::string>();
  CLI::App* add_many = command(*body, "add-many", "Create several bodies at once, atomically, from JSON",
                               "  linkctl body add-many bodies.json\n\n"
                               "The file is a list of BodyDef in JSON, or a CreateBodiesRequest:\n"
                               "  [{\"name\": \"p1\", \"position\": {\"x\": 1}, \"mass\": 1},\n"
                               "   {\"name\": \"p2\", \"position\": {\"x\": 2}, \"mass\": 1}]");
  add_many->add_option("file", *many, "JSON; - for standard input")->required();
  add_many->callback([&ctx, many] {
    std::string text = read_file(*many);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[') text = "{\"bodies\": " + text + "}";
    v1::CreateBodiesRequest req;
    if (lc::Status ok = lc::from_json(text, &req); !ok)
      fail(grpc::StatusCode::INVALID_ARGUMENT, *many + ": not a list of bodies: " + ok.error().message);
    const std::vector<v1::BodyDef> defs(req.bodies().begin(), req.bodies().end());
    const std::vector<lc::Id> ids = must(ctx.client().create_bodies(ctx.world, defs));
    if (ctx.json) {
      v1::CreateBodiesResponse r;
      for (const lc::Id& id : ids) *r.add_ids() = lc::to_proto(id);
      print_json(r);
    } else {
      for (const lc::Id& id : ids) std::cout << "created body " << id.to_string() << "\n";
    }
  });

  command(*body, "list", "List the world's bodies and their state", "  linkctl body list\n  linkctl body list --json")
      ->callback([&ctx] {
        const auto bodies = must(ctx.client().list_bodies(ctx.world));
        if (ctx.json) {
          v1::ListBodiesResponse r;
          for (const auto& b : bodies) *r.add_bodies() = b;
          print_json(r);
        } else {
          print_bodies(bodies);
        }
      });

  auto which = std::make_shared<std::string>();
  CLI::App* get = command(*body, "get", "One body: its def and state", "  linkctl body get 3\n  linkctl body get bob --json");
  get->add_option("body", *which, "3:1, 3 or a name")->required();
  get->callback([&ctx, which] {
    const v1::Body b = must(ctx.client().get_body(ctx.world, some_body(ctx, *which, "body")));
    if (ctx.json) {
      v1::GetBodyResponse r;
      *r.mutable_body() = b;
      print_json(r);
    } else {
      print_details("body " + id_text(b.id()) + (b.def().name().empty() ? "" : " " + b.def().name()), b.def());
    }
  });

  struct Update {
    std::string body;
    BodyFlags flags;
  };
  auto u = std::make_shared<Update>();
  CLI::App* update = command(*body, "update", "Change a body: state, mass, shape, motion or name (flags not given stay)",
                             "  linkctl body update 3 --vel 0,5\n  linkctl body update bob --motion fixed --name post");
  update->add_option("body", u->body, "3:1, 3 or a name")->required();
  u->flags.add(update);
  update->callback([&ctx, u, update] {
    const lc::BodyRef ref = some_body(ctx, u->body, "body");
    // Only the flags given go (an update mask): nothing is read first, and a
    // running body keeps its state.
    v1::BodyDef def;
    u->flags.apply(update, def);
    const std::vector<std::string> mask = u->flags.paths(update);
    if (mask.empty()) bad_flag("give at least one field to change (see --help)");
    const v1::Body b = must(ctx.client().update_body(ctx.world, ref, def, mask));
    if (ctx.json) {
      v1::UpdateBodyResponse r;
      *r.mutable_body() = b;
      print_json(r);
    } else {
      std::cout << "updated body " << id_text(b.id()) << "\n";
    }
  });

  auto doomed = std::make_shared<std::string>();
  CLI::App* remove = command(*body, "remove", "Remove a body with every constraint and force on it",
                             "  linkctl body remove 3\n  linkctl body remove bob");
  remove->add_option("body", *doomed, "3:1, 3 or a name")->required();
  remove->callback([&ctx, doomed] {
    const lc::BodyRef ref = some_body(ctx, *doomed, "body");
    print_removed(ctx, ref.to_string(), must(ctx.client().remove_body(ctx.world, ref)));
  });
}

}  // namespace linkage::linkctl
