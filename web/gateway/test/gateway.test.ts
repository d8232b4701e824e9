// The gateway between Connect / gRPC-Web clients and a real linkaged: what a
// browser gets through it is what a native gRPC client gets from linkaged.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { fromJson } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { SceneSchema } from "@linkage/proto/scene_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type Gateway } from "../src/gateway.js";
import { browserProtocols, clientsOf, direct, type Clients } from "./clients.js";
import { repo, startLinkaged, type RunningLinkaged } from "./processes.js";

const maxStreams = 4;
const scenesDir = join(repo, "scenes");

let linkaged: RunningLinkaged;
let gateway: Gateway;

beforeAll(async () => {
  linkaged = await startLinkaged(["--scene", join(scenesDir, "demo.json"), "--max-streams", String(maxStreams)]);
  gateway = await startGateway({
    upstream: parseHostPort(linkaged.address),
    listen: { host: "127.0.0.1", port: 0 },
    staticDir: join(repo, "web", "app", "dist"),
    scenesDir,
    metricsListen: { host: "127.0.0.1", port: 0 },
  });
});

afterAll(async () => {
  await gateway?.close();
  expect(await linkaged?.stop()).toBe(0);
});

function parseHostPort(address: string) {
  const [host, port] = address.split(":");
  return { host, port: Number(port) };
}

async function rejection(call: Promise<unknown>): Promise<ConnectError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => ConnectError.from(reason),
  );
  if (error === undefined) throw new Error("the call succeeded");
  return error;
}

describe.each(Object.entries(browserProtocols))("through %s", (protocol, transport) => {
  let api: Clients;
  const world = `gw-${protocol.replace(/\W/g, "-")}`;
  beforeAll(() => {
    api = clientsOf(transport(gateway.url));
  });

  it("answers unary calls of every service", async () => {
    const created = await api.world.createWorld({ name: world, paused: true });
    expect(created.world?.name).toBe(world);
    const { id } = await api.body.createBody({ world, body: { name: "bob", mass: 1, position: { x: 1, y: 2 } } });
    const { body } = await api.body.getBody({ world, body: { ref: { case: "name", value: "bob" } } });
    expect(body?.id).toEqual(id);
    expect(body?.def?.position?.x).toBe(1);
    expect(body?.def?.position?.y).toBe(2);
    expect((await api.constraint.listConstraints({ world })).constraints).toEqual([]);
    expect((await api.force.listForces({ world })).forces).toEqual([]);
    const names = (await api.world.listWorlds({})).worlds.map((w) => w.name);
    expect(names).toContain(world);
  });

  it("passes linkaged's errors back with their code and message", async () => {
    const upstream = await rejection(direct(linkaged.address).world.getWorld({ world: "no-such-world" }));
    const relayed = await rejection(api.world.getWorld({ world: "no-such-world" }));
    expect(relayed.code).toBe(Code.NotFound);
    expect(relayed.rawMessage).toBe(upstream.rawMessage);

    await api.world.createWorld({ name: `${world}-errors`, paused: true });
    await api.body.createBody({ world: `${world}-errors`, body: { name: "bob", mass: 1 } });
    const invalid = await rejection(
      api.constraint.addConstraint({
        world: `${world}-errors`,
        constraint: { type: { case: "distance", value: { b: { ref: { case: "name", value: "bob" } }, length: -1 } } },
      }),
    );
    expect(invalid.code).toBe(Code.InvalidArgument);
    expect(invalid.rawMessage).toMatch(/^constraint\.distance\.length: /);
  });

  it("streams StateStream frame by frame", async () => {
    const ticks: bigint[] = [];
    // A client cancels a stream with its signal: leaving the loop alone
    // would not end the call.
    const cancel = new AbortController();
    const error = await rejection(
      (async () => {
        for await (const frame of api.world.streamState({ world: "default", rateHz: 60 }, { signal: cancel.signal })) {
          expect(frame.world).toBe("default");
          expect(frame.bodyIndex.length).toBeGreaterThan(0);
          ticks.push(frame.tick);
          if (ticks.length === 5) cancel.abort();
        }
      })(),
    );
    expect(error.code).toBe(Code.Canceled);
    expect(ticks).toEqual([...ticks].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(ticks).size).toBe(5);
  });

  it("ends a stream with DEADLINE_EXCEEDED when the caller's deadline passes", async () => {
    let frames = 0;
    const started = Date.now();
    const error = await rejection(
      (async () => {
        for await (const _ of api.world.streamState({ world: "default", rateHz: 30 }, { timeoutMs: 600 })) frames++;
      })(),
    );
    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(frames).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("passes a stream's error back with its code", async () => {
    const error = await rejection(
      (async () => {
        for await (const _ of api.world.streamState({ world: "no-such-world" }));
      })(),
    );
    expect(error.code).toBe(Code.NotFound);
  });
});

describe("stream slots", () => {
  const api = () => clientsOf(browserProtocols.connect(gateway.url));

  // Opens a stream and waits for its first frame; the controller cancels it.
  async function open(): Promise<AbortController> {
    const cancel = new AbortController();
    const frames = api().world.streamState({ world: "default", rateHz: 10 }, { signal: cancel.signal })[Symbol.asyncIterator]();
    await frames.next();
    // Keep reading so the stream stays busy until cancelled.
    (async () => {
      while (!(await frames.next()).done);
    })().catch(() => {});
    return cancel;
  }

  // Opens n streams, or none: if one is refused, those that opened are
  // cancelled before the refusal is passed on.
  async function openAll(n: number): Promise<AbortController[]> {
    const results = await Promise.allSettled(Array.from({ length: n }, open));
    const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refused = results.find((r) => r.status === "rejected");
    if (refused === undefined) return opened;
    opened.forEach((stream) => stream.abort());
    throw refused.reason;
  }

  it("are taken by open streams and refused beyond linkaged's limit", async () => {
    const streams = await eventually(() => openAll(maxStreams));
    const refused = await rejection(open());
    expect(refused.code).toBe(Code.ResourceExhausted);
    streams.forEach((stream) => stream.abort());
  });

  it("are given back when the browser cancels, round after round", async () => {
    for (let round = 0; round < 3; round++) {
      const streams = await eventually(() => openAll(maxStreams));
      streams.forEach((stream) => stream.abort());
    }
    const last = await eventually(open);
    last.abort();
  });
});

// linkaged frees a cancelled stream's slot when its reactor is done, a moment
// after the cancel arrives; anything not freed fails every attempt.
async function eventually<T>(attempt: () => Promise<T>, withinMs = 5000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (ConnectError.from(error).code !== Code.ResourceExhausted || Date.now() > deadline) throw error;
      await new Promise((wait) => setTimeout(wait, 50));
    }
  }
}

