// constraint add TYPE|add-many|list|get|update|remove.
//
// The flags of each type are its proto fields with '-' for '_' (--anchor-a
// sets anchor_a), set by reflection on the type's message: one table below
// says which flags a type takes, and the proto says what each one is.
#include <google/protobuf/descriptor.h>

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "linkage/client/proto.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

namespace pb = google::protobuf;

struct TypeInfo {
  const char* command;  // the subcommand: point-on-line
  const char* field;    // the ConstraintDef oneof field: point_on_line
  const char* about;
  std::vector<const char*> flags;
  const char* example;
};

const std::vector<TypeInfo>& types() {
  static const std::vector<TypeInfo> all = {
      {"distance", "distance", "A rod: C = |p_b − p_a| − L", {"a", "b", "anchor-a", "anchor-b", "length"},
       "linkctl constraint add distance --a 3 --b 4 --length 1"},
      {"rope", "rope", "A rope: |p_b − p_a| ≤ L, pulls only when taut", {"a", "b", "anchor-a", "anchor-b", "max-length"},
       "linkctl constraint add rope --b bob --anchor-a 0,2 --max-length 2"},
      {"pin", "pin", "A revolute pin: C = p_b − p_a", {"a", "b", "anchor-a", "anchor-b"},
       "linkctl constraint add pin --a 3 --b 4 --anchor-a 0.5,0 --anchor-b=-0.5,0"},
      {"point-on-line", "point_on_line", "A slider: b's anchor on the line through a's along --axis",
       {"a", "b", "anchor-a", "anchor-b", "axis"}, "linkctl constraint add point-on-line --b 3 --axis 1,0"},
      {"point-on-circle", "point_on_circle", "The bead on a wire: C = ½(|p_b − p_a|² − R²)",
       {"a", "b", "anchor-a", "anchor-b", "radius"}, "linkctl constraint add point-on-circle --b 3 --radius 1"},
      {"point-on-plane", "point_on_plane", "3D: b's anchor on the plane through a's with --normal",
       {"a", "b", "anchor-a", "anchor-b", "normal"}, "linkctl constraint add point-on-plane --b 3 --normal 0,0,1"},
      {"weld", "weld", "2D rigid bodies glued: C = (p_b − p_a, θ_b − θ_a − φ)", {"a", "b", "anchor-a", "anchor-b", "angle"},
       "linkctl constraint add weld --a 3 --b 4"},
      {"relative-angle", "relative_angle", "2D rigid bodies: C = θ_b − θ_a − φ", {"a", "b", "angle"},
       "linkctl constraint add relative-angle --a 3 --b 4 --angle 0.5"},
      {"gear", "gear", "Two gears in mesh: C = r_a θ_a + r_b θ_b − c", {"a", "b", "radius-a", "radius-b", "offset"},
       "linkctl constraint add gear --a 3 --b 4 --radius-a 1 --radius-b 2"},
      {"rack-and-pinion", "rack_and_pinion", "One pinion turn moves the rack 2πr",
       {"rack", "pinion", "anchor", "axis", "radius", "offset"},
       "linkctl constraint add rack-and-pinion --rack 3 --pinion 4 --radius 0.5"},
      {"motor", "motor", "A velocity row: ω_b − ω_a = speed (or linear along --axis)",
       {"a", "b", "kind", "speed", "axis", "max-force"}, "linkctl constraint add motor --b 3 --speed 2 --max-force 50"},
      {"trajectory", "trajectory", "The body's anchor follows g(t) = origin + velocity·t + amplitude ⊙ sin(2π f t + phase)",
       {"body", "anchor", "origin", "velocity", "amplitude", "frequency", "phase"},
       "linkctl constraint add trajectory --body 3 --origin 0,1 --amplitude 1,1 --frequency 0.5,0.5 --phase 1.5708,0"},
  };
  return all;
}

