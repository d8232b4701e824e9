// force apply|spring|list|update|remove|impulse.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "linkage/client/proto.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

struct SpringFlags {
  std::string a, b, anchor_a, anchor_b;
  double stiffness = 100, damping = 0, rest_length = 0;
  void add(CLI::App* app, bool bodies) {
    if (bodies) {
      app->add_option("--a", a, "first body (3:1, 3 or a name)")->required();
      app->add_option("--b", b, "second body; omitted: --anchor-b is a world point");
    }
    app->add_option("--anchor-a", anchor_a, "m, x,y[,z] in a's frame");
    app->add_option("--anchor-b", anchor_b, "m, x,y[,z] in b's frame (or a world point)");
    app->add_option("--stiffness", stiffness, "k, N/m (default 100; 0: a pure damper)");
    app->add_option("--damping", damping, "c, N·s/m (default 0)");
    app->add_option("--rest-length", rest_length, "L, m (default: the distance when added)");
  }
  void apply(Context& ctx, const CLI::App* app, v1::Spring& s) const {
    // `force update` has no --a/--b: a spring's bodies stay.
    auto given = [&](const char* flag) { return app->get_option_no_throw(flag) && app->count(flag) > 0; };
    if (given("--a")) *s.mutable_a() = lc::to_proto(some_body(ctx, a, "--a"));
    if (given("--b")) *s.mutable_b() = lc::to_proto(body_ref(ctx, b, "--b"));
    if (app->count("--anchor-a")) *s.mutable_anchor_a() = lc::to_proto(parse_vec(anchor_a, "--anchor-a"));
    if (app->count("--anchor-b")) *s.mutable_anchor_b() = lc::to_proto(parse_vec(anchor_b, "--anchor-b"));
    if (app->count("--stiffness")) s.set_stiffness(stiffness);
    if (app->count("--damping")) s.set_damping(damping);
    if (app->count("--rest-length")) s.set_rest_length(rest_length);
  }
};

}  // namespace

