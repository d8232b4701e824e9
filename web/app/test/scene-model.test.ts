import { describe, expect, it } from "vitest";
import { Motion } from "@linkage/client/proto/body_pb";
import { HaltReason } from "@linkage/client/proto/world_pb";
import { SceneModel } from "../src/scene-model";
import { body, distance, pin, snapshot, spring } from "./fixtures";

const A = { index: 0, generation: 1 };
const B = { index: 1, generation: 1 };
const C = { index: 2, generation: 1 };

function full() {
  return snapshot({
    tick: 10n,
    time: 10 / 60,
    bodyIndex: [0, 1],
    bodyGeneration: [1, 1],
    position: [0, 0, 1, -2],
    angle: [0, 0.5],
    changes: {
      full: true,
      addedBodies: [body(A, "pivot", { fixed: true }), body(B, "bob", { rigid: true, box: [0.5, 0.1] })],
      addedConstraints: [distance({ index: 0, generation: 1 }, "rod", A, B)],
      addedSprings: [spring({ index: 0, generation: 1 }, A, B)],
    },
  });
}

describe("SceneModel", () => {
  it("builds the whole topology from a full frame", () => {
    const m = new SceneModel();
    const f = m.receive(full(), 123);
    expect([...m.bodies.keys()]).toEqual(["0:1", "1:1"]);
    expect(m.bodies.get("0:1")).toMatchObject({ name: "pivot", motion: Motion.FIXED, rigid: false });
    expect(m.bodies.get("1:1")!.shape).toEqual({ kind: "box", halfWidth: 0.5, halfHeight: 0.1 });
    expect(m.constraints.get("0:1")).toMatchObject({ name: "rod", type: "distance", bodies: ["0:1", "1:1"] });
    expect(m.springs.get("0:1")).toMatchObject({ a: "0:1", b: "1:1" });
    expect(f).toMatchObject({ tick: 10, ids: ["0:1", "1:1"], receivedAt: 123, dimension: 2 });
    expect(f.slot.get("1:1")).toBe(1);
  });

  it("replaces everything on a later full frame", () => {
    const m = new SceneModel();
    m.receive(full(), 0);
    m.receive(snapshot({ bodyIndex: [2], bodyGeneration: [1], position: [5, 5], angle: [0], changes: { full: true, addedBodies: [body(C, "solo")] } }), 1);
    expect([...m.bodies.keys()]).toEqual(["2:1"]);
    expect(m.constraints.size).toBe(0);
    expect(m.springs.size).toBe(0);
  });

  it("applies added and removed bodies, constraints and springs", () => {
    const m = new SceneModel();
    m.receive(full(), 0);
    const rev = m.revision;
    m.receive(snapshot({
      changes: {
        addedBodies: [body(C, "new")],
        addedConstraints: [pin({ index: 1, generation: 1 }, B, C)],
        removedConstraints: [{ index: 0, generation: 1 }],
        removedSprings: [{ index: 0, generation: 1 }],
      },
    }), 0);
    expect([...m.bodies.keys()]).toEqual(["0:1", "1:1", "2:1"]);
    expect([...m.constraints.values()].map((c) => [c.id, c.type, c.bodies])).toEqual([["1:1", "pin", ["1:1", "2:1"]]]);
    expect(m.springs.size).toBe(0);
    expect(m.revision).toBeGreaterThan(rev);

    const quiet = m.revision;
    m.receive(snapshot({ changes: {} }), 0);
    expect(m.revision).toBe(quiet);
  });

  it("applies updated bodies, constraints and springs: new definitions and names", () => {
    const m = new SceneModel();
    m.receive(full(), 0);
    const rev = m.revision;
    m.receive(snapshot({
      changes: {
        updatedBodies: [body(B, "bobby", { rigid: true, disk: 0.2, mass: 3 })],
        updatedConstraints: [distance({ index: 0, generation: 1 }, "tie", A, B, { x: 0.5, y: 0, z: 0 })],
        updatedSprings: [spring({ index: 0, generation: 1 }, A, null)],
      },
    }), 0);
    expect(m.bodies.get("1:1")).toMatchObject({ name: "bobby", mass: 3, shape: { kind: "disk", radius: 0.2 } });
    expect(m.constraints.get("0:1")).toMatchObject({ name: "tie", bodies: ["0:1", "1:1"] });
    expect(m.springs.get("0:1")).toMatchObject({ a: "0:1", b: null });
    expect(m.revision).toBeGreaterThan(rev);
    // An update of something the model never had is not an addition.
    m.receive(snapshot({ changes: { updatedBodies: [body(C, "stranger")] } }), 0);
    expect(m.bodies.has("2:1")).toBe(false);
  });

  it("keeps a reused index with a new generation apart from the removed body", () => {
    const m = new SceneModel();
    m.receive(full(), 0);
    const f = m.receive(snapshot({
      bodyIndex: [0, 1],
      bodyGeneration: [1, 2],
      position: [0, 0, 3, 3],
      angle: [0, 0],
      changes: { removedBodies: [B], addedBodies: [body({ index: 1, generation: 2 }, "reborn")] },
    }), 0);
    expect(m.bodies.has("1:1")).toBe(false);
    expect(m.bodies.get("1:2")!.name).toBe("reborn");
    expect(f.ids).toEqual(["0:1", "1:2"]);
  });

  it("marks the world's end of a constraint as null", () => {
    const m = new SceneModel();
    m.receive(snapshot({ changes: { full: true, addedBodies: [body(B, "bob")], addedConstraints: [distance({ index: 3, generation: 1 }, "", null, B)] } }), 0);
    expect(m.constraints.get("3:1")!.bodies).toEqual([null, "1:1"]);
  });

  it("unpacks λ and error columns by each constraint's row count", () => {
    const m = new SceneModel();
    const f = m.receive(snapshot({
      constraintIndex: [0, 1, 2],
      constraintGeneration: [1, 1, 4],
      constraintRows: [1, 2, 3],
      lambda: [1, 2, 3, 4, 5, 6],
      error: [-0.1, -0.2, -0.3, -0.4, -0.5, -0.6],
    }), 0);
    expect(f.constraints.get("0:1")).toEqual({ lambda: [1], error: [-0.1] });
    expect(f.constraints.get("1:1")).toEqual({ lambda: [2, 3], error: [-0.2, -0.3] });
    expect(f.constraints.get("2:4")).toEqual({ lambda: [4, 5, 6], error: [-0.4, -0.5, -0.6] });
  });

  it("carries the diagnostics used by the plots", () => {
    const m = new SceneModel();
    const f = m.receive(snapshot({ diagnostics: { kineticEnergy: 2, gravitationalEnergy: -1, springEnergy: 0.5, maxError: 1e-6, stepSeconds: 0.001, overruns: 3n } }), 0);
    expect(f.diagnostics).toMatchObject({ kinetic: 2, gravitational: -1, spring: 0.5, maxError: 1e-6, stepSeconds: 0.001, overruns: 3 });
    expect(m.receive(snapshot({}), 0).diagnostics).toBeNull();
  });

  it("says why the server paused the world, while it is halted", () => {
    const m = new SceneModel();
    expect(m.receive(snapshot({ paused: true }), 0).halt).toBeUndefined();
    const halted = m.receive(snapshot({ paused: true, halt: { reason: HaltReason.DIVERGED, tick: 35n, message: "…" } }), 0);
    expect(halted.halt).toBe("diverged at tick 35");
    const slow = m.receive(snapshot({ paused: true, halt: { reason: HaltReason.WATCHDOG, tick: 5n } }), 0);
    expect(slow.halt).toBe("steps too slow at tick 5");
  });

  it("keeps the settings a frame carries until another replaces them", () => {
    const m = new SceneModel();
    m.receive(snapshot({ changes: { full: true, settings: { substeps: 4, tickRate: 60 } } }), 0);
    const first = m.settings;
    expect(first).toMatchObject({ substeps: 4, tickRate: 60 });
    m.receive(snapshot({ changes: { addedBodies: [body(C, "extra")] } }), 0);
    m.receive(snapshot({}), 0);
    expect(m.settings).toBe(first);
    m.receive(snapshot({ changes: { settings: { substeps: 8, tickRate: 120 } } }), 0);
    expect(m.settings).toMatchObject({ substeps: 8, tickRate: 120 });
    m.clear();
    expect(m.settings).toBeNull();
  });
});
