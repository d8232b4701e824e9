// The client against an in-process fake of WorldService (connect-node's
// adapter on a plain HTTP/1.1 server, as the gateway would answer): the
// token on every call, errors with their code and message, streams as async
// iterators, update masks, over both of the browser protocols.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyService, WorldService } from "../src/gen/linkage/v1/service_pb.js";
import { SnapshotSchema } from "../src/gen/linkage/v1/snapshot_pb.js";
import { CONSTRAINT_TYPES, Client, LinkageError, bodyRef, constraintDef } from "../src/index.js";

const seen: { authorization: string | null; mask?: string[] }[] = [];
let server: Server;
let baseUrl: string;

function routes(router: ConnectRouter) {
  router.service(WorldService, {
    listWorlds(_req, ctx) {
      seen.push({ authorization: ctx.requestHeader.get("authorization") });
      return { worlds: [{ name: "a" }] };
    },
    getWorld(req) {
      throw new ConnectError(`world "${req.world}" not found`, Code.NotFound);
    },
    updateWorld(req, ctx) {
      seen.push({ authorization: ctx.requestHeader.get("authorization"), mask: req.updateMask?.paths });
      return { world: { name: req.world } };
    },
    async *streamState(req) {
      for (let tick = 1n; tick <= 3n; tick++) yield create(SnapshotSchema, { world: req.world, tick });
      throw new ConnectError("the server is shutting down", Code.Unavailable);
    },
  });
  router.service(BodyService, {
    updateBody(req) {
      seen.push({ authorization: null, mask: req.updateMask?.paths });
      return { body: { def: req.def } };
    },
  });
}

beforeAll(async () => {
  server = createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe.each(["grpc-web", "connect"] as const)("Client over %s", (protocol) => {
  it("sends the bearer token with every call, as it is when the call is made", async () => {
    let token = "first";
    const client = new Client({ baseUrl, protocol, token: () => token });
    seen.length = 0;
    await client.listWorlds();
    token = "second";
    await client.updateWorld("a", { substeps: 4 });
    await new Client({ baseUrl, protocol }).listWorlds();
    expect(seen.map((s) => s.authorization)).toEqual(["Bearer first", "Bearer second", null]);
  });

  it("rejects with the server's code and message", async () => {
    const err = await new Client({ baseUrl, protocol }).getWorld("nowhere").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LinkageError);
    expect(err).toMatchObject({ code: Code.NotFound, codeName: "NOT_FOUND", rawMessage: 'world "nowhere" not found' });
    expect((err as Error).message).toBe('NOT_FOUND: world "nowhere" not found');
  });

  it("says UNAVAILABLE when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((done) => closed.close(done));
    const err = await new Client({ baseUrl: url, protocol }).listWorlds().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: Code.Unavailable, codeName: "UNAVAILABLE" });
    expect((err as Error).message).toMatch(`UNAVAILABLE: ${url} did not answer: fetch failed`);
  });

  it("streams snapshots as an async iterator, ending with the server's error", async () => {
    const ticks: bigint[] = [];
    const err = await (async () => {
      for await (const s of new Client({ baseUrl, protocol }).stream("w")) ticks.push(s.tick);
    })().catch((e: unknown) => e);
    expect(ticks).toEqual([1n, 2n, 3n]);
    expect(err).toMatchObject({ code: Code.Unavailable, rawMessage: "the server is shutting down" });
  });

  it("ends a stream quietly when it is closed", async () => {
    const stream = new Client({ baseUrl, protocol }).stream("w");
    const ticks: bigint[] = [];
    for await (const s of stream) {
      ticks.push(s.tick);
      if (s.tick === 2n) stream.close();
    }
    expect(ticks).toEqual([1n, 2n]);
    expect(stream.closed).toBe(true);
  });

  it("ends a stream quietly when the signal given aborts", async () => {
    const abort = new AbortController();
    const ticks: bigint[] = [];
    for await (const s of new Client({ baseUrl, protocol }).stream("w", { signal: abort.signal })) {
      ticks.push(s.tick);
      abort.abort();
    }
    expect(ticks).toEqual([1n]);
  });

  it("names the fields given, and only those, in update masks", async () => {
    const client = new Client({ baseUrl, protocol });
    seen.length = 0;
    await client.updateWorld("a", { substeps: 0, warmStart: false, feedbackStiffness: undefined });
    await client.updateBody("a", "bob", { mass: 2, angularVelocity: 1 });
    await client.updateBody("a", "bob", { mass: 2 }, { replace: true });
    expect(seen.map((s) => s.mask)).toEqual([["substeps", "warm_start"], ["mass", "angular_velocity"], undefined]);
  });
});

describe("definitions", () => {
  it("knows every constraint type of ConstraintDef", () => {
    expect(CONSTRAINT_TYPES.slice(0, 4)).toEqual(["distance", "rope", "pin", "pointOnLine"]);
    expect(CONSTRAINT_TYPES).toEqual(expect.arrayContaining(["weld", "gear", "rackAndPinion", "motor", "trajectory"]));
  });

  it("makes a constraint from its type and fields", () => {
    expect(constraintDef("pointOnLine", { a: bodyRef(null), b: bodyRef("bead") }, { name: "wire" })).toEqual({
      name: "wire",
      type: { case: "pointOnLine", value: { a: bodyRef(null), b: bodyRef("bead") } },
    });
  });

  it("refers to bodies by name or by id", () => {
    expect(bodyRef("bob").ref).toEqual({ case: "name", value: "bob" });
    expect(bodyRef({ index: 3, generation: 2 }).ref).toMatchObject({ case: "id", value: { index: 3, generation: 2 } });
    expect(bodyRef(undefined).ref.case).toBeUndefined();
  });
});
