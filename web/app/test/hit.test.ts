import { describe, expect, it } from "vitest";
import { pickBody, pickLink } from "../src/hit";
import { SceneModel } from "../src/scene-model";
import { body, distance, snapshot } from "./fixtures";

function world() {
  const m = new SceneModel();
  const f = m.receive(snapshot({
    bodyIndex: [0, 1, 2],
    bodyGeneration: [1, 1, 1],
    // A 2 × 0.4 box turned 90°, a particle on its top end, a disk to the right.
    position: [0, 0, 0, 0.9, 3, 0],
    angle: [Math.PI / 2, 0, 0],
    changes: {
      full: true,
      addedBodies: [
        body({ index: 0, generation: 1 }, "box", { rigid: true, box: [1, 0.2] }),
        body({ index: 1, generation: 1 }, "dot"),
        body({ index: 2, generation: 1 }, "wheel", { rigid: true, disk: 0.5 }),
      ],
      addedConstraints: [distance({ index: 0, generation: 1 }, "rod", null, { index: 2, generation: 1 }, { x: 3, y: 2, z: 0 })],
    },
  }), 0);
  return { m, f };
}

describe("picking", () => {
  it("finds bodies by their rotated shapes", () => {
    const { m, f } = world();
    expect(pickBody(m, f, [0.1, -0.8, 0], 0.01)).toBe("0:1");
    expect(pickBody(m, f, [0.8, 0, 0], 0.01)).toBeNull();
    expect(pickBody(m, f, [3.4, 0.1, 0], 0.01)).toBe("2:1");
  });

  it("prefers the smaller body where two overlap", () => {
    const { m, f } = world();
    expect(pickBody(m, f, [0.01, 0.9, 0], 0.05)).toBe("1:1");
  });

  it("finds a constraint by its drawn line", () => {
    const { m, f } = world();
    expect(pickLink(m, f, 0, [3.02, 1, 0], 0.05, 100)).toEqual({ kind: "constraint", id: "0:1" });
    expect(pickLink(m, f, 0, [2, 1, 0], 0.05, 100)).toBeNull();
  });
});
