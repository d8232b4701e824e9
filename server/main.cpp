// linkaged: the linkage simulation server, and its offline simulate mode.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "access/token_command.hpp"
#include "config_file.hpp"
#include "host/memory_gate.hpp"
#include "options.hpp"

using linkage::server::ServeOptions;
using linkage::server::ReplayOptions;
using linkage::server::SimulateOptions;

int main(int argc, char** argv) {
  CLI::App app{
      "linkaged — a constrained-dynamics simulation server.\n"
      "Owns named worlds, steps each at a fixed rate on its own thread, and serves the linkage.v1 gRPC API\n"
      "(worlds, bodies, constraints, forces, scenes, batches, state streams) with health checking and reflection.\n"
      "A world named 'default' exists from the start.",
      "linkaged"};
  ServeOptions serve;
  // Every flag of the server also comes from a TOML file (--config, or
  // LINKAGE_CONFIG) and from LINKAGE_<FLAG> in the environment
  // (--max-worlds: LINKAGE_MAX_WORLDS), for containers; the command line
  // wins, then the environment, then the file (config_file.hpp).
  const char* env_config = std::getenv("LINKAGE_CONFIG");
  app.config_formatter(std::make_shared<linkage::server::ConfigUnderEnvironment>(app));
  app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key is an error, not ignored
  CLI::Option* config =
      app.set_config("--config", env_config ? env_config : "",
                     "read the server's flags from this TOML file (keys are the flags without their dashes; see below); "
                     "flags and LINKAGE_* variables win over it. Env: LINKAGE_CONFIG");
  auto option = [&app](const std::string& flag, auto& value, const std::string& help) {
    std::string env = "LINKAGE_";
    for (const char c : flag.substr(2)) env += c == '-' ? '_' : static_cast<char>(std::toupper(c));
    return app.add_option(flag, value, help)->envname(env)->capture_default_str();
  };
  option("--listen", serve.listen, "address to serve on, host:port");
  option("--tick-rate", serve.tick_rate, "ticks per second of new worlds (Hz), within --min-tick-rate and --max-tick-rate");
  option("--scene", serve.scene, "a scene JSON file to load into the default world");
  option("--log-level", serve.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  option("--log-format", serve.log_format,
         "text (spdlog's lines) or json (one object a line: time, level, world, event, message, fields)")
      ->check(CLI::IsMember({"text", "json"}));
  option("--max-worlds", serve.limits.max_worlds, "worlds on the server")->check(CLI::PositiveNumber);
  option("--max-bodies", serve.limits.world.max_bodies, "bodies per world")->check(CLI::PositiveNumber);
  option("--max-constraints", serve.limits.world.max_constraints, "constraints per world")->check(CLI::PositiveNumber);
  option("--max-forces", serve.limits.world.max_forces, "springs and applied forces per world")
      ->check(CLI::PositiveNumber);
  option("--max-streams", serve.limits.max_streams, "open state streams, all worlds together")
      ->check(CLI::PositiveNumber);
  option("--max-stream-rate", serve.limits.max_stream_rate, "snapshots per second a stream may ask for (Hz)")
      ->check(CLI::PositiveNumber);
  option("--min-stream-rate", serve.limits.min_stream_rate,
         "the lowest snapshot rate a stream may ask for (Hz; 0 still means every tick)")
      ->check(CLI::PositiveNumber);
  option("--min-tick-rate", serve.limits.settings.min_tick_rate, "the lowest tick rate a world may have (Hz)")
      ->check(CLI::PositiveNumber);
  option("--max-tick-rate", serve.limits.settings.max_tick_rate, "the highest tick rate a world may have (Hz, ≤ 10000)")
      ->check(CLI::Range(0.0, 10000.0));
  option("--max-iterations", serve.limits.settings.max_iterations,
         "the most iterations any solver or projection setting of a world may ask for")
      ->check(CLI::Range(1, 1000000));
  option("--max-threads", serve.limits.settings.max_threads,
         "the most threads one world may step with (its settings' threads)")
      ->check(CLI::Range(1, 64));
  option("--watchdog-factor", serve.limits.world.watchdog.factor,
         "a running world's step overruns when it takes longer than this times its tick period")
      ->check(CLI::Range(1.0, 1e6));
  option("--watchdog-ticks", serve.limits.world.watchdog.ticks,
         "overrunning steps in a row that make the server pause a world, or one step as long as they would take (0: never)")
      ->check(CLI::Range(0, 1000000));
  option("--max-message-bytes", serve.max_message_bytes, "largest request or response (bytes)")
      ->check(CLI::PositiveNumber);
  option("--max-connections", serve.max_connections,
         "connections open at once (more are closed as they come); 0: the limit on open files less 256, kept for "
         "the server's own files")
      ->check(CLI::Range(0, 1 << 30));
  option("--max-connections-per-peer", serve.max_connections_per_peer,
         "connections open at once from one address (more from it are closed as they come); 0: no limit")
      ->check(CLI::Range(0, 1 << 30));
  option("--max-unread-bytes", serve.limits.unread.total,
         "bytes of answers and stream frames made for clients that they have not read yet, all clients together "
         "(past it calls are refused, RESOURCE_EXHAUSTED, and frames skipped); 0: no limit")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  option("--max-unread-bytes-per-peer", serve.limits.unread.per_peer,
         "the same, for the clients at one address; 0: no limit")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  serve.limits.max_memory = static_cast<std::int64_t>(linkage::server::MemoryGate::default_limit());
  option("--max-memory", serve.limits.max_memory,
         "bytes of memory the server may grow to by changes to its worlds: past it (its resident set, and what "
         "changes not yet stepped are expected to take) a change that would grow a world is refused, "
         "RESOURCE_EXHAUSTED; the default is three quarters of the memory this process may use (its cgroup's "
         "limit, else the machine's); 0: no limit")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
  option("--max-transport-bytes", serve.max_transport_bytes,
         "memory gRPC may hold for connections (read buffers, requests still arriving, calls): near it, it grants "
         "smaller windows, and at it cancels calls until under again; 0: no limit")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  option("--tokens", serve.access.tokens,
         "a token file (NAME ROLE WORLDS sha256:HASH a line; `linkaged token new` makes them): every call then "
         "needs 'authorization: Bearer TOKEN'; read again on SIGHUP and when it changes")
      ->check(CLI::ExistingFile);
  option("--tls-cert", serve.access.tls_cert, "serve TLS with this PEM certificate chain (with --tls-key)");
  option("--tls-key", serve.access.tls_key, "the PEM private key of --tls-cert");
  option("--tls-client-ca", serve.access.tls_client_ca,
         "ask clients for a certificate signed by this PEM CA (mutual TLS)");
  option("--tls-client-auth", serve.access.tls_client_auth,
         "with --tls-client-ca: require a client certificate, or accept calls without one (optional)")
      ->check(CLI::IsMember({"require", "optional"}));
  option("--tls-reload-seconds", serve.access.tls_reload_seconds,
         "how often the TLS files are read again (a renewed certificate is served without a restart)")
      ->check(CLI::Range(1, 86400));
  option("--metrics-listen", serve.metrics_listen,
         "serve Prometheus metrics at http://HOST:PORT/metrics (no TLS, no token: keep it on loopback or a "
         "network only the scraper reaches); empty: off");
  app.add_flag("--insecure", serve.access.insecure,
               "serve a non-loopback --listen address without TLS or tokens (otherwise refused)")
      ->envname("LINKAGE_INSECURE");
  option("--data-dir", serve.data_dir,
         "keep every world here (a journal of its changes and checkpoints) and restore them at start-up; "
         "empty: worlds live in memory only");
  option("--checkpoint-seconds", serve.durability.checkpoint_seconds,
         "a durable world's checkpoint every this many seconds of its time (and at SIGTERM)")
      ->check(CLI::Range(0.001, 1e9));
  option("--keep-checkpoints", serve.durability.keep,
         "checkpoints (with their journals) kept per world: how far back replay and fork reach")
      ->check(CLI::Range(2, 1000000));
  app.footer(
      "Examples:\n"
      "  linkaged --scene scenes/demo.json                 serve on 127.0.0.1:50051 with the demo in 'default'\n"
      "  linkaged --tick-rate 120                          worlds at 120 Hz\n"
      "  linkaged simulate scenes/chain.json --seconds 5 --out chain.jsonl\n"
      "  linkaged token new ops --role admin                prints a new token, then its line for a --tokens file\n"
      "  linkaged --listen 0.0.0.0:50051 --tls-cert c.pem --tls-key k.pem --tokens tokens   serve other machines\n"
      "  linkaged --data-dir /var/lib/linkage                worlds survive restarts and crashes\n"
      "  linkaged replay /var/lib/linkage/worlds/default --to-tick 600 --out at600.json\n"
      "  linkaged --config /etc/linkage/linkaged.toml --log-format json\n"
      "Every flag of the server can also come from its environment variable (LINKAGE_LISTEN, LINKAGE_TICK_RATE, ...,\n"
      "shown above as ENV) and from a --config file; a flag on the command line wins, then the environment, then\n"
      "the file. A config file:\n"
      "  # /etc/linkage/linkaged.toml\n"
      "  listen = \"0.0.0.0:50051\"\n"
      "  tick-rate = 120\n"
      "  tls-cert = \"/etc/linkage/tls/tls.crt\"\n"
      "  tls-key = \"/etc/linkage/tls/tls.key\"\n"
      "  tokens = \"/etc/linkage/tokens\"\n"
      "  data-dir = \"/var/lib/linkage\"\n"
      "  metrics-listen = \"0.0.0.0:9090\"\n"
      "  log-format = \"json\"\n"
      "  insecure = false");

  SimulateOptions sim;
  CLI::App* simulate = app.add_subcommand(
      "simulate", "run a scene offline as fast as the machine allows, writing states and diagnostics as JSON Lines");
  simulate->add_option("scene", sim.scene, "the scene JSON file")->required()->check(CLI::ExistingFile);
  auto* seconds = simulate->add_option("--seconds", sim.seconds, "simulated seconds to run")
                      ->check(CLI::PositiveNumber)
                      ->capture_default_str();
  simulate->add_option("--steps", sim.steps, "steps to run instead of --seconds")
      ->check(CLI::PositiveNumber)
      ->excludes(seconds);
  simulate->add_option("--out", sim.out, "write one JSON line per written step (a linkage.v1.Snapshot) to this file");
  simulate->add_option("--every", sim.every, "write every N-th step")->check(CLI::PositiveNumber)->capture_default_str();

  ReplayOptions rep;
  CLI::App* replay = app.add_subcommand(
      "replay", "rebuild a world from its directory in a data directory (--data-dir) at a recorded tick, and print "
                "its tick, time and state hash");
  replay->add_option("dir", rep.dir, "the world's directory: <data-dir>/worlds/<world>")
      ->required()
      ->check(CLI::ExistingDirectory);
  replay->add_option("--to-tick", rep.to_tick, "the tick to rebuild (default: the last one recorded)");
  replay->add_option("--out", rep.out, "write the world at that tick as a scene JSON file");

  linkage::server::access::TokenCommand tok;
  CLI::App* token = app.add_subcommand("token", "make a line for the --tokens file");
  token->require_subcommand(1);
  CLI::App* token_new = token->add_subcommand(
      "new", "make a random token: prints the token (give it to the client; it is kept nowhere), then its line");
  CLI::App* token_hash =
      token->add_subcommand("hash", "the line for a token of your own, read from standard input");
  for (CLI::App* sub : {token_new, token_hash}) {
    sub->add_option("name", tok.name, "who the token is for (letters, digits, '-', '_', '.')")->required();
    sub->add_option("--role", tok.role, "viewer (read, stream), editor (also change worlds), admin (also create, "
                                        "delete, load scenes)")
        ->required()
        ->check(CLI::IsMember({"viewer", "editor", "admin"}));
    sub->add_option("--worlds", tok.worlds, "the worlds it may act on: '*' or a comma-separated list")
        ->capture_default_str();
  }

  CLI11_PARSE(app, argc, argv);
  // A file named by LINKAGE_CONFIG is read as if given with --config; one that is
  // not there is an error, as it is for --config (CLI11 would pass it over).
  if (env_config && *env_config && config->count() == 0) {
    std::cerr << "LINKAGE_CONFIG: cannot read " << env_config << "\n";
    return 2;
  }
  if (token->parsed()) {
    tok.fresh = token_new->parsed();
    return linkage::server::access::token_command(tok);
  }
  if (simulate->parsed()) return linkage::server::simulate(sim);
  if (replay->parsed()) return linkage::server::replay(rep);
  return linkage::server::serve(serve);
}