const std::map<std::string, const char*>& flag_help() {
  static const std::map<std::string, const char*> help = {
      {"a", "first body (3:1, 3, a name; omitted or 'world': the world)"},
      {"b", "second body (3:1, 3 or a name)"},
      {"body", "the body (3:1, 3 or a name)"},
      {"rack", "the rack body"},
      {"pinion", "the pinion body"},
      {"anchor-a", "m, x,y[,z] in a's frame (a world point if a is the world)"},
      {"anchor-b", "m, x,y[,z] in b's frame"},
      {"anchor", "m, x,y[,z] in the body's frame"},
      {"length", "m, > 0 (default: the current distance)"},
      {"max-length", "m, > 0 (default: the current distance)"},
      {"radius", "m, > 0 (circle: default the current radius; rack: default 1)"},
      {"axis", "direction x,y[,z] in a's (the rack's) frame (default 1,0)"},
      {"normal", "x,y,z (default 0,0,1)"},
      {"angle", "φ, rad (default: the current angle)"},
      {"radius-a", "m, > 0 (default 1)"},
      {"radius-b", "m, > 0 (default 1)"},
      {"offset", "c, m (default: current)"},
      {"kind", "angular (default) | linear"},
      {"speed", "rad/s or m/s"},
      {"max-force", "N·m or N, > 0 (default: unlimited)"},
      {"origin", "m, x,y[,z]"},
      {"velocity", "m/s, x,y[,z]"},
      {"amplitude", "m, x,y[,z]"},
      {"frequency", "Hz, x,y[,z]"},
      {"phase", "rad, x,y[,z]"},
  };
  return help;
}

bool is_path_field(const std::string& flag) {
  return flag == "origin" || flag == "velocity" || flag == "amplitude" || flag == "frequency" || flag == "phase";
}

std::string field_name(std::string flag) {
  for (char& c : flag)
    if (c == '-') c = '_';
  return flag;
}

// Sets `--flag value` on the type's message `msg` by the field's name and type.
void set_field(Context& ctx, pb::Message* msg, const std::string& flag, const std::string& value) {
  const std::string type = msg->GetDescriptor()->name();
  if (is_path_field(flag) && type == "Trajectory") msg = msg->GetReflection()->MutableMessage(msg, msg->GetDescriptor()->FindFieldByName("path"));
  const pb::FieldDescriptor* f = msg->GetDescriptor()->FindFieldByName(field_name(flag));
  if (!f) bad_flag("--" + flag + ": a " + type + " constraint has no " + field_name(flag));
  const pb::Reflection* r = msg->GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') bad_flag("--" + flag + ": '" + value + "' is not a number");
      r->SetDouble(msg, f, v);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {  // MotorKind
      if (value != "angular" && value != "linear") bad_flag("--" + flag + ": '" + value + "' is not angular or linear");
      r->SetEnumValue(msg, f, value == "linear" ? v1::MOTOR_KIND_LINEAR : v1::MOTOR_KIND_ANGULAR);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: {
      pb::Message* sub = r->MutableMessage(msg, f);
      if (f->message_type()->name() == "BodyRef") {
        sub->CopyFrom(lc::to_proto(body_ref(ctx, value, "--" + flag)));
      } else {  // Vec3
        sub->CopyFrom(lc::to_proto(parse_vec(value, "--" + flag)));
      }
      break;
    }
    default: bad_flag("--" + flag + ": cannot be set from the command line");
  }
}

// The flags every constraint takes: a name and softness.
struct CommonFlags {
  std::string name;
  double soft = 0.0, damping_ratio = 1.0;
  void add(CLI::App* app) {
    app->add_option("--name", name, "unique in the world; `constraint get NAME` finds it");
    app->add_option("--soft", soft, "make it a damped spring of this frequency, Hz (0: rigid)");
    app->add_option("--damping-ratio", damping_ratio, "ζ of a soft constraint (default 1)");
  }
  void apply(const CLI::App* app, v1::ConstraintDef& def) const {
    if (app->count("--name")) def.set_name(name);
    if (app->count("--soft")) def.mutable_softness()->set_frequency(soft);
    if (app->count("--damping-ratio")) def.mutable_softness()->set_damping_ratio(damping_ratio);
  }
};

