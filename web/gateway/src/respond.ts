// Small plain-HTTP answers shared by the gateway's non-RPC endpoints.
import type { IncomingMessage, ServerResponse } from "node:http";

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text.endsWith("\n") ? text : `${text}\n`);
}

export function sendJson(req: IncomingMessage, res: ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-cache",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** True if the method is GET or HEAD; answers 405 otherwise. */
export function readOnly(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  sendText(res, 405, `${req.method} is not allowed here`, { allow: "GET, HEAD" });
  return false;
}

/** The request's path, percent-decoded; undefined if it cannot be decoded. */
export function requestPath(req: IncomingMessage): string | undefined {
  try {
    return decodeURIComponent(new URL(req.url ?? "/", "http://gateway").pathname);
  } catch {
    return undefined;
  }
}
