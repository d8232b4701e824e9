// What crosses the gateway besides messages: metadata both ways, the
// deadline, error metadata, flow control and cancellation, checked against
// a fake upstream that reports what reached it.
import { connect, type Socket } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { StreamStateRequestSchema, WorldService } from "@linkage/proto/service_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../src/config.js";
import { startGateway, type Gateway } from "../src/gateway.js";
import { browserProtocols } from "./clients.js";
import { startFakeUpstream, type FakeUpstream } from "./fake-upstream.js";

let upstream: FakeUpstream;
let gateway: Gateway;
let gatewayConfig: Config;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const [host, port] = upstream.address.split(":");
  gatewayConfig = {
    upstream: { host, port: Number(port) },
    listen: { host: "127.0.0.1", port: 0 },
    staticDir: "/nonexistent",
    scenesDir: "/nonexistent",
  };
  gateway = await startGateway(gatewayConfig);
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe.each(Object.entries(browserProtocols))("through %s", (_, transport) => {
  const api = () => createClient(WorldService, transport(gateway.url));

  it("passes request metadata to upstream and response headers and trailers back", async () => {
    let header: Headers | undefined;
    let trailer: Headers | undefined;
    const response = await api().listWorlds(
      {},
      {
        headers: { "x-custom": "hello", authorization: "Bearer token", "x-id-bin": "AQID" },
        timeoutMs: 5000,
        onHeader: (h) => (header = h),
        onTrailer: (t) => (trailer = t),
      },
    );
    expect(response.worlds[0].name).toBe("fake");
    const received = upstream.lastHeader!;
    expect(received.get("x-custom")).toBe("hello");
    expect(received.get("authorization")).toBe("Bearer token");
    expect(received.get("x-id-bin")).toBe("AQID");
    // The upstream hop speaks gRPC: the browser's protocol headers stay behind.
    expect(received.get("content-type")).toBe("application/grpc+proto");
    expect(received.get("connect-protocol-version")).toBeNull();
    expect(received.get("x-grpc-web")).toBeNull();
    expect(upstream.lastTimeoutMs).toBeGreaterThan(3000);
    expect(upstream.lastTimeoutMs).toBeLessThanOrEqual(5000);
    expect(header?.get("x-reply")).toBe("hello");
    expect(trailer?.get("x-trailer")).toBe("after");
  });

  it("passes an error's metadata back with its code and message", async () => {
    const error = await api()
      .getWorld({ world: "w" })
      .then(
        () => undefined,
        (reason: unknown) => ConnectError.from(reason),
      );
    expect(error?.code).toBe(Code.NotFound);
    expect(error?.rawMessage).toBe("world: no world named 'w'");
    expect(error?.metadata.get("x-error-info")).toBe("why");
  });
});

it("is unhealthy while upstream says it is not serving", async () => {
  const health = await fetch(new URL("/healthz", gateway.url));
  expect(health.status).toBe(503);
  expect(await health.text()).toMatch(/^linkaged at 127\.0\.0\.1:\d+ is NOT_SERVING$/m);
});

describe("a stream", () => {
  it("is read from upstream only as fast as the browser reads", async () => {
    // An in-memory upstream shows exactly how many frames the gateway took;
    // 1 MB frames (a long world name: cheap to encode) fill the socket
    // buffers between the gateway and the browser after a few.
    let pulled = 0;
    const frame = { world: "w".repeat(1 << 20) };
    const inMemory = createRouterTransport((router) =>
      router.service(WorldService, {
        async *streamState() {
          for (;;) {
            pulled++;
            yield frame;
          }
        },
      }),
    );
    const slowGateway = await startGateway(
      { ...gatewayConfig, upstream: { host: "in-memory", port: 0 } },
      { transport: inMemory, close: () => {} },
    );
    const browser = await rawStream(slowGateway.url);
    browser.pause();
    await new Promise((wait) => setTimeout(wait, 500));
    const taken = pulled;
    await new Promise((wait) => setTimeout(wait, 500));
    expect(pulled).toBe(taken);
    // Sockets hold a few megabytes; a gateway that read on would be at hundreds.
    expect(pulled).toBeLessThan(40);
    browser.resume();
    await new Promise((wait) => setTimeout(wait, 200));
    expect(pulled).toBeGreaterThan(taken);
    browser.destroy();
    await slowGateway.close();
  });

  it("is cancelled upstream when the browser goes away", async () => {
    const browser = await rawStream(gateway.url);
    expect(browser.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(browser.head).toMatch(/\r\nx-stream: open\r\n/);
    browser.destroy();
    await upstream.streamCancelled;
  });
});

// A browser's StreamState call on a raw socket, so no client library reads
// ahead or cancels on its behalf; resolves with the first bytes of the answer.
async function rawStream(url: string): Promise<Socket & { head: string }> {
  const { hostname: host, port } = new URL(url);
  const request = toBinary(StreamStateRequestSchema, create(StreamStateRequestSchema, { world: "w" }));
  // A Connect streaming request body: one envelope (flags 0, length, message).
  const body = new Uint8Array(5 + request.length);
  new DataView(body.buffer).setUint32(1, request.length);
  body.set(request, 5);
  const socket = connect({ host, port: Number(port) });
  socket.write(
    `POST /linkage.v1.WorldService/StreamState HTTP/1.1\r\nhost: ${host}\r\n` +
      `content-type: application/connect+proto\r\ncontent-length: ${body.length}\r\n\r\n`,
  );
  socket.write(body);
  const head = await new Promise<string>((done) => socket.once("data", (chunk) => done(chunk.toString("latin1"))));
  return Object.assign(socket, { head });
}