describe("scenes", () => {
  it("lists the repository's scenes", async () => {
    const response = await fetch(new URL("/scenes/index.json", gateway.url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const stems = (await readdir(scenesDir)).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5));
    expect(await response.json()).toEqual(stems.sort());
    expect(stems).toContain("demo");
  });

  it("serves a scene that LoadScene accepts", async () => {
    const response = await fetch(new URL("/scenes/pendulum.json", gateway.url));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(await readFile(join(scenesDir, "pendulum.json"), "utf8"));
    const api = clientsOf(browserProtocols.connect(gateway.url));
    await api.world.createWorld({ name: "scene-test", paused: true });
    const scene = fromJson(SceneSchema, JSON.parse(text));
    const loaded = await api.world.loadScene({ world: "scene-test", scene });
    expect(loaded.world?.bodyCount).toBeGreaterThan(0);
  });

  it("answers 404 for a scene that is not there, wherever the path points", async () => {
    for (const path of ["/scenes/nope.json", "/scenes/CMakeLists.txt", "/scenes/..%2FREADME.md", "/scenes/src"]) {
      expect((await fetch(new URL(path, gateway.url))).status, path).toBe(404);
    }
  });
});

describe("bad input", () => {
  it("answers HTTP and Connect errors and keeps serving", async () => {
    const url = (path: string) => new URL(path, gateway.url);
    const post = (path: string, body: string, type = "application/json") =>
      fetch(url(path), { method: "POST", body, headers: { "content-type": type } });

    const malformed = await post("/linkage.v1.WorldService/GetWorld", '{"world":');
    expect(malformed.status).toBe(400);
    expect(await errorCode(malformed)).toBe("invalid_argument");
    const wrongType = await post("/linkage.v1.WorldService/GetWorld", '{"world": 7}');
    expect(await errorCode(wrongType)).toBe("invalid_argument");
    // Connect, like gRPC, calls a request it cannot unmarshal INTERNAL.
    const garbage = await post("/linkage.v1.WorldService/GetWorld", "\xff\xfe\x01", "application/proto");
    expect(await errorCode(garbage)).toBe("internal");
    expect((await post("/linkage.v1.WorldService/NoSuchMethod", "{}")).status).toBe(404);
    expect((await post("/linkage.v1.NoService/GetWorld", "{}")).status).toBe(404);
    expect((await post("/linkage.v1.WorldService/GetWorld", "{}", "text/plain")).status).toBe(415);
    expect((await fetch(url("/linkage.v1.WorldService/GetWorld"))).status).toBe(405);
    expect((await post("/healthz", "")).status).toBe(405);
    expect((await fetch(url("/no-such-file.js"))).status).toBe(404);

    expect((await fetch(url("/healthz"))).status).toBe(200);
  });
});

