// world create|list|get|update|fork|delete, pause, resume, step, reset,
// scene load|save, batch apply, stats.
#include <iostream>
#include <memory>

#include "linkage/client/proto.hpp"
#include "linkage/client/subscription.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

// The settings flags of `world create` and `world update`; only flags given
// are sent, so an update changes just those.
struct SettingsFlags {
  int dimension = 2, substeps = 1, solver_max_iterations = 0, velocity_iterations = 0, position_iterations = 0;
  int threads = 1;
  double tick_rate = 60, feedback_stiffness = 0, feedback_damping = 0, solver_tolerance = 0, baumgarte = 0;
  std::string gravity, dynamics, integrator, solver, project, projection, preset;

  void add(CLI::App* app) {
    app->add_option("--dimension", dimension, "2 or 3 (fixed once the world holds bodies)");
    app->add_option("--gravity", gravity, "m/s², x,y[,z] (default 0,-9.81)");
    app->add_option("--tick-rate", tick_rate, "ticks per second, Hz (default 60)");
    app->add_option("--substeps", substeps, "solver steps per tick (default 1)");
    app->add_option("--dynamics", dynamics, "force-based | velocity-projection | sequential-impulses");
    app->add_option("--integrator", integrator, "euler | semi-implicit-euler | midpoint | rk4 | verlet");
    app->add_option("--solver", solver, "cg | ldlt | gs (conjugate gradient, sparse LDLᵀ, Gauss-Seidel)");
    app->add_option("--feedback-stiffness", feedback_stiffness, "k_s, 1/s² (force-based drift feedback)");
    app->add_option("--feedback-damping", feedback_damping, "k_d, 1/s");
    app->add_option("--solver-tolerance", solver_tolerance, "iterative solvers' relative residual");
    app->add_option("--solver-max-iterations", solver_max_iterations, "iterative solvers' cap");
    app->add_option("--baumgarte", baumgarte, "β of the impulse family, in [0, 1]");
    app->add_option("--velocity-iterations", velocity_iterations, "sequential impulses' velocity sweeps");
    app->add_option("--position-iterations", position_iterations, "sequential impulses' position sweeps");
    app->add_option("--project", project, "none | positions | velocities | both (SHAKE / RATTLE)");
    app->add_option("--projection", projection, "shake | nearest (how positions are projected)");
    app->add_option("--preset", preset, "exact: every constraint exact at each tick (the fields given beside it win)");
    app->add_option("--threads", threads, "threads that step the world (default 1)");
  }

  lc::WorldSettings get(const CLI::App* app) const {
    lc::WorldSettings s;
    auto given = [&](const char* flag) { return app->count(flag) > 0; };
    if (given("--dimension")) s.dimension = dimension;
    if (given("--gravity")) s.gravity = parse_vec(gravity, "--gravity");
    if (given("--tick-rate")) s.tick_rate = tick_rate;
    if (given("--substeps")) s.substeps = substeps;
    if (given("--dynamics")) s.dynamics = parse_dynamics(dynamics);
    if (given("--integrator")) s.integrator = parse_integrator(integrator);
    if (given("--solver")) s.solver = parse_solver(solver);
    if (given("--feedback-stiffness")) s.feedback_stiffness = feedback_stiffness;
    if (given("--feedback-damping")) s.feedback_damping = feedback_damping;
    if (given("--solver-tolerance")) s.solver_tolerance = solver_tolerance;
    if (given("--solver-max-iterations")) s.solver_max_iterations = solver_max_iterations;
    if (given("--baumgarte")) s.baumgarte = baumgarte;
    if (given("--velocity-iterations")) s.velocity_iterations = velocity_iterations;
    if (given("--position-iterations")) s.position_iterations = position_iterations;
    if (given("--project")) {
      if (project != "none" && project != "positions" && project != "velocities" && project != "both")
        bad_flag("--project: '" + project + "' is not one of none, positions, velocities, both");
      s.project_positions = project == "positions" || project == "both";
      s.project_velocities = project == "velocities" || project == "both";
    }
    if (given("--projection")) {
      if (projection != "shake" && projection != "nearest")
        bad_flag("--projection: '" + projection + "' is not one of shake, nearest");
      s.projection = projection == "shake" ? lc::Projection::shake : lc::Projection::nearest;
    }
    if (given("--preset")) {
      if (preset != "exact") bad_flag("--preset: '" + preset + "' is not exact");
      s.preset = lc::Preset::exact;
    }
    if (given("--threads")) s.threads = threads;
    return s;
  }
};