void add_force_commands(CLI::App& app, Context& ctx) {
  CLI::App* force = command(app, "force", "Apply forces and impulses, add springs; list, change and remove them",
                            "  linkctl force apply --body 3 --force 0,10 --ticks 30\n"
                            "  linkctl force spring --a 3 --b 4 --stiffness 50 --damping 1\n"
                            "  linkctl force impulse --body 3 --impulse 1,0\n  linkctl force list\n\n"
                            "A force is named by its id (0:1) or its index alone (0).");
  force->require_subcommand(1);

  struct Apply {
    std::string body, force, point = "0,0";
    double torque = 0;
    std::uint32_t ticks = 1;
  };
  auto a = std::make_shared<Apply>();
  CLI::App* apply = command(*force, "apply", "Apply a force (and torque) to a body for some ticks",
                            "  linkctl force apply --body 3 --force 0,10 --ticks 30\n"
                            "  linkctl force apply --body wheel --torque 5 --ticks 0   # until removed");
  apply->add_option("--body", a->body, "the body (3:1, 3 or a name)")->required();
  apply->add_option("--force", a->force, "N, world frame: x,y[,z]");
  apply->add_option("--point", a->point, "m, body frame, where it acts (default: centre of mass)");
  apply->add_option("--torque", a->torque, "N·m, rigid bodies");
  apply->add_option("--ticks", a->ticks, "ticks it acts for (default 1; 0: until removed)");
  apply->callback([&ctx, a, apply] {
    lc::ForceDef def{.body = some_body(ctx, a->body, "--body"), .force = {}, .point = parse_vec(a->point, "--point"),
                     .torque = a->torque, .ticks = a->ticks};
    if (apply->count("--force")) def.force = parse_vec(a->force, "--force");
    print_created(ctx, "force", must(ctx.client().apply_force(ctx.world, def)));
  });

  auto s = std::make_shared<SpringFlags>();
  CLI::App* spring = command(*force, "spring", "Add a spring-damper between two bodies, or a body and a world point",
                             "  linkctl force spring --a 3 --b 4 --stiffness 50 --damping 1\n"
                             "  linkctl force spring --a bob --anchor-b 0,2 --rest-length 1");
  s->add(spring, true);
  spring->callback([&ctx, s, spring] {
    v1::ForceDef def = lc::to_proto(lc::SpringDef{});
    s->apply(ctx, spring, *def.mutable_spring());
    print_created(ctx, "spring", must(ctx.client().add_force(ctx.world, def)));
  });

  command(*force, "list", "List springs and applied forces", "  linkctl force list\n  linkctl force list --json")
      ->callback([&ctx] {
        const auto forces = must(ctx.client().list_forces(ctx.world));
        if (ctx.json) {
          v1::ListForcesResponse r;
          for (const auto& f : forces) *r.add_forces() = f;
          print_json(r);
        } else {
          print_forces(forces);
        }
      });

  struct Update {
    std::string which;
    SpringFlags flags;
  };
  auto u = std::make_shared<Update>();
  CLI::App* update = command(*force, "update", "Change a spring (flags not given stay)",
                             "  linkctl force update 0 --stiffness 200 --damping 2");
  update->add_option("force", u->which, "0:1 or 0")->required();
  u->flags.add(update, false);
  update->callback([&ctx, u, update] {
    const lc::Id id = force_id(ctx, u->which);
    // Only the flags given go (an update mask): nothing is read first.
    v1::ForceDef def;
    u->flags.apply(ctx, update, *def.mutable_spring());
    std::vector<std::string> mask;
    for (const char* field : {"anchor_a", "anchor_b", "stiffness", "damping", "rest_length"}) {
      std::string flag = std::string("--") + field;
      std::replace(flag.begin(), flag.end(), '_', '-');
      if (update->count(flag) > 0) mask.push_back(std::string("spring.") + field);
    }
    if (mask.empty()) bad_flag("give at least one field to change (see --help)");
    const v1::Force f = must(ctx.client().update_force(ctx.world, id, def, mask));
    if (ctx.json) {
      v1::UpdateForceResponse r;
      *r.mutable_force() = f;
      print_json(r);
    } else {
      std::cout << "updated spring " << id_text(f.id()) << "\n";
    }
  });

  auto doomed = std::make_shared<std::string>();
  CLI::App* remove = command(*force, "remove", "Remove a spring or an applied force", "  linkctl force remove 0");
  remove->add_option("force", *doomed, "0:1 or 0")->required();
  remove->callback([&ctx, doomed] {
    const lc::Id id = force_id(ctx, *doomed);
    must(ctx.client().remove_force(ctx.world, id));
    if (ctx.json)
      print_json(v1::RemoveForceResponse());
    else
      std::cout << "removed force " << id.to_string() << "\n";
  });

  struct Impulse {
    std::string body, impulse = "0,0", point = "0,0";
    double angular = 0;
  };
  auto i = std::make_shared<Impulse>();
  CLI::App* impulse = command(*force, "impulse", "Change a body's momentum at once, before the next tick",
                              "  linkctl force impulse --body 3 --impulse 1,0\n"
                              "  linkctl force impulse --body wheel --angular-impulse 2");
  impulse->add_option("--body", i->body, "the body (3:1, 3 or a name)")->required();
  impulse->add_option("--impulse", i->impulse, "N·s, world frame: x,y[,z]");
  impulse->add_option("--point", i->point, "m, body frame (default: centre of mass)");
  impulse->add_option("--angular-impulse", i->angular, "N·m·s, rigid bodies");
  impulse->callback([&ctx, i] {
    const lc::ImpulseDef def{.body = some_body(ctx, i->body, "--body"), .impulse = parse_vec(i->impulse, "--impulse"),
                             .point = parse_vec(i->point, "--point"), .angular_impulse = i->angular};
    must(ctx.client().apply_impulse(ctx.world, def));
    if (ctx.json)
      print_json(v1::ApplyImpulseResponse());
    else
      std::cout << "applied impulse to body " << def.body.to_string() << "\n";
  });
}

}  // namespace linkage::linkctl
