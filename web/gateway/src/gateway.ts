// The gateway's HTTP server: the linkage.v1 API (Connect and gRPC-Web),
// /healthz, /scenes/ and the viewer, over HTTP/1.1 (what browsers use here).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createSecureServer, type Server as SecureServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { file_linkage_v1_service } from "@linkage/proto/service_pb";
import { formatAddress, type Config } from "./config.js";
import { forwardServices } from "./forward.js";
import { healthHandler } from "./health.js";
import { GatewayMetrics, serveMetrics } from "./metrics.js";
import { requestPath, sendText } from "./respond.js";
import { scenesHandler, scenesPrefix } from "./scenes.js";
import { staticHandler } from "./static.js";
import { serveTls } from "./tls.js";
import { connectUpstream, maxMessageBytes, type Upstream } from "./upstream.js";

export interface Gateway {
  /** The URL it serves on, once listening. */
  url: string;
  /** Where its Prometheus metrics are, with config.metricsListen. */
  metricsUrl?: string;
  /** Stops accepting, ends open streams with UNAVAILABLE, resolves when all is closed. */
  close(): Promise<void>;
}

// How long unary calls get to finish, and streams to deliver their
// UNAVAILABLE, before the connections are cut.
const drainMs = 1000;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Serves on config.listen, forwarding to `upstream` (by default linkaged at config.upstream). */
export async function startGateway(
  config: Config,
  upstream: Upstream = connectUpstream(config.upstream, config.upstreamTls),
): Promise<Gateway> {
  const shutdown = new AbortController();
  const metrics = new GatewayMetrics();
  const health = healthHandler(upstream.transport, formatAddress(config.upstream));
  const scenes = scenesHandler(config.scenesDir);
  const files = staticHandler(config.staticDir);
  const services = file_linkage_v1_service.services;
  const apiPrefix = `/${file_linkage_v1_service.proto.package}.`;
  const other: Handler = async (req, res) => {
    const path = requestPath(req) ?? "";
    if (path.startsWith(apiPrefix)) return sendText(res, 404, `${path}: no such procedure`);
    if (path === "/healthz") return health(req, res);
    if (path.startsWith(scenesPrefix)) return scenes(req, res);
    return files(req, res);
  };

  const api = connectNodeAdapter({
    // HTTP/1.1 only: native gRPC needs HTTP/2, and clients that have it can
    // call linkaged directly.
    grpc: false,
    readMaxBytes: maxMessageBytes,
    writeMaxBytes: maxMessageBytes,
    routes: (router) => forwardServices(router, services, upstream.transport, shutdown.signal, metrics),
    // The server below is node:http, so requests are HTTP/1.1 ones.
    fallback: (req, res) => guarded(other, req as IncomingMessage, res as ServerResponse),
  });

  const secure = config.tls ? serveTls(config.tls) : undefined;
  const server = secure ? createSecureServer(secure.options(), api) : createServer(api);
  secure?.watch(server as SecureServer);
  await listen(server, config.listen.host, config.listen.port);
  const { address, port } = server.address() as AddressInfo;
  const metricsServer = config.metricsListen
    ? await serveMetrics(metrics, config.metricsListen).catch((error: unknown) => {
        server.close();
        throw error;
      })
    : undefined;

  return {
    url: `${secure ? "https" : "http"}://${formatAddress({ host: address, port })}/`,
    metricsUrl: metricsServer?.url,
    close: async () => {
      secure?.unwatch();
      const closed = new Promise<void>((done) => server.close(() => done()));
      shutdown.abort(new ConnectError("the gateway is shutting down", Code.Unavailable));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), drainMs);
      await closed;
      clearTimeout(cut);
      await metricsServer?.close();
      upstream.close();
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      done();
    });
  });
}

// A failure in a plain-HTTP handler answers 500 (or ends the response if it
// had started) instead of reaching the process.
function guarded(handler: Handler, req: IncomingMessage, res: ServerResponse): void {
  handler(req, res).catch((error: unknown) => {
    console.error(`${req.method} ${req.url}:`, error);
    if (!res.headersSent) sendText(res, 500, "internal error");
    else res.destroy();
  });
}
