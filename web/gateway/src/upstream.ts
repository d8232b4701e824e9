// The native gRPC connection to linkaged, one HTTP/2 session shared by all
// browser calls. The session manager is kept so shutdown can close it.
import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { readFileSync } from "node:fs";
import type { SecureClientSessionOptions } from "node:http2";
import { formatAddress, type Address, type UpstreamTls } from "./config.js";

export interface Upstream {
  transport: Transport;
  close(): void;
}

// linkaged refuses messages above its --max-message-bytes (16 MiB by default).
export const maxMessageBytes = 16 * 1024 * 1024;

export function connectUpstream(address: Address, tls?: UpstreamTls): Upstream {
  const url = `${tls ? "https" : "http"}://${formatAddress(address)}`;
  // Pings notice a linkaged that vanished without closing the connection,
  // so open streams fail over instead of hanging.
  const sessions = new Http2SessionManager(
    url,
    { pingIntervalMs: 15_000, pingTimeoutMs: 5_000 },
    tls ? tlsOptions(tls) : undefined,
  );
  const transport = createGrpcTransport({
    baseUrl: url,
    sessionManager: sessions,
    readMaxBytes: maxMessageBytes,
    writeMaxBytes: maxMessageBytes,
  });
  return { transport, close: () => sessions.abort() };
}

// Read at start-up: a renewed CA or client certificate takes a restart
// (linkaged's own certificate may change freely under the same CA).
function tlsOptions(tls: UpstreamTls): SecureClientSessionOptions {
  return {
    ca: tls.ca === undefined ? undefined : readFileSync(tls.ca),
    cert: tls.cert === undefined ? undefined : readFileSync(tls.cert),
    key: tls.key === undefined ? undefined : readFileSync(tls.key),
    servername: tls.serverName,
  };
}
