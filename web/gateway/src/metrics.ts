// The gateway's Prometheus metrics (prom-client), served as text on a port
// of their own (--metrics-listen), apart from the port browsers reach: the
// calls it forwarded by procedure and status code with their latency, the
// streams open and the messages relayed on them, and Node's process metrics.
// Labels are few: procedures are the routed linkage.v1 methods only, codes
// gRPC's seventeen.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConnectError } from "@connectrpc/connect";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { formatAddress, type Address } from "./config.js";
import { readOnly, requestPath, sendText } from "./respond.js";

/** gRPC's status code names, by number (Connect's Code has the same numbers). */
export const codeNames = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** The code a call ended with: OK without an error. */
export function codeName(error?: unknown): string {
  if (error === undefined) return "OK";
  return codeNames[ConnectError.from(error).code] ?? "UNKNOWN";
}

export class GatewayMetrics {
  /** Its own registry, so that gateways in one process (tests) count apart. */
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "linkage_gateway_requests_total",
    help: "Calls forwarded to linkaged, by procedure and the status code the browser got.",
    labelNames: ["procedure", "code"] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: "linkage_gateway_request_duration_seconds",
    help: "Time from a call's arrival to its end, by procedure (a stream's whole life).",
    labelNames: ["procedure"] as const,
    buckets: [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3, 10, 30],
    registers: [this.registry],
  });
  private readonly open = new Gauge({
    name: "linkage_gateway_streams_open",
    help: "Streams being relayed now.",
    registers: [this.registry],
  });
  private readonly messages = new Counter({
    name: "linkage_gateway_stream_messages_total",
    help: "Stream messages relayed from linkaged to browsers, by procedure.",
    labelNames: ["procedure"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "linkage_gateway_" });
  }

  /** A call begins; the function it returns ends it (the first call counts), with the error it ended with if any. */
  call(procedure: string): (error?: unknown) => void {
    const stop = this.duration.startTimer({ procedure });
    let ended = false;
    return (error?: unknown) => {
      if (ended) return;
      ended = true;
      stop();
      this.requests.inc({ procedure, code: codeName(error) });
    };
  }

  /** A stream begins; the function it returns ends it (once). */
  stream(procedure: string): (error?: unknown) => void {
    this.open.inc();
    const end = this.call(procedure);
    let ended = false;
    return (error?: unknown) => {
      if (!ended) this.open.dec();
      ended = true;
      end(error);
    };
  }

  message(procedure: string): void {
    this.messages.inc({ procedure });
  }
}

export interface MetricsServer {
  /** http://host:port/metrics */
  url: string;
  close(): Promise<void>;
}

/** Serves `metrics` at /metrics on `address` (port 0: any free one). */
export async function serveMetrics(metrics: GatewayMetrics, address: Address): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (requestPath(req) !== "/metrics") return sendText(res, 404, "only /metrics here");
    if (!readOnly(req, res)) return;
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => sendText(res, 500, `cannot collect the metrics: ${String(error)}`),
    );
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(address.port, address.host, () => {
      server.off("error", fail);
      done();
    });
  });
  const { address: host, port } = server.address() as AddressInfo;
  return {
    url: `http://${formatAddress({ host, port })}/metrics`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