// The limits flags of `world create` and `world update`; only flags given are sent.
struct LimitsFlags {
  int max_bodies = 0, max_constraints = 0, max_forces = 0;
  double max_error = 0;

  void add(CLI::App* app) {
    app->add_option("--max-bodies", max_bodies, "this world's cap (default: the server's)");
    app->add_option("--max-constraints", max_constraints, "this world's cap");
    app->add_option("--max-forces", max_forces, "this world's cap");
    app->add_option("--max-error", max_error,
                    "the largest constraint error (m or rad) before the server pauses the world as diverged; 0: none");
  }

  lc::WorldLimits get(const CLI::App* app) const {
    lc::WorldLimits l;
    if (app->count("--max-bodies")) l.max_bodies = max_bodies;
    if (app->count("--max-constraints")) l.max_constraints = max_constraints;
    if (app->count("--max-forces")) l.max_forces = max_forces;
    if (app->count("--max-error")) l.max_error = max_error;
    return l;
  }
};

void world_commands(CLI::App& app, Context& ctx) {
  CLI::App* world = command(app, "world", "Create, list, inspect, change and delete worlds",
                            "  linkctl world list\n  linkctl world create lab --solver cg --integrator rk4\n"
                            "  linkctl world get lab\n  linkctl world fork lab trial\n  linkctl world delete lab");
  world->require_subcommand(1);

  struct Create {
    std::string name;
    SettingsFlags settings;
    LimitsFlags limits;
    bool paused = false;
  };
  auto c = std::make_shared<Create>();
  CLI::App* create = command(*world, "create", "Create an empty world (running unless --paused)",
                             "  linkctl world create lab --solver cg --integrator rk4\n"
                             "  linkctl world create space --dimension 3 --gravity 0,0,0 --paused");
  create->add_option("name", c->name, "letters, digits, '-', '_', '.'")->required();
  c->settings.add(create);
  create->add_flag("--paused", c->paused, "create it paused (step it with `linkctl step`)");
  c->limits.add(create);
  create->callback([&ctx, c, create] {
    const lc::CreateWorldOptions options{
        .settings = c->settings.get(create), .limits = c->limits.get(create), .paused = c->paused};
    const v1::World w = must(ctx.client().create_world(c->name, options));
    print_world_line(ctx, "created", w);
  });

  command(*world, "list", "List every world on the server", "  linkctl world list\n  linkctl world list --json")
      ->callback([&ctx] {
        const auto worlds = must(ctx.client().list_worlds());
        if (ctx.json) {
          v1::ListWorldsResponse r;
          for (const auto& w : worlds) *r.add_worlds() = w;
          print_json(r);
        } else {
          print_worlds(worlds);
        }
      });

  auto name = std::make_shared<std::string>();
  CLI::App* get = command(*world, "get", "A world's settings and counters", "  linkctl world get\n  linkctl world get lab --json");
  get->add_option("name", *name, "the world (default: --world)")->type_name("WORLD");
  get->callback([&ctx, name] {
    const v1::World w = must(ctx.client().get_world(name->empty() ? ctx.world : *name));
    if (ctx.json) {
      v1::GetWorldResponse r;
      *r.mutable_world() = w;
      print_json(r);
    } else {
      print_world(w);
    }
  });

  struct Update {
    std::string name;
    SettingsFlags settings;
    LimitsFlags limits;
  };
  auto u = std::make_shared<Update>();
  CLI::App* update = command(*world, "update", "Change settings and limits live; flags not given keep their values",
                             "  linkctl world update lab --solver gs --substeps 4\n"
                             "  linkctl --world lab world update --gravity 0,-1.62\n"
                             "  linkctl world update lab --max-error 0.01");
  update->add_option("name", u->name, "the world (default: --world)")->type_name("WORLD");
  u->settings.add(update);
  u->limits.add(update);
  update->callback([&ctx, u, update] {
    const v1::World w = must(ctx.client().update_world(u->name.empty() ? ctx.world : u->name, u->settings.get(update),
                                                       u->limits.get(update)));
    print_world_line(ctx, "updated", w);
  });

  struct Fork {
    std::string source, name;
    std::optional<std::uint64_t> tick;
  };
  auto f = std::make_shared<Fork>();
  CLI::App* fork = command(*world, "fork", "Copy a world into a new, paused one: as it is now, or at a recorded tick",
                           "  linkctl world fork default trial\n"
                           "  linkctl world fork default before-crash --tick 5400   (linkaged --data-dir)");
  fork->add_option("source", f->source, "the world to copy")->type_name("WORLD")->required();
  fork->add_option("name", f->name, "the new world's name")->required();
  fork->add_option("--tick", f->tick, "the tick to copy it at (one the server's data directory still holds)");
  fork->callback([&ctx, f] { print_world_line(ctx, "forked", must(ctx.client().fork_world(f->source, f->name, f->tick))); });

  add_world_watch_command(*world, ctx);

  auto doomed = std::make_shared<std::string>();
  CLI::App* del = command(*world, "delete", "Delete a world and end its streams", "  linkctl world delete lab");
  del->add_option("name", *doomed, "the world")->type_name("WORLD")->required();
  del->callback([&ctx, doomed] {
    must(ctx.client().delete_world(*doomed));
    if (ctx.json)
      print_json(v1::DeleteWorldResponse());
    else
      std::cout << "deleted world " << *doomed << "\n";
  });
}

