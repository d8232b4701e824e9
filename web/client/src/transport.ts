// How a Client reaches linkaged: over HTTP with fetch (browsers, and Node
// from 18) to the web gateway, which speaks Connect and gRPC-Web to browsers
// and gRPC to linkaged; or over any Connect transport given (such as
// @connectrpc/connect-node's createGrpcTransport, straight to linkaged).
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { linkageError, rethrowing } from "./errors.js";

export interface ClientOptions {
  /**
   * The gateway's URL, e.g. "http://127.0.0.1:8080". In a browser the
   * page's own origin when not given.
   */
  baseUrl?: string;
  /**
   * A bearer token sent with every call as `authorization: Bearer <token>`;
   * a function is asked before each call, so the token can change while the
   * client lives. Empty or undefined sends none.
   */
  token?: string | (() => string | undefined);
  /**
   * "grpc-web" (the default) answers errors with HTTP 200 and a grpc-status,
   * so a browser does not also log an expected NOT_FOUND as a failed
   * request; "connect" is Connect's own protocol. Both binary.
   */
  protocol?: "grpc-web" | "connect";
  /**
   * A transport of your own instead (baseUrl and protocol are then unused;
   * the token and timeout still apply).
   */
  transport?: Transport;
  /**
   * A deadline for each unary call that gives none, in milliseconds; none
   * when not given. Streams have none unless their call gives one.
   */
  timeoutMs?: number;
}

export function createTransport(options: ClientOptions): Transport {
  if (options.transport) return linkageTransport(options.transport, options, undefined);
  const baseUrl = options.baseUrl ?? (typeof location !== "undefined" ? location.origin : undefined);
  if (!baseUrl) throw new TypeError("@linkage/client: give baseUrl (the gateway's URL) or a transport");
  const make = options.protocol === "connect" ? createConnectTransport : createGrpcWebTransport;
  return linkageTransport(make({ baseUrl, useBinaryFormat: true }), options, baseUrl);
}

// A transport that adds the token and the default deadline to every call and
// raises LinkageError, at once (unary) or while a stream is read. Done around
// the transport rather than as interceptors so that a transport given by the
// caller gets the same.
function linkageTransport(inner: Transport, options: ClientOptions, where: string | undefined): Transport {
  const headers = (given: HeadersInit | undefined): Headers => {
    const h = new Headers(given);
    const token = typeof options.token === "function" ? options.token() : options.token;
    if (token && !h.has("authorization")) h.set("authorization", `Bearer ${token}`);
    return h;
  };
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      try {
        return await inner.unary(method, signal, timeoutMs ?? options.timeoutMs, headers(header), input, contextValues);
      } catch (err) {
        throw linkageError(err, where);
      }
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      try {
        const res = await inner.stream(method, signal, timeoutMs, headers(header), input, contextValues);
        return { ...res, message: rethrowing(res.message, where) };
      } catch (err) {
        throw linkageError(err, where);
      }
    },
  };
}
