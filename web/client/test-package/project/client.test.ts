// @linkage/client as a user gets it: installed from the packed tarball into
// a project of its own, type-checked against the declarations it ships, and
// driving a real linkaged, through the web gateway (the default transport,
// over fetch) and straight over gRPC (a transport given).
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Client, Code, LinkageError, Mirror, bodyNames, bodyRef, idKey, vec, type Key } from "@linkage/client";
import { Motion } from "@linkage/client/proto/body_pb";
import type { Snapshot } from "@linkage/client/proto/snapshot_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, startLinkaged, type Running } from "./servers.js";

let linkaged: Running & { address: string };
let gateway: Running & { url: string };

beforeAll(async () => {
  linkaged = await startLinkaged();
  gateway = await startGateway(linkaged.address);
});

afterAll(async () => {
  expect(await gateway?.stop()).toBe(0);
  expect(await linkaged?.stop()).toBe(0);
});

// A pendulum in `world`: a fixed pivot, a 1 kg bob a metre to the side, a rod.
async function pendulum(client: Client, world: string): Promise<void> {
  await client.createWorld(world, { paused: true });
  await client.createBodies(world, [
    { name: "pivot", motion: Motion.FIXED },
    { name: "bob", mass: 1, position: vec([1, 0]) },
  ]);
  await client.addConstraint(world, "distance", { a: bodyRef("pivot"), b: bodyRef("bob") }, { name: "rod" });
}

const transports = {
  "the gateway, gRPC-Web": () => new Client({ baseUrl: gateway.url }),
  "the gateway, Connect": () => new Client({ baseUrl: gateway.url, protocol: "connect" }),
  "linkaged, gRPC": () => new Client({ transport: createGrpcTransport({ baseUrl: `http://${linkaged.address}` }), token: "t" }),
};

describe.each(Object.keys(transports) as (keyof typeof transports)[])("through %s", (via) => {
  const world = `w-${via.replace(/\W+/g, "-")}`;
  const client = () => transports[via]();

  it("creates a world, bodies and a constraint, and steps it", async () => {
    const c = client();
    await pendulum(c, world);
    expect((await c.listWorlds()).map((w) => w.name)).toContain(world);
    const stepped = await c.step(world, 30);
    expect(stepped.tick).toBe(30n);
    const bob = await c.getBody(world, "bob");
    // Half a second of swinging on a 1 m rod: down and in, still 1 m out.
    expect(bob.def!.position!.y).toBeLessThan(-0.5);
    expect(Math.hypot(bob.def!.position!.x, bob.def!.position!.y)).toBeCloseTo(1, 3);
    const [rod] = await c.listConstraints(world);
    expect(rod.def?.name).toBe("rod");
  });

  it("streams a running world into a mirror that follows every client's changes", async () => {
    const c = client();
    await c.resume(world);
    const mirror = new Mirror();
    const stream = c.stream(world, { constraints: true, diagnostics: true });
    let bob: Key | undefined;
    let changed = false;
    const ticks: bigint[] = [];
    for await (const s of mirror.follow(stream)) {
      ticks.push(s.tick);
      bob ??= bodyNames(mirror).get("bob");
      if (ticks.length === 5) {
        // Another client changes the bob's mass and adds a body.
        const other = client();
        await other.updateBody(world, "bob", { mass: 3 });
        await other.createBody(world, { name: "late", mass: 1, position: vec([0, 2]) });
        changed = true;
      }
      if (changed && bodyNames(mirror).has("late") && mirror.bodies.get(bob!)?.def?.mass === 3) break;
    }
    expect(stream.closed).toBe(true);
    expect(ticks.every((t, i) => i === 0 || t > ticks[i - 1])).toBe(true);
    expect(mirror.bodies.size).toBe(3);
    expect(Math.hypot(...mirror.position(bob!)!)).toBeCloseTo(1, 2);
    const rows = mirror.constraintRows([...mirror.constraints.keys()][0]);
    expect(rows?.error.length).toBe(1);
    expect(mirror.diagnostics?.maxError).toBeLessThan(1e-3);
    await c.pause(world);
  });

  it("updates only the fields given", async () => {
    const c = client();
    const [rod] = await c.listConstraints(world);
    const updated = await c.updateConstraint(world, rod.id!, "distance", { length: 1.5 });
    expect(updated.def).toMatchObject({ name: "rod", type: { case: "distance", value: { length: 1.5 } } });
    const spring = await c.addSpring(world, { a: bodyRef("pivot"), b: bodyRef("bob"), stiffness: 10, damping: 0.5 });
    const stiffer = await c.updateSpring(world, spring, { stiffness: 40 });
    expect(stiffer.def?.type).toMatchObject({ case: "spring", value: { stiffness: 40, damping: 0.5 } });
    await c.removeForce(world, spring);
    const settled = await c.updateWorld(world, { substeps: 3 });
    expect(settled.settings).toMatchObject({ substeps: 3, tickRate: 60 });
  });

  it("rejects with the server's code and message", async () => {
    const c = client();
    const missing = await c.getWorld("nowhere").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(LinkageError);
    expect(missing).toMatchObject({ code: Code.NotFound, codeName: "NOT_FOUND" });
    expect((missing as LinkageError).rawMessage).toMatch(/nowhere/);

    const bad = await c.addConstraint(world, "distance", { b: bodyRef("bob"), length: -1 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: Code.InvalidArgument, codeName: "INVALID_ARGUMENT" });
    expect((bad as LinkageError).message).toMatch(/^INVALID_ARGUMENT: constraint\.distance\.length: /);

    const twice = await c.createWorld(world).catch((e: unknown) => e);
    expect(twice).toMatchObject({ code: Code.FailedPrecondition, rawMessage: `name: a world named '${world}' exists` });
  });

  it("applies a batch whole, or nothing of it", async () => {
    const c = client();
    const before = (await c.listBodies(world)).length;
    const good = c.batch(world);
    good.createBody({ name: "b1", mass: 1, position: vec([2, 0]) });
    good.addConstraint("distance", { a: bodyRef("bob"), b: bodyRef("b1") });
    const [made, rod] = await good.apply();
    expect(idKey(made.created)).toMatch(/^\d+:\d+$/);
    expect(rod.created).toBeDefined();
    expect((await c.listBodies(world)).length).toBe(before + 1);

    const bad = c.batch(world);
    bad.createBody({ name: "b2", mass: 1 });
    bad.removeBody("no-such-body");
    expect(await bad.apply().catch((e: LinkageError) => e.codeName)).toBe("NOT_FOUND");
    expect((await c.listBodies(world)).length).toBe(before + 1);
  });

  it("ends a stream with UNAVAILABLE when its world is deleted", async () => {
    const c = client();
    const doomed = `${world}-doomed`;
    await c.createWorld(doomed);
    const seen: Snapshot[] = [];
    const err = await (async () => {
      for await (const s of c.stream(doomed)) {
        seen.push(s);
        if (seen.length === 1) await c.deleteWorld(doomed);
      }
    })().catch((e: unknown) => e);
    expect(seen.length).toBeGreaterThan(0);
    expect(err).toMatchObject({ codeName: "UNAVAILABLE", rawMessage: `world '${doomed}' was deleted` });
  });
});
