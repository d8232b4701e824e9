// linkctl: one command line for every RPC of linkaged.
//
//   linkctl [--server host:port] [--world NAME] [--json] [--token T] [--tls-ca CA.pem] NOUN VERB [flags]
//
// Exit codes follow the gRPC status: 0 OK, 3 INVALID_ARGUMENT (also for bad
// flags and values, caught before any call), 5 NOT_FOUND (also a file that
// cannot be read), 9 FAILED_PRECONDITION, 14 UNAVAILABLE (no server), ...
// The message goes to standard error, as "error: CODE: message", or with
// --json as {"error": {"code": ..., "name": ..., "message": ...}}.
#include <cstdlib>
#include <iostream>

#include "completion.hpp"
#include "linkage/client/proto.hpp"
#include "linkctl.hpp"

namespace {

using namespace linkage::linkctl;

int report(const Context& ctx, grpc::StatusCode code, const std::string& message) {
  if (ctx.json) {
    std::string escaped;
    for (char c : message) {
      if (c == '"' || c == '\\') escaped += '\\';
      if (c == '\n') {
        escaped += "\\n";
        continue;
      }
      escaped += c;
    }
    std::cerr << "{\"error\": {\"code\": " << static_cast<int>(code) << ", \"name\": \"" << lc::code_name(code)
              << "\", \"message\": \"" << escaped << "\"}}\n";
  } else {
    std::cerr << "error: " << lc::code_name(code) << ": " << message << "\n";
  }
  return static_cast<int>(code);
}

}  // namespace

namespace linkage::linkctl {

void Context::secure(lc::ConnectOptions& options) const {
  options.token = token;
  options.tls = tls;
  if (!tls_ca.empty()) options.tls_ca = read_file(tls_ca);
  if (!tls_cert.empty()) options.tls_cert = read_file(tls_cert);
  if (!tls_key.empty()) options.tls_key = read_file(tls_key);
  options.tls_server_name = tls_server_name;
  if (options.tls_cert.empty() != options.tls_key.empty())
    bad_flag("--tls-cert and --tls-key: a client certificate needs both (the certificate and its key)");
}

}  // namespace linkage::linkctl

int main(int argc, char** argv) {
  Context ctx;
  if (const char* server = std::getenv("LINKCTL_SERVER"); server && *server) ctx.server = server;
  if (const char* world = std::getenv("LINKCTL_WORLD"); world && *world) ctx.world = world;
  if (const char* token = std::getenv("LINKCTL_TOKEN"); token && *token) ctx.token = token;

  CLI::App app("linkctl: control a linkaged server (worlds, bodies, constraints, forces, scenes, streams)", "linkctl");
  app.footer(
      "\nExamples:\n"
      "  linkctl world create lab --solver cg --integrator rk4\n"
      "  linkctl --world lab body add --name bob --pos 1,0 --mass 1\n"
      "  linkctl --world lab constraint add distance --b bob --length 1\n"
      "  linkctl --world lab watch --rate 10\n\n"
      "Bodies are named by id (3:1, index:generation), index alone (3) or name (bob).\n"
      "Every command takes --json. Exit codes are gRPC status codes (0 OK, 3 INVALID_ARGUMENT,\n"
      "5 NOT_FOUND, 7 PERMISSION_DENIED, 9 FAILED_PRECONDITION, 14 UNAVAILABLE, 16 UNAUTHENTICATED ...).\n"
      "`linkctl NOUN --help` for more.");
  app.require_subcommand(1);
  app.add_option("--server,-s", ctx.server, "host:port of linkaged (env LINKCTL_SERVER; default 127.0.0.1:50051)");
  app.add_option("--world,-w", ctx.world, "the world to act on (env LINKCTL_WORLD; default 'default')")
      ->type_name("WORLD");  // completion.hpp: completed with the server's worlds
  app.add_flag("--json", ctx.json, "JSON output (the proto3 JSON mapping), for scripts");
  app.add_option("--timeout", ctx.timeout, "seconds for connecting and for each call (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--token", ctx.token,
                 "sent as 'authorization: Bearer TOKEN' (env LINKCTL_TOKEN), for a server started with --tokens");
  app.add_flag("--tls", ctx.tls, "connect over TLS, trusting the system's CAs (or --tls-ca)")->envname("LINKCTL_TLS");
  app.add_option("--tls-ca", ctx.tls_ca, "connect over TLS, trusting the CA in this PEM file (env LINKCTL_TLS_CA)")
      ->envname("LINKCTL_TLS_CA");
  app.add_option("--tls-cert", ctx.tls_cert, "a client certificate (PEM file), for a server that asks for one")
      ->envname("LINKCTL_TLS_CERT");
  app.add_option("--tls-key", ctx.tls_key, "the client certificate's private key (PEM file)")
      ->envname("LINKCTL_TLS_KEY");
  app.add_option("--tls-server-name", ctx.tls_server_name,
                 "the name the server's certificate must carry, when not the --server host")
      ->envname("LINKCTL_TLS_SERVER_NAME");

  add_world_commands(app, ctx);
  add_body_commands(app, ctx);
  add_constraint_commands(app, ctx);
  add_force_commands(app, ctx);
  add_watch_command(app, ctx);
  add_completion_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    // CLI11's words, then the hint, as an INVALID_ARGUMENT. A word it could
    // not place is most often a mistyped noun or verb: say which.
    std::string message = e.what();
    if (!app.remaining().empty()) message = "unknown command or argument '" + app.remaining().front() + "' (" + message + ")";
    const int code = report(ctx, grpc::StatusCode::INVALID_ARGUMENT, message);
    std::cerr << "Run with --help for the usage.\n";
    return code;
  } catch (const Failure& f) {
    return report(ctx, f.code, f.message);
  } catch (const std::exception& e) {
    return report(ctx, grpc::StatusCode::INTERNAL, e.what());
  }
  return 0;
}
