// The mirror fed a recorded stream: three clients raced 400 random commands
// (creates, updates of every field kind, removes, batches, settings, scene
// loads and resets) on a paused world while the stream's frames were
// recorded, change records only, by the C++ integration test
// (tests/integration/mirror_updates_test.cpp, LINKAGE_RECORD_STREAM and
// LINKAGE_RACE_COMMANDS=400); its last line holds ListBodies,
// ListConstraints and ListForces as they were after the last frame.
import { readFileSync } from "node:fs";
import { create, equals, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BodySchema } from "../src/gen/linkage/v1/body_pb.js";
import { ConstraintSchema } from "../src/gen/linkage/v1/constraint_pb.js";
import { ForceSchema } from "../src/gen/linkage/v1/force_pb.js";
import {
  ListBodiesResponseSchema,
  ListConstraintsResponseSchema,
  ListForcesResponseSchema,
} from "../src/gen/linkage/v1/service_pb.js";
import { ContactEventKind, SnapshotSchema } from "../src/gen/linkage/v1/snapshot_pb.js";
import { bodyNames, idKey, Mirror, pairKey } from "../src/index.js";

const lines = readFileSync(new URL("./mirror-race.jsonl", import.meta.url), "utf8").trim().split("\n");
const frames = lines.slice(0, -1).map((l) => fromJson(SnapshotSchema, JSON.parse(l) as JsonValue));
const end = (JSON.parse(lines[lines.length - 1]) as { end: Record<string, JsonValue> }).end;
const bodies = fromJson(ListBodiesResponseSchema, end.bodies).bodies;
const constraints = fromJson(ListConstraintsResponseSchema, end.constraints).constraints;
const springs = fromJson(ListForcesResponseSchema, end.forces).forces.filter((f) => f.def?.type.case === "spring");

describe("Mirror on a recorded race of three clients", () => {
  it("the recording holds updates of every kind", () => {
    const count = (f: (s: (typeof frames)[number]) => number) => frames.reduce((n, s) => n + f(s), 0);
    expect(count((s) => s.changes?.updatedBodies.length ?? 0)).toBeGreaterThan(0);
    expect(count((s) => s.changes?.updatedConstraints.length ?? 0)).toBeGreaterThan(0);
    expect(count((s) => s.changes?.updatedSprings.length ?? 0)).toBeGreaterThan(0);
    expect(bodies.length + constraints.length).toBeGreaterThan(5);
  });

  it("ends equal to ListBodies, ListConstraints and ListForces", () => {
    const m = new Mirror();
    for (const f of frames) m.apply(f);
    expect([...m.bodies.keys()].sort()).toEqual(bodies.map((b) => idKey(b.id)).sort());
    // Bodies whole, state included: the world was paused, so only commands moved them.
    for (const b of bodies) expect(equals(BodySchema, m.bodies.get(idKey(b.id))!, b), idKey(b.id)).toBe(true);
    expect([...m.constraints.keys()].sort()).toEqual(constraints.map((c) => idKey(c.id)).sort());
    // A listed constraint carries its λ and error too; the stream's definition is what must match.
    for (const c of constraints) {
      const mine = m.constraints.get(idKey(c.id))!;
      expect(equals(ConstraintSchema, create(ConstraintSchema, { id: mine.id, def: mine.def }), create(ConstraintSchema, { id: c.id, def: c.def })), idKey(c.id)).toBe(true);
    }
    expect([...m.springs.keys()].sort()).toEqual(springs.map((f) => idKey(f.id)).sort());
    for (const f of springs) expect(equals(ForceSchema, m.springs.get(idKey(f.id))!, f), idKey(f.id)).toBe(true);
    const names = bodyNames(m);
    for (const b of bodies) if (b.def?.name) expect(names.get(b.def.name)).toBe(idKey(b.id));
  });
});