// The code of a Connect unary error response: {"code": "...", "message": "..."}.
async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

describe("metrics", () => {
  type Labels = Record<string, string>;
  interface Sample {
    name: string;
    labels: Labels;
    value: number;
  }

  // The page at --metrics-listen, sample by sample (label values unescaped).
  async function scrape(): Promise<Sample[]> {
    const response = await fetch(gateway.metricsUrl ?? "");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples: Sample[] = [];
    for (const line of (await response.text()).split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      expect(match, line).not.toBeNull();
      const labels: Labels = {};
      for (const [, key, value] of (match?.[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
        labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      samples.push({ name: match?.[1] ?? "", labels, value: Number(match?.[3]) });
    }
    return samples;
  }

  function value(samples: Sample[], name: string, labels: Labels = {}): number {
    const found = samples.find(
      (s) =>
        s.name === name &&
        Object.keys(s.labels).length === Object.keys(labels).length &&
        Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    return found?.value ?? 0;
  }

  const getWorld = "/linkage.v1.WorldService/GetWorld";
  const streamState = "/linkage.v1.WorldService/StreamState";

  it("counts the calls forwarded by procedure and code, and a stream's messages", async () => {
    const before = await scrape();
    const api = clientsOf(browserProtocols.connect(gateway.url));
    await api.world.getWorld({ world: "default" });
    await api.world.getWorld({ world: "default" });
    expect((await rejection(api.world.getWorld({ world: "no-such-world" }))).code).toBe(Code.NotFound);
    const cancel = new AbortController();
    let frames = 0;
    await rejection(
      (async () => {
        for await (const _ of api.world.streamState({ world: "default" }, { signal: cancel.signal }))
          if (++frames === 3) cancel.abort();
      })(),
    );

    const delta = (after: Sample[], name: string, labels: Labels = {}) =>
      value(after, name, labels) - value(before, name, labels);
    // The stream is counted once the gateway has seen the browser go.
    let after = await scrape();
    for (let i = 0; i < 100 && delta(after, "linkage_gateway_requests_total", { procedure: streamState, code: "CANCELLED" }) === 0; i++) {
      await new Promise((wait) => setTimeout(wait, 20));
      after = await scrape();
    }
    expect(delta(after, "linkage_gateway_requests_total", { procedure: getWorld, code: "OK" })).toBe(2);
    expect(delta(after, "linkage_gateway_requests_total", { procedure: getWorld, code: "NOT_FOUND" })).toBe(1);
    expect(delta(after, "linkage_gateway_request_duration_seconds_count", { procedure: getWorld })).toBe(3);
    expect(delta(after, "linkage_gateway_requests_total", { procedure: streamState, code: "CANCELLED" })).toBe(1);
    expect(delta(after, "linkage_gateway_request_duration_seconds_count", { procedure: streamState })).toBe(1);
    // The one being written when the browser left may be counted too.
    const relayed = delta(after, "linkage_gateway_stream_messages_total", { procedure: streamState });
    expect(relayed).toBeGreaterThanOrEqual(3);
    expect(relayed).toBeLessThanOrEqual(4);
    expect(value(after, "linkage_gateway_streams_open")).toBe(value(before, "linkage_gateway_streams_open"));
    // Node's own, under the gateway's prefix.
    expect(after.some((s) => s.name === "linkage_gateway_process_resident_memory_bytes")).toBe(true);
  });

  it("names every procedure with its path and every code by gRPC's name", async () => {
    const calls = (await scrape()).filter((s) => s.name === "linkage_gateway_requests_total");
    expect(calls.length).toBeGreaterThan(0);
    for (const s of calls) {
      expect(s.labels.procedure).toMatch(/^\/linkage\.v1\.\w+Service\/\w+$/);
      expect(s.labels.code).toMatch(/^[A-Z_]+$/);
    }
  });
});
