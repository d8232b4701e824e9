// A stand-in for linkaged that shows what reaches it: the gateway's tests
// check metadata, deadlines and cancellation against it, which linkaged
// itself does not report. Its health check says NOT_SERVING, as linkaged's
// does while it drains.
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@linkage/proto/health/health_pb";
import { SnapshotSchema } from "@linkage/proto/snapshot_pb";
import { WorldService } from "@linkage/proto/service_pb";

export interface FakeUpstream {
  address: string;
  /** Request headers of the last call. */
  lastHeader: Headers | undefined;
  /** The deadline the last call arrived with (ms left), if any. */
  lastTimeoutMs: number | undefined;
  /** Resolves once a StreamState call has been cancelled. */
  streamCancelled: Promise<void>;
  close(): Promise<void>;
}


export async function startFakeUpstream(): Promise<FakeUpstream> {
  let cancelled: () => void = () => {};
  const fake: FakeUpstream = {
    address: "",
    lastHeader: undefined,
    lastTimeoutMs: undefined,
    streamCancelled: new Promise((done) => (cancelled = done)),
    close: () => new Promise((done) => server.close(() => done())),
  };
  const server: Http2Server = createServer(
    connectNodeAdapter({
      routes: (router) =>
        router.service(Health, { check: () => ({ status: HealthCheckResponse_ServingStatus.NOT_SERVING }) }).service(WorldService, {
          listWorlds(_, context) {
            fake.lastHeader = context.requestHeader;
            fake.lastTimeoutMs = context.timeoutMs();
            context.responseHeader.set("x-reply", context.requestHeader.get("x-custom") ?? "");
            context.responseTrailer.set("x-trailer", "after");
            return { worlds: [{ name: "fake" }] };
          },
          getWorld(request) {
            throw new ConnectError(`world: no world named '${request.world}'`, Code.NotFound, { "x-error-info": "why" });
          },
          async *streamState(_, context) {
            context.signal.addEventListener("abort", () => cancelled());
            context.responseHeader.set("x-stream", "open");
            for (let tick = 0n; !context.signal.aborted; tick++) {
              yield create(SnapshotSchema, { world: "fake", tick });
              await new Promise((wait) => setTimeout(wait, 10));
            }
          },
        }),
    }),
  );
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  fake.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
