import { describe, expect, it } from "vitest";
import { rotate, sceneBounds, sceneBox, toLocal, toWorld, unrotate } from "../src/geometry";
import { SceneModel } from "../src/scene-model";
import { body, distance, pin, snapshot } from "./fixtures";

describe("body frames", () => {
  const m = new SceneModel();
  const f = m.receive(snapshot({ bodyIndex: [0], bodyGeneration: [1], position: [1, 2], angle: [Math.PI / 2] }), 0);

  it("puts a local anchor where the turned body carries it, and back", () => {
    const w = toWorld(f, "0:1", [1, 0, 0]);
    expect(w[0]).toBeCloseTo(1, 12);
    expect(w[1]).toBeCloseTo(3, 12);
    const l = toLocal(f, "0:1", w);
    expect(l[0]).toBeCloseTo(1, 12);
    expect(l[1]).toBeCloseTo(0, 12);
    const v = unrotate(f, "0:1", rotate(f, "0:1", [0.3, -0.7, 0]));
    expect(v[0]).toBeCloseTo(0.3, 12);
    expect(v[1]).toBeCloseTo(-0.7, 12);
  });

  it("treats the world (null) as the identity frame", () => {
    expect(toWorld(f, null, [5, 6, 0])).toEqual([5, 6, 0]);
  });
});

describe("sceneBounds", () => {
  it("includes the circle a chain hung from a world point can swing through", () => {
    const m = new SceneModel();
    const A = { index: 0, generation: 1 };
    const B = { index: 1, generation: 1 };
    const f = m.receive(snapshot({
      bodyIndex: [0, 1],
      bodyGeneration: [1, 1],
      position: [1, 0, 2, 0],
      angle: [0, 0],
      changes: {
        full: true,
        addedBodies: [body(A, "l1"), body(B, "l2")],
        addedConstraints: [distance({ index: 0, generation: 1 }, "", null, A), distance({ index: 1, generation: 1 }, "", A, B)],
      },
    }), 0);
    expect(sceneBounds(m, f)).toEqual({ minX: -2, minY: -2, maxX: 2, maxY: 2 });
  });

  it("finds the pivot of a pin whose world anchor is the origin (left unset)", () => {
    const m = new SceneModel();
    const A = { index: 0, generation: 1 };
    const f = m.receive(snapshot({
      bodyIndex: [0], bodyGeneration: [1], position: [3, 4], angle: [0],
      changes: { full: true, addedBodies: [body(A, "bob")], addedConstraints: [pin({ index: 0, generation: 1 }, null, A)] },
    }), 0);
    expect(sceneBounds(m, f)).toEqual({ minX: -5, minY: -5, maxX: 5, maxY: 5 });
  });

  it("swings a mechanism hung from a fixed body, in 3D too", () => {
    const m = new SceneModel();
    const P = { index: 0, generation: 1 };
    const A = { index: 1, generation: 1 };
    const f = m.receive(snapshot({
      dimension: 3,
      bodyIndex: [0, 1], bodyGeneration: [1, 1], position: [0, 1, 0, 0, 1, 2], angle: [0, 0],
      changes: {
        full: true,
        addedBodies: [body(P, "pivot", { fixed: true }), body(A, "bob")],
        addedConstraints: [distance({ index: 0, generation: 1 }, "", P, A)],
      },
    }), 0);
    expect(sceneBox(m, f)).toEqual({ min: [-2, -1, -2], max: [2, 3, 2] });
  });

  it("frames a mechanism held at two pivots as it is", () => {
    const m = new SceneModel();
    const A = { index: 0, generation: 1 };
    const B = { index: 1, generation: 1 };
    const f = m.receive(snapshot({
      bodyIndex: [0, 1], bodyGeneration: [1, 1], position: [1, 0, 2, 0], angle: [0, 0],
      changes: {
        full: true,
        addedBodies: [body(A, "a"), body(B, "b")],
        addedConstraints: [
          distance({ index: 0, generation: 1 }, "", null, A),
          distance({ index: 1, generation: 1 }, "", A, B),
          distance({ index: 2, generation: 1 }, "", null, B, { x: 3, y: 0, z: 0 }),
        ],
      },
    }), 0);
    expect(sceneBounds(m, f)).toEqual({ minX: 0, minY: 0, maxX: 3, maxY: 0 });
  });
});