void control_commands(CLI::App& app, Context& ctx) {
  command(app, "pause", "Stop the world's clock (commands still apply)", "  linkctl pause\n  linkctl --world lab pause")
      ->callback([&ctx] { print_world_line(ctx, "paused", must(ctx.client().pause(ctx.world))); });
  command(app, "resume", "Start the world's clock again", "  linkctl resume")
      ->callback([&ctx] { print_world_line(ctx, "resumed", must(ctx.client().resume(ctx.world))); });
  auto ticks = std::make_shared<std::uint32_t>(1);
  CLI::App* step = command(app, "step",
                           "Step a paused world by N ticks (default 1); with --timeout, as many as fit in it",
                           "  linkctl pause\n  linkctl step 10\n  linkctl --timeout 2 step 1000000");
  step->add_option("ticks", *ticks, "ticks, 1 to 1000000")->check(CLI::Range(1u, 1000000u));
  step->callback([&ctx, ticks] {
    const v1::StepResponse r = must(ctx.client().step(ctx.world, *ticks));
    if (ctx.json) {
      print_json(r);
      return;
    }
    std::string what = "stepped " + std::to_string(r.ticks());
    if (r.ticks() != *ticks) what += " of " + std::to_string(*ticks) + " ticks (" + step_end_text(r.ended()) + ")";
    print_world_line(ctx, what, r.world());
  });
  command(app, "reset", "Put the world back to the last scene loaded into it (or empty)", "  linkctl reset")
      ->callback([&ctx] { print_world_line(ctx, "reset", must(ctx.client().reset(ctx.world))); });
}

