// The viewer's scene model fed a recorded stream: three clients raced 400
// random commands (creates, updates of every field kind, removes, batches,
// settings, scene loads and resets) on a paused world while the stream's
// frames were recorded, change records only, by the C++ integration test
// (tests/integration/mirror_updates_test.cpp, LINKAGE_RECORD_STREAM and
// LINKAGE_RACE_COMMANDS=400); its last line holds ListBodies,
// ListConstraints and ListForces as they were after the last frame.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { equals, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { BodySchema } from "@linkage/client/proto/body_pb";
import { ConstraintDefSchema } from "@linkage/client/proto/constraint_pb";
import { SpringSchema } from "@linkage/client/proto/force_pb";
import {
  ListBodiesResponseSchema,
  ListConstraintsResponseSchema,
  ListForcesResponseSchema,
} from "@linkage/client/proto/service_pb";
import { SnapshotSchema } from "@linkage/client/proto/snapshot_pb";
import { SceneModel } from "../src/scene-model";

const lines = readFileSync(new URL("../../client/test/mirror-race.jsonl", import.meta.url), "utf8").trim().split("\n");
const frames = lines.slice(0, -1).map((l) => fromJson(SnapshotSchema, JSON.parse(l) as JsonValue));
const end = (JSON.parse(lines[lines.length - 1]) as { end: Record<string, JsonValue> }).end;
const bodies = fromJson(ListBodiesResponseSchema, end.bodies).bodies;
const constraints = fromJson(ListConstraintsResponseSchema, end.constraints).constraints;
const springs = fromJson(ListForcesResponseSchema, end.forces).forces.filter((f) => f.def?.type.case === "spring");
const key = (id?: { index: number; generation: number }) => `${id!.index}:${id!.generation}`;

describe("SceneModel on a recorded race of three clients", () => {
  it("the recording holds updates of every kind", () => {
    const count = (f: (s: (typeof frames)[number]) => number) => frames.reduce((n, s) => n + f(s), 0);
    expect(count((s) => s.changes?.updatedBodies.length ?? 0)).toBeGreaterThan(0);
    expect(count((s) => s.changes?.updatedConstraints.length ?? 0)).toBeGreaterThan(0);
    expect(count((s) => s.changes?.updatedSprings.length ?? 0)).toBeGreaterThan(0);
    expect(bodies.length + constraints.length).toBeGreaterThan(5);
  });

  it("ends equal to ListBodies, ListConstraints and ListForces", () => {
    const m = new SceneModel();
    for (const f of frames) m.receive(f, 0);
    // Bodies whole, state included: the world was paused, so only commands moved them.
    expect([...m.bodies.keys()].sort()).toEqual(bodies.map((b) => key(b.id)).sort());
    for (const b of bodies) {
      const mine = m.bodies.get(key(b.id))!;
      expect(equals(BodySchema, mine.body, b), key(b.id)).toBe(true);
      expect(mine.name).toBe(b.def!.name);
    }
    expect([...m.constraints.keys()].sort()).toEqual(constraints.map((c) => key(c.id)).sort());
    for (const c of constraints) {
      const mine = m.constraints.get(key(c.id))!;
      expect(equals(ConstraintDefSchema, mine.def, c.def!), key(c.id)).toBe(true);
      expect(mine.name).toBe(c.def!.name);
    }
    expect([...m.springs.keys()].sort()).toEqual(springs.map((f) => key(f.id)).sort());
    for (const f of springs) {
      const spring = f.def!.type.case === "spring" ? f.def!.type.value : undefined;
      expect(equals(SpringSchema, m.springs.get(key(f.id))!.spring, spring!), key(f.id)).toBe(true);
    }
  });
});
