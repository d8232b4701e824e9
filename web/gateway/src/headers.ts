// Which headers cross the gateway. Everything a caller attaches as metadata
// (authorization, x-request-id, custom-bin, …) passes both ways; what belongs
// to one hop or to the wire protocol on one side of the gateway stays there,
// because the other side speaks a different protocol (HTTP/1.1 Connect or
// gRPC-Web in front, HTTP/2 gRPC behind) and sets its own.

const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

const protocol = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "accept",
  "accept-encoding",
  "user-agent",
  "x-user-agent",
  "x-grpc-web",
  "date",
]);

// connect-* and grpc-* carry the protocol's own framing, deadlines,
// compression and status; the deadline is forwarded as a number instead.
const protocolPrefixes = ["connect-", "grpc-", ":"];

function crosses(name: string, alsoHopByHop: ReadonlySet<string>): boolean {
  return (
    !hopByHop.has(name) &&
    !protocol.has(name) &&
    !alsoHopByHop.has(name) &&
    !protocolPrefixes.some((prefix) => name.startsWith(prefix))
  );
}

// Headers named in Connection are hop-by-hop too (RFC 9110 §7.6.1).
function namedInConnection(headers: Headers): Set<string> {
  const value = headers.get("connection") ?? "";
  return new Set(
    value
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ""),
  );
}

/** The caller's metadata, without what belongs to its hop or its protocol. */
export function forwardable(headers: Headers): Headers {
  const connection = namedInConnection(headers);
  const out = new Headers();
  headers.forEach((value, name) => {
    if (crosses(name, connection)) out.append(name, value);
  });
  return out;
}

/** Appends the forwardable part of `from` to `to`. */
export function copyForwardable(from: Headers, to: Headers): void {
  forwardable(from).forEach((value, name) => to.append(name, value));
}
