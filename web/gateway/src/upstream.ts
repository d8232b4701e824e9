// The native gRPC connection to linkaged, one HTTP/2 session shared by all
// browser calls. The session manager is kept so shutdown can close it.
import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { formatAddress, type Address } from "./config.js";

export interface Upstream {
  transport: Transport;
  close(): void;
}

// linkaged refuses messages above its --max-message-bytes (16 MiB by default).
export const maxMessageBytes = 16 * 1024 * 1024;

export function connectUpstream(address: Address): Upstream {
  const url = `http://${formatAddress(address)}`;
  // Pings notice a linkaged that vanished without closing the connection,
  // so open streams fail over instead of hanging.
  const sessions = new Http2SessionManager(url, { pingIntervalMs: 15_000, pingTimeoutMs: 5_000 });
  const transport = createGrpcTransport({
    baseUrl: url,
    sessionManager: sessions,
    readMaxBytes: maxMessageBytes,
    writeMaxBytes: maxMessageBytes,
  });
  return { transport, close: () => sessions.abort() };
}
