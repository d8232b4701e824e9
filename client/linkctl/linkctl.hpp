#pragma once
// What every linkctl command shares: the connection (made on first use, so
// `--help` needs no server), the output mode, and failures that carry a gRPC
// status code, which becomes the exit code (see main.cpp).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <utility>

#include "linkage/client/client.hpp"

namespace linkage::linkctl {

namespace lc = linkage::client;
namespace v1 = linkage::v1;

// Thrown by a command; main prints it and exits with `code`.
struct Failure {
  grpc::StatusCode code;
  std::string message;
};
[[noreturn]] inline void fail(grpc::StatusCode code, std::string message) { throw Failure{code, std::move(message)}; }
[[noreturn]] inline void bad_flag(std::string message) { fail(grpc::StatusCode::INVALID_ARGUMENT, std::move(message)); }

template <class T>
T must(lc::Result<T> result) {
  if (!result) throw Failure{result.error().code, result.error().message};
  return std::move(result).value();
}
inline void must(const lc::Status& status) {
  if (!status) throw Failure{status.error().code, status.error().message};
}

struct Context {
  std::string server = "127.0.0.1:50051";
  std::string world = "default";
  bool json = false;
  double timeout = 10.0;  // s, per call; also the connect deadline
  // Access (main.cpp): a token, and TLS with PEM files.
  std::string token;
  bool tls = false;
  std::string tls_ca, tls_cert, tls_key, tls_server_name;

  const lc::Client& client();
  // The token and TLS settings above, into `options` (files read now).
  void secure(lc::ConnectOptions& options) const;

 private:
  std::optional<lc::Client> client_;
};

// --- parse.cpp: flag values ---

// "1,0" or "1,0,0" (m, N, ...). `flag` names the flag in the error.
lc::Vec3 parse_vec(const std::string& text, const std::string& flag);
// "3:1" (index:generation).
std::optional<lc::Id> parse_full_id(const std::string& text);
// A body: "3:1" exactly, "3" the live body with index 3 (one ListBodies),
// "world" or "" the world, anything else a name the server resolves.
lc::BodyRef body_ref(Context& ctx, const std::string& text, const std::string& flag);
// Like body_ref, but the world is refused.
lc::BodyRef some_body(Context& ctx, const std::string& text, const std::string& flag);
// A constraint by "3:1", "3" or its name; a force by "3:1" or "3".
lc::Id constraint_id(Context& ctx, const std::string& text);
lc::Id force_id(Context& ctx, const std::string& text);
lc::Integrator parse_integrator(const std::string& text);
lc::LinearSolver parse_solver(const std::string& text);
lc::Dynamics parse_dynamics(const std::string& text);
lc::Motion parse_motion(const std::string& text);
lc::BodyKind parse_kind(const std::string& text);
// A file's whole text ("-": standard input); NOT_FOUND if it cannot be read.
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

// --- output.cpp ---

void print_json(const google::protobuf::Message& message);
std::string id_text(const v1::Id& id);
std::string ref_text(const v1::BodyRef& ref);
std::string vec_text(const v1::Vec3& v, int dimension = 3);
std::string num(double value);  // compact: "1", "0.25", "1.5e-08"
// Fixed-width columns: every row as wide as the widest cell.
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
void print_world(const v1::World& world);
// "running", "paused", or "halted (diverged)" for a world the server paused by itself.
std::string world_state(const v1::World& world);
// Why a Step ended early: "the deadline came", "the world was resumed", ...
std::string step_end_text(v1::StepEnd end);
void print_worlds(const std::vector<v1::World>& worlds);
void print_bodies(const std::vector<v1::Body>& bodies);
void print_constraints(const std::vector<v1::Constraint>& constraints);
void print_forces(const std::vector<v1::Force>& forces);
std::string constraint_type(const v1::ConstraintDef& def);  // "distance", "point-on-line", ...
// A created id: "created body 3:1" or {"id": {...}}.
void print_created(Context& ctx, const std::string& what, const lc::Id& id);
// A world after pause/resume/step/reset/load.
void print_world_line(Context& ctx, const std::string& what, const v1::World& world);
// Details of one object, as indented text after a title line.
void print_details(const std::string& title, const google::protobuf::Message& message);

// --- the nouns ---

// `examples` become the footer of a command's --help.
CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description,
                  const std::string& examples = "");
void add_world_commands(CLI::App& app, Context& ctx);  // world, pause, resume, step, reset, scene, batch, stats
void add_body_commands(CLI::App& app, Context& ctx);
void add_constraint_commands(CLI::App& app, Context& ctx);
void add_force_commands(CLI::App& app, Context& ctx);
void add_watch_command(CLI::App& app, Context& ctx);
// `world watch` under the `world` command (cmd_world_watch.cpp).
void add_world_watch_command(CLI::App& world, Context& ctx);

}  // namespace linkage::linkctl