void scene_commands(CLI::App& app, Context& ctx) {
  CLI::App* scene = command(app, "scene", "Load a scene file into a world, or save a world as one",
                            "  linkctl scene load scenes/chain.json\n  linkctl scene save out.json");
  scene->require_subcommand(1);
  auto in = std::make_shared<std::string>();
  CLI::App* load = command(*scene, "load", "Replace the world's contents and settings by a scene (JSON)",
                           "  linkctl scene load scenes/chain.json\n  linkctl --world lab scene load scenes/cloth.json\n"
                           "  cat scene.json | linkctl scene load -");
  load->add_option("file", *in, "a linkage.v1.Scene in JSON (scenes/*.json); - for standard input")->required();
  load->callback([&ctx, in] {
    v1::Scene s;
    if (lc::Status ok = lc::from_json(read_file(*in), &s); !ok)
      fail(grpc::StatusCode::INVALID_ARGUMENT, *in + ": not a scene: " + ok.error().message);
    print_world_line(ctx, "loaded " + *in, must(ctx.client().load_scene(ctx.world, s)));
  });
  auto out = std::make_shared<std::string>("-");
  CLI::App* save = command(*scene, "save", "Write the world as a scene (the scenes/ JSON format)",
                           "  linkctl scene save out.json\n  linkctl scene save        # to standard output");
  save->add_option("file", *out, "where to write it (default -: standard output)");
  save->callback([&ctx, out] {
    const v1::Scene s = must(ctx.client().save_scene(ctx.world));
    write_file(*out, lc::to_json(s, true));
    if (*out != "-" && !ctx.json)
      std::cout << "saved world " << ctx.world << " to " << *out << " (" << s.bodies_size() << " bodies, "
                << s.constraints_size() << " constraints, " << s.forces_size() << " forces)\n";
    else if (*out != "-")
      print_json(v1::SaveSceneResponse());
  });
}