// The message of the type set in `def`, for reflection.
pb::Message* type_message(v1::ConstraintDef& def) {
  const pb::OneofDescriptor* oneof = def.GetDescriptor()->FindOneofByName("type");
  const pb::FieldDescriptor* f = def.GetReflection()->GetOneofFieldDescriptor(def, oneof);
  return f ? def.GetReflection()->MutableMessage(&def, f) : nullptr;
}

void print_constraint(Context& ctx, const v1::Constraint& c, const std::string& verb) {
  if (ctx.json) {
    v1::GetConstraintResponse r;
    *r.mutable_constraint() = c;
    print_json(r);
  } else if (!verb.empty()) {
    std::cout << verb << " constraint " << id_text(c.id()) << "\n";
  } else {
    print_details("constraint " + id_text(c.id()) + " (" + constraint_type(c.def()) + ")" +
                      (c.def().name().empty() ? "" : " " + c.def().name()),
                  c);
  }
}

void add_type_commands(CLI::App* add, Context& ctx) {
  for (const TypeInfo& t : types()) {
    struct Values {
      std::map<std::string, std::string> values;
      CommonFlags common;
    };
    auto v = std::make_shared<Values>();
    CLI::App* cmd = command(*add, t.command, t.about, std::string("  ") + t.example);
    for (const char* flag : t.flags) cmd->add_option(std::string("--") + flag, v->values[flag], flag_help().at(flag));
    v->common.add(cmd);
    cmd->callback([&ctx, v, cmd, &t] {
      v1::ConstraintDef def;
      pb::Message* msg = def.GetReflection()->MutableMessage(&def, def.GetDescriptor()->FindFieldByName(t.field));
      for (const auto& [flag, value] : v->values)
        if (cmd->count("--" + flag)) set_field(ctx, msg, flag, value);
      v->common.apply(cmd, def);
      print_created(ctx, std::string(t.command) + " constraint", must(ctx.client().add_constraint(ctx.world, def)));
    });
  }
}

}  // namespace

