// /healthz for container and Kubernetes probes: healthy means linkaged
// answers the standard gRPC health check with SERVING, so a gateway whose
// upstream is gone, wedged or draining is taken out of rotation.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ConnectError, type Transport } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@linkage/proto/health/health_pb";
import { readOnly, sendText } from "./respond.js";

const probeTimeoutMs = 2000;

export function healthHandler(upstream: Transport, upstreamName: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!readOnly(req, res)) return;
    try {
      // The empty service name asks about the server as a whole.
      const { message } = await upstream.unary(Health.method.check, undefined, probeTimeoutMs, undefined, { service: "" });
      if (message.status === Status.SERVING) sendText(res, 200, "ok");
      else sendText(res, 503, `linkaged at ${upstreamName} is ${Status[message.status]}`);
    } catch (error) {
      const reason = ConnectError.from(error);
      sendText(res, 503, `linkaged at ${upstreamName} does not answer: ${reason.message}`);
    }
  };
}
