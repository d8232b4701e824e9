// /healthz for container and Kubernetes probes: healthy means linkaged
// answers a real API call, so a gateway whose upstream is gone or wedged
// is taken out of rotation.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ConnectError, type Transport } from "@connectrpc/connect";
import { WorldService } from "@linkage/proto/service_pb";
import { readOnly, sendText } from "./respond.js";

const probeTimeoutMs = 2000;

export function healthHandler(upstream: Transport, upstreamName: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!readOnly(req, res)) return;
    try {
      await upstream.unary(WorldService.method.listWorlds, undefined, probeTimeoutMs, undefined, {});
      sendText(res, 200, "ok");
    } catch (error) {
      const reason = ConnectError.from(error);
      sendText(res, 503, `linkaged at ${upstreamName} does not answer: ${reason.message}`);
    }
  };
}