describe("Mirror state", () => {
  const snapshot = (init: Parameters<typeof create<typeof SnapshotSchema>>[1]) => create(SnapshotSchema, init);

  it("reads each body's state and each constraint's rows from the newest snapshot", () => {
    const m = new Mirror();
    m.apply(snapshot({
      world: "w",
      tick: 7n,
      time: 0.5,
      dimension: 3,
      bodyIndex: [0, 4],
      bodyGeneration: [1, 2],
      position: [1, 2, 3, 4, 5, 6],
      velocity: [0, 0, 0, -1, 0, 0],
      angle: [0, 0],
      angularVelocity: [0, 0],
      constraintIndex: [0, 1],
      constraintGeneration: [1, 1],
      constraintRows: [1, 2],
      lambda: [10, 20, 30],
      error: [1e-9, 2e-9, 3e-9],
    }));
    expect([m.world, m.tick, m.time, m.dimension]).toEqual(["w", 7, 0.5, 3]);
    expect(m.position("4:2")).toEqual([4, 5, 6]);
    expect(m.velocity({ index: 4, generation: 2 })).toEqual([-1, 0, 0]);
    expect(m.position("4:1")).toBeUndefined();
    expect(m.constraintRows("1:1")).toEqual({ lambda: [20, 30], error: [2e-9, 3e-9] });
    expect(m.constraintRows("0:1")).toEqual({ lambda: [10], error: [1e-9] });
  });

  it("follows a stream, applying each snapshot as it passes", async () => {
    async function* two() {
      yield snapshot({ tick: 1n, bodyIndex: [0], bodyGeneration: [1], position: [0, 0], changes: { full: true, addedBodies: [{ id: { index: 0, generation: 1 }, def: { name: "a" } }] } });
      yield snapshot({ tick: 2n, bodyIndex: [], bodyGeneration: [], changes: { removedBodies: [{ index: 0, generation: 1 }] } });
    }
    const m = new Mirror();
    const seen: number[] = [];
    for await (const s of m.follow(two())) seen.push(m.bodies.size, Number(s.tick));
    expect(seen).toEqual([1, 1, 0, 2]);
  });

  it("keeps the touching pairs from the contact events and reads the contact points", () => {
    const BEGIN = ContactEventKind.BEGIN, END = ContactEventKind.END;
    const id = (index: number) => ({ index, generation: 1 });
    const m = new Mirror();
    // The first frame: every pair touching now, replacing what was known.
    m.touching.add(pairKey("7:1", "8:1"));
    m.apply(snapshot({
      tick: 3n,
      dimension: 2,
      contactEventsFull: true,
      contactEvents: [{ kind: BEGIN, tick: 2n, a: id(0), b: id(1) }],
      contactAIndex: [1, 1],
      contactAGeneration: [1, 1],
      contactBIndex: [0, 0],
      contactBGeneration: [1, 1],
      contactPoint: [0.5, 0, 0.6, 0],
      contactNormal: [0, -1, 0, -1],
      contactSeparation: [-0.001, 0.002],
      contactNormalImpulse: [0.25, 0],
      contactTangentImpulse: [0.01, 0],
    }));
    expect([...m.touching]).toEqual(["0:1|1:1"]);
    expect(m.contacts()).toHaveLength(2);
    expect(m.contacts()[1]).toEqual({ a: "1:1", b: "0:1", point: [0.6, 0], normal: [0, -1], separation: 0.002, normalImpulse: 0, tangentImpulse: 0 });
    // Later frames: begins and ends since the frame before, in order (a pair
    // that touched between two frames begins and ends in the second).
    m.apply(snapshot({ tick: 9n, dimension: 2, contactEvents: [
      { kind: END, tick: 5n, a: id(0), b: id(1) },
      { kind: BEGIN, tick: 6n, a: id(0), b: id(2) },
      { kind: END, tick: 7n, a: id(0), b: id(2) },
      { kind: BEGIN, tick: 9n, a: id(0), b: id(3) },
    ] }));
    expect([...m.touching]).toEqual(["0:1|3:1"]);
    expect(m.contacts()).toEqual([]);
    m.clear();
    expect(m.touching.size).toBe(0);
  });
});
