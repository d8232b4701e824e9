// Forwards every method of the given services to the upstream transport: the
// browser's call becomes a native gRPC call to linkaged with the same
// message, metadata and deadline, and linkaged's answer (message or stream,
// headers, trailers, error code and message) becomes the browser's.
import type {
  DescMessage,
  DescMethod,
  DescMethodServerStreaming,
  DescMethodUnary,
  DescService,
  MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type HandlerContext, type Transport } from "@connectrpc/connect";
import { copyForwardable, forwardable } from "./headers.js";
import type { GatewayMetrics } from "./metrics.js";
import { linkedAbort } from "./signals.js";

/**
 * Routes every method of `services` to `upstream`, counting each call in
 * `metrics`. When `shutdown` aborts, open streams end with its reason; unary
 * calls are left to finish.
 */
export function forwardServices(
  router: ConnectRouter,
  services: readonly DescService[],
  upstream: Transport,
  shutdown: AbortSignal,
  metrics: GatewayMetrics,
): void {
  for (const service of services) {
    for (const method of service.methods) {
      // As linkaged's metrics name it: the call's path.
      const procedure = `/${service.typeName}/${method.name}`;
      if (isUnary(method)) {
        router.rpc(method, forwardUnary(method, upstream, metrics, procedure));
      } else if (isServerStreaming(method)) {
        router.rpc(method, forwardServerStream(method, upstream, shutdown, metrics, procedure));
      } else {
        // Browsers cannot send request streams over HTTP/1.1, so such a
        // method would be unusable through the gateway: refuse to start.
        throw new Error(`${service.typeName}.${method.name}: ${method.methodKind} methods are not forwarded`);
      }
    }
  }
}

// DescMethod's kind does not narrow its type by itself.
function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === "unary";
}

function isServerStreaming(method: DescMethod): method is DescMethodServerStreaming {
  return method.methodKind === "server_streaming";
}

function forwardUnary<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  upstream: Transport,
  metrics: GatewayMetrics,
  procedure: string,
) {
  return async (request: MessageShape<I>, context: HandlerContext): Promise<MessageShape<O>> => {
    const end = metrics.call(procedure);
    try {
      const response = await upstream.unary(
        method,
        context.signal,
        context.timeoutMs(),
        forwardable(context.requestHeader),
        request,
      );
      copyForwardable(response.header, context.responseHeader);
      copyForwardable(response.trailer, context.responseTrailer);
      end();
      return response.message;
    } catch (error) {
      const answer = relayed(error, context);
      end(answer);
      throw answer;
    }
  };
}

function forwardServerStream<I extends DescMessage, O extends DescMessage>(
  method: DescMethodServerStreaming<I, O>,
  upstream: Transport,
  shutdown: AbortSignal,
  metrics: GatewayMetrics,
  procedure: string,
) {
  return async function* (request: MessageShape<I>, context: HandlerContext): AsyncIterable<MessageShape<O>> {
    const end = metrics.stream(procedure);
    // Ends the upstream call on every way out of here: the browser went away
    // or the deadline passed (context.signal), the gateway shuts down, or
    // the response writer stopped pulling because a write failed.
    const upstreamCall = linkedAbort(context.signal);
    const onShutdown = () => upstreamCall.abort(shutdown.reason);
    if (shutdown.aborted) onShutdown();
    shutdown.addEventListener("abort", onShutdown, { once: true });
    try {
      const response = await upstream.stream(
        method,
        upstreamCall.signal,
        context.timeoutMs(),
        forwardable(context.requestHeader),
        single(request),
      );
      copyForwardable(response.header, context.responseHeader);
      // One message at a time: the next frame is read from linkaged only
      // once this one has been written to the browser, so a slow browser
      // holds back HTTP/2 flow control rather than gateway memory, and
      // linkaged skips frames for it as it does for any slow client.
      for await (const message of response.message) {
        metrics.message(procedure);
        yield message;
      }
      copyForwardable(response.trailer, context.responseTrailer);
      end();
    } catch (error) {
      const answer = relayed(error, context);
      end(answer);
      throw answer;
    } finally {
      // Left without an end: the response writer stopped pulling (the browser went away).
      end(new ConnectError("the browser went away", Code.Canceled));
      shutdown.removeEventListener("abort", onShutdown);
      upstreamCall.abort();
    }
  };
}

async function* single<T>(message: T): AsyncIterable<T> {
  yield message;
}

// The upstream's error with its code, message, metadata and details; or, if
// the call ended on this side (deadline, the browser left), the reason it
// ended, which is what the browser should see. A shutdown's reason arrives
// as the upstream call's error.
function relayed(error: unknown, context: HandlerContext): ConnectError {
  if (context.signal.aborted) {
    return ConnectError.from(context.signal.reason);
  }
  const upstream = ConnectError.from(error);
  const relayed = new ConnectError(upstream.rawMessage, upstream.code, forwardable(upstream.metadata));
  relayed.details = upstream.details;
  return relayed;
}