void batch_commands(CLI::App& app, Context& ctx) {
  CLI::App* batch = command(app, "batch", "Apply a list of commands atomically (all or nothing)",
                            "  linkctl batch apply commands.json");
  batch->require_subcommand(1);
  auto in = std::make_shared<std::string>();
  CLI::App* apply = command(
      *batch, "apply", "Apply the commands of a JSON file in one tick",
      "  linkctl batch apply commands.json\n\n"
      "The file is an ApplyBatchRequest in JSON, or just its list of commands:\n"
      "  [{\"create_body\": {\"name\": \"bob\", \"position\": {\"x\": 1}, \"mass\": 1}},\n"
      "   {\"add_constraint\": {\"distance\": {\"b\": {\"name\": \"bob\"}}}}]");
  apply->add_option("file", *in, "JSON; - for standard input")->required();
  apply->callback([&ctx, in] {
    std::string text = read_file(*in);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[') text = "{\"commands\": " + text + "}";
    v1::ApplyBatchRequest req;
    if (lc::Status ok = lc::from_json(text, &req); !ok)
      fail(grpc::StatusCode::INVALID_ARGUMENT, *in + ": not a batch: " + ok.error().message);
    lc::Batch b;
    for (const v1::Command& cmd : req.commands()) b.add(cmd);
    const v1::ApplyBatchResponse r = must(ctx.client().apply_batch(ctx.world, b));
    if (ctx.json) {
      print_json(r);
      return;
    }
    std::cout << "applied " << b.size() << " command(s) before tick " << r.tick() << "\n";
    for (int i = 0; i < r.results_size(); ++i) {
      const v1::CommandResult& c = r.results(i);
      if (c.has_created() && c.created().generation() != 0) std::cout << "  [" << i << "] created " << id_text(c.created()) << "\n";
      for (const v1::Id& id : c.removed_constraints()) std::cout << "  [" << i << "] removed constraint " << id_text(id) << "\n";
      for (const v1::Id& id : c.removed_forces()) std::cout << "  [" << i << "] removed force " << id_text(id) << "\n";
    }
  });
}

void stats_command(CLI::App& app, Context& ctx) {
  auto wait = std::make_shared<double>(2.0);
  CLI::App* stats = command(app, "stats", "The world's counters and the last tick's diagnostics",
                            "  linkctl stats\n  linkctl --world lab stats --json");
  stats->add_option("--wait", *wait, "seconds to wait for a frame with diagnostics (default 2)");
  stats->callback([&ctx, wait] {
    const v1::World w = must(ctx.client().get_world(ctx.world));
    // Diagnostics only travel in frames: take one from a short stream.
    auto sub = ctx.client().subscribe(ctx.world, {.diagnostics = true, .on_snapshot = {}, .queue_capacity = 1});
    std::optional<v1::Snapshot> frame = sub->next(std::chrono::milliseconds(static_cast<long long>(*wait * 1000)));
    sub->cancel();
    if (!frame && !sub->status()) must(sub->status());
    if (ctx.json) {
      // One object: the world and, when a frame came, its diagnostics.
      std::string out = "{\"world\": " + lc::to_json(w);
      if (frame) out += ", \"diagnostics\": " + lc::to_json(frame->diagnostics());
      std::cout << out << "}\n";
      return;
    }
    std::cout << "world " << w.name() << " (" << world_state(w) << "): tick " << w.tick() << ", t = " << num(w.time())
              << " s, " << w.body_count() << " bodies, " << w.constraint_count() << " constraints, " << w.force_count()
              << " forces, " << w.subscribers() << " subscriber(s), " << w.overruns() << " overrun(s), "
              << w.watchdog_halts() << " watchdog halt(s), " << w.divergences() << " divergence(s)\n";
    if (w.has_halt()) std::cout << "  " << w.halt().message() << "\n";
    if (!frame) {
      std::cout << "no frame within " << num(*wait) << " s: no diagnostics\n";
      return;
    }
    const v1::Diagnostics& d = frame->diagnostics();
    const double total = d.kinetic_energy() + d.gravitational_energy() + d.spring_energy();
    print_table({"DIAGNOSTIC", "VALUE"},
                {{"tick", std::to_string(frame->tick())},
                 {"max |C|", num(d.max_error())},
                 {"rms |C|", num(d.rms_error())},
                 {"max |dC/dt|", num(d.max_error_rate())},
                 {"kinetic energy (J)", num(d.kinetic_energy())},
                 {"gravitational energy (J)", num(d.gravitational_energy())},
                 {"spring energy (J)", num(d.spring_energy())},
                 {"total energy (J)", num(total)},
                 {"linear momentum (kg m/s)", vec_text(d.linear_momentum())},
                 {"angular momentum (kg m²/s)", vec_text(d.angular_momentum())},
                 {"solver iterations", std::to_string(d.solver_iterations())},
                 {"solver residual", num(d.solver_residual())},
                 {"rank deficiency", std::to_string(d.rank_deficiency())},
                 {"projection iterations", std::to_string(d.projection_iterations())},
                 {"step time (ms)", num(d.step_seconds() * 1000.0)},
                 {"overruns", std::to_string(d.overruns())}});
  });
}

}  // namespace

// For container health checks and scripts that wait for a server: the exit
// code says it all (0 SERVING, 14 UNAVAILABLE when not serving or unreachable).
void health_command(CLI::App& app, Context& ctx) {
  auto service = std::make_shared<std::string>();
  CLI::App* health = command(app, "health", "Ask the server's gRPC health service whether it is serving",
                             "  linkctl health\n  linkctl --timeout 2 health linkage.v1.WorldService");
  health->add_option("service", *service, "a service's full name (default: the server as a whole)");
  health->callback([&ctx, service] {
    const bool serving = must(ctx.client().serving(*service));
    if (!serving) fail(grpc::StatusCode::UNAVAILABLE, "the server answers but is not serving");
    if (ctx.json) {
      std::cout << "{\"status\": \"SERVING\"}\n";
    } else {
      std::cout << "SERVING\n";
    }
  });
}

void add_world_commands(CLI::App& app, Context& ctx) {
  world_commands(app, ctx);
  control_commands(app, ctx);
  scene_commands(app, ctx);
  batch_commands(app, ctx);
  stats_command(app, ctx);
  health_command(app, ctx);
}

}  // namespace linkage::linkctl
