// The gateway's settings, from flags first, then environment variables, then
// defaults that fit a checkout of the repository (scripts/run.sh needs none).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface Address {
  host: string;
  port: number;
}

/** PEM files; see the options below. */
export interface UpstreamTls {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
}

export interface Config {
  upstream: Address;
  listen: Address;
  staticDir: string;
  scenesDir: string;
  /** Set: linkaged is reached over TLS. */
  upstreamTls?: UpstreamTls;
  /** Set: the gateway serves HTTPS with this certificate and key (PEM files). */
  tls?: { cert: string; key: string };
  /** Set: Prometheus metrics are served here, at /metrics (plain HTTP). */
  metricsListen?: Address;
}

// dist/main.js (or src/ under tests) sits three levels below the repository.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

interface Option {
  flag: string;
  env: string;
  fallback: string;
  help: string;
}

const options = {
  upstream: {
    flag: "--upstream",
    env: "LINKAGE_UPSTREAM",
    fallback: "127.0.0.1:50051",
    help: "linkaged's gRPC address, host:port",
  },
  listen: {
    flag: "--listen",
    env: "LINKAGE_WEB_LISTEN",
    fallback: "127.0.0.1:8080",
    help: "address to serve the viewer and the API on, host:port (port 0: any free port)",
  },
  static: {
    flag: "--static",
    env: "LINKAGE_WEB_STATIC",
    fallback: resolve(repo, "web", "app", "dist"),
    help: "directory of the viewer's built files",
  },
  scenes: {
    flag: "--scenes",
    env: "LINKAGE_SCENES",
    fallback: resolve(repo, "scenes"),
    help: "directory of scene JSON files served under /scenes/",
  },
  upstreamCa: {
    flag: "--upstream-ca",
    env: "LINKAGE_UPSTREAM_CA",
    fallback: "",
    help: "reach linkaged over TLS, trusting the CA in this PEM file (linkaged's --tls-cert is signed by it)",
  },
  upstreamCert: {
    flag: "--upstream-cert",
    env: "LINKAGE_UPSTREAM_CERT",
    fallback: "",
    help: "a client certificate (PEM file) for a linkaged that asks for one (--tls-client-ca)",
  },
  upstreamKey: {
    flag: "--upstream-key",
    env: "LINKAGE_UPSTREAM_KEY",
    fallback: "",
    help: "the private key of --upstream-cert (PEM file)",
  },
  upstreamServerName: {
    flag: "--upstream-server-name",
    env: "LINKAGE_UPSTREAM_SERVER_NAME",
    fallback: "",
    help: "the name linkaged's certificate must carry, when not --upstream's host",
  },
  tlsCert: {
    flag: "--tls-cert",
    env: "LINKAGE_WEB_TLS_CERT",
    fallback: "",
    help: "serve HTTPS with this PEM certificate chain (with --tls-key); read again when it changes",
  },
  tlsKey: {
    flag: "--tls-key",
    env: "LINKAGE_WEB_TLS_KEY",
    fallback: "",
    help: "the private key of --tls-cert (PEM file)",
  },
  metricsListen: {
    flag: "--metrics-listen",
    env: "LINKAGE_WEB_METRICS_LISTEN",
    fallback: "",
    help: "serve Prometheus metrics at http://HOST:PORT/metrics (plain HTTP, no token: keep it where only the scraper reaches)",
  },
} satisfies Record<string, Option>;

export const usage = `linkage-gateway — serves the linkage web viewer and forwards its Connect and
gRPC-Web calls (WorldService, BodyService, ConstraintService, ForceService)
to linkaged over gRPC.

Usage: node web/gateway/dist/main.js [OPTIONS]

Options:
${Object.values(options)
  .map((o) => `  ${o.flag} VALUE (env ${o.env}${o.fallback ? `, default ${o.fallback}` : ""})\n      ${o.help}`)
  .join("\n")}
  --help
      print this help and exit

Endpoints: / the viewer (index.html for unknown page paths), /linkage.v1.*/*
the API, /scenes/index.json and /scenes/<name>.json the scenes, /healthz 200
when linkaged answers and 503 when it does not; /metrics on --metrics-listen.
SIGTERM or SIGINT: stop accepting, end open streams with UNAVAILABLE, exit 0.`;

export type ParseResult = { help: true } | { help: false; config: Config };

/** Reads argv (without node and the script) and env; throws on bad input. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ParseResult {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") return { help: true };
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const option = Object.values(options).find((o) => o.flag === flag);
    if (option === undefined) throw new Error(`unknown argument '${arg}' (see --help)`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") throw new Error(`${flag} needs a value`);
    given.set(flag, value);
  }
  const value = (o: Option) => given.get(o.flag) ?? (env[o.env] || o.fallback);
  const file = (o: Option) => (value(o) === "" ? undefined : resolve(value(o)));
  const upstreamTls: UpstreamTls = {
    ca: file(options.upstreamCa),
    cert: file(options.upstreamCert),
    key: file(options.upstreamKey),
    serverName: value(options.upstreamServerName) || undefined,
  };
  if ((upstreamTls.cert === undefined) !== (upstreamTls.key === undefined))
    throw new Error("--upstream-cert and --upstream-key: a client certificate needs both");
  if (upstreamTls.cert !== undefined && upstreamTls.ca === undefined)
    throw new Error("--upstream-cert: a client certificate is sent over TLS only: add --upstream-ca");
  const [tlsCert, tlsKey] = [file(options.tlsCert), file(options.tlsKey)];
  if ((tlsCert === undefined) !== (tlsKey === undefined))
    throw new Error("--tls-cert and --tls-key: serving HTTPS needs both");
  return {
    help: false,
    config: {
      upstream: parseAddress(options.upstream.flag, value(options.upstream)),
      listen: parseAddress(options.listen.flag, value(options.listen)),
      staticDir: resolve(value(options.static)),
      scenesDir: resolve(value(options.scenes)),
      upstreamTls: upstreamTls.ca === undefined ? undefined : upstreamTls,
      tls: tlsCert === undefined || tlsKey === undefined ? undefined : { cert: tlsCert, key: tlsKey },
      metricsListen:
        value(options.metricsListen) === ""
          ? undefined
          : parseAddress(options.metricsListen.flag, value(options.metricsListen)),
    },
  };
}

/** host:port, with [v6]:port for IPv6 hosts. */
export function parseAddress(what: string, text: string): Address {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`${what}: '${text}' is not host:port`);
  return { host: match[1] ?? match[2], port };
}

export function formatAddress({ host, port }: Address): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