void add_constraint_commands(CLI::App& app, Context& ctx) {
  CLI::App* constraint = command(app, "constraint", "Add, list, inspect, change and remove constraints",
                                 "  linkctl constraint add distance --a 3 --b 4 --length 1\n  linkctl constraint list\n"
                                 "  linkctl constraint update 0 --length 2\n  linkctl constraint remove 0\n\n"
                                 "A constraint is named by its id (0:1), its index alone (0) or its name.");
  constraint->require_subcommand(1);

  CLI::App* add = command(*constraint, "add", "Add a constraint of a type (see `constraint add TYPE --help`)",
                          "  linkctl constraint add distance --a 3 --b 4 --length 1\n"
                          "  linkctl constraint add pin --b bob --anchor-a 0,2 --soft 3\n"
                          "  linkctl constraint add motor --a wheel --b crank --speed 2");
  add->require_subcommand(1);
  add_type_commands(add, ctx);

  auto many = std::make_shared<std::string>();
  CLI::App* add_many = command(*constraint, "add-many", "Add several constraints at once, atomically, from JSON",
                               "  linkctl constraint add-many rods.json\n\n"
                               "The file is a list of ConstraintDef in JSON, or an AddConstraintsRequest:\n"
                               "  [{\"distance\": {\"a\": {\"name\": \"p1\"}, \"b\": {\"name\": \"p2\"}}}]");
  add_many->add_option("file", *many, "JSON; - for standard input")->required();
  add_many->callback([&ctx, many] {
    std::string text = read_file(*many);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[') text = "{\"constraints\": " + text + "}";
    v1::AddConstraintsRequest req;
    if (lc::Status ok = lc::from_json(text, &req); !ok)
      fail(grpc::StatusCode::INVALID_ARGUMENT, *many + ": not a list of constraints: " + ok.error().message);
    const std::vector<v1::ConstraintDef> defs(req.constraints().begin(), req.constraints().end());
    const std::vector<lc::Id> ids = must(ctx.client().add_constraints(ctx.world, defs));
    if (ctx.json) {
      v1::AddConstraintsResponse r;
      for (const lc::Id& id : ids) *r.add_ids() = lc::to_proto(id);
      print_json(r);
    } else {
      for (const lc::Id& id : ids) std::cout << "created constraint " << id.to_string() << "\n";
    }
  });

  command(*constraint, "list", "List the world's constraints with λ and error",
          "  linkctl constraint list\n  linkctl constraint list --json")
      ->callback([&ctx] {
        const auto constraints = must(ctx.client().list_constraints(ctx.world));
        if (ctx.json) {
          v1::ListConstraintsResponse r;
          for (const auto& c : constraints) *r.add_constraints() = c;
          print_json(r);
        } else {
          print_constraints(constraints);
        }
      });

  auto which = std::make_shared<std::string>();
  CLI::App* get = command(*constraint, "get", "One constraint: def, λ, error and reactions",
                          "  linkctl constraint get 0\n  linkctl constraint get rod --json");
  get->add_option("constraint", *which, "0:1, 0 or a name")->required();
  get->callback([&ctx, which] {
    print_constraint(ctx, must(ctx.client().get_constraint(ctx.world, constraint_id(ctx, *which))), "");
  });

  struct Update {
    std::string which;
    std::map<std::string, std::string> values;
    CommonFlags common;
  };
  auto u = std::make_shared<Update>();
  CLI::App* update = command(*constraint, "update", "Change a constraint's parameters (type and bodies stay)",
                             "  linkctl constraint update 0 --length 2\n  linkctl constraint update motor1 --speed 4\n"
                             "  linkctl constraint update 0 --soft 2 --damping-ratio 0.5");
  update->add_option("constraint", u->which, "0:1, 0 or a name")->required();
  for (const char* flag : {"length", "max-length", "radius", "angle", "radius-a", "radius-b", "offset", "speed",
                           "max-force", "axis", "normal", "anchor-a", "anchor-b", "anchor"})
    update->add_option(std::string("--") + flag, u->values[flag], flag_help().at(flag));
  u->common.add(update);
  update->callback([&ctx, u, update] {
    const lc::Id id = constraint_id(ctx, u->which);
    // The constraint is read for its type alone; only the flags given go (an
    // update mask), so what others changed meanwhile stays.
    const v1::ConstraintDef current = must(ctx.client().get_constraint(ctx.world, id)).def();
    v1::ConstraintDef def;
    def.GetReflection()->MutableMessage(
        &def, current.GetReflection()->GetOneofFieldDescriptor(current, current.GetDescriptor()->FindOneofByName("type")));
    pb::Message* msg = type_message(def);
    if (!msg) fail(grpc::StatusCode::INTERNAL, "the server answered a constraint without a type");
    std::vector<std::string> mask;
    const std::string oneof = def.GetReflection()->GetOneofFieldDescriptor(def, def.GetDescriptor()->FindOneofByName("type"))->name();
    for (const auto& [flag, value] : u->values) {
      if (!update->count("--" + flag)) continue;
      set_field(ctx, msg, flag, value);
      const bool in_path = is_path_field(flag) && msg->GetDescriptor()->name() == "Trajectory";
      mask.push_back(oneof + (in_path ? ".path." : ".") + field_name(flag));
    }
    u->common.apply(update, def);
    if (update->count("--name")) mask.emplace_back("name");
    if (update->count("--soft")) mask.emplace_back("softness.frequency");
    if (update->count("--damping-ratio")) mask.emplace_back("softness.damping_ratio");
    if (mask.empty()) bad_flag("give at least one field to change (see --help)");
    print_constraint(ctx, must(ctx.client().update_constraint(ctx.world, id, def, mask)), "updated");
  });

  auto doomed = std::make_shared<std::string>();
  CLI::App* remove = command(*constraint, "remove", "Remove a constraint", "  linkctl constraint remove 0");
  remove->add_option("constraint", *doomed, "0:1, 0 or a name")->required();
  remove->callback([&ctx, doomed] {
    const lc::Id id = constraint_id(ctx, *doomed);
    must(ctx.client().remove_constraint(ctx.world, id));
    if (ctx.json)
      print_json(v1::RemoveConstraintResponse());
    else
      std::cout << "removed constraint " << id.to_string() << "\n";
  });
}

}  // namespace linkage::linkctl
