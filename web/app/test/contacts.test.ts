// What the viewer adds for contacts: the new shapes kept from the stream
// (capsule, segment, plane), their picking and framing, the contact points
// drawn from a snapshot's columns, and the walls and ground the tools add.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BodyKind, BodySchema, Motion, type ShapeSchema } from "@linkage/client/proto/body_pb";
import { ContactEventKind } from "@linkage/client/proto/snapshot_pb";
import { describe, expect, it } from "vitest";
import { contactGlyphs } from "../src/contact-glyphs";
import { bodyRadius, sceneBox } from "../src/geometry";
import { pickBody } from "../src/hit";
import { SceneModel } from "../src/scene-model";
import { groundDef, wallDef } from "../src/static-bodies";
import { planeLines } from "../src/view3d";
import { body, snapshot } from "./fixtures";

const v = (x: number, y: number) => ({ x, y, z: 0 });

function shaped(index: number, name: string, shape: MessageInitShape<typeof ShapeSchema>) {
  return create(BodySchema, { id: { index, generation: 1 }, def: { name, kind: BodyKind.RIGID, motion: Motion.FIXED, shape } });
}

// A capsule lying at (0, 1), a segment from (2, 0) to (4, 0) (centred at
// (3, 0)), a floor plane through (0, -1) facing up, and a disk touching the
// segment, with two contact points.
function world() {
  const m = new SceneModel();
  const f = m.receive(snapshot({
    bodyIndex: [0, 1, 2, 3],
    bodyGeneration: [1, 1, 1, 1],
    position: [0, 1, 3, 0, 0, -1, 3, 0.2],
    angle: [0, 0, 0, 0],
    changes: {
      full: true,
      addedBodies: [
        shaped(0, "capsule", { shape: { case: "capsule", value: { radius: 0.25, halfLength: 0.5 } } }),
        shaped(1, "wall", { shape: { case: "segment", value: { a: v(-1, 0), b: v(1, 0) } } }),
        shaped(2, "floor", { shape: { case: "plane", value: { normal: v(0, 1) } } }),
        body({ index: 3, generation: 1 }, "ball", { rigid: true, disk: 0.2 }),
      ],
    },
    contactAIndex: [1, 2],
    contactAGeneration: [1, 1],
    contactBIndex: [3, 3],
    contactBGeneration: [1, 1],
    contactPoint: [3, 0, 3, -1],
    contactNormal: [0, 1, 0, 1],
    contactSeparation: [0, 0.9],
    contactNormalImpulse: [0.5, 0],
    contactTangentImpulse: [0, 0],
    contactEventsFull: true,
    contactEvents: [{ kind: ContactEventKind.BEGIN, tick: 0n, a: { index: 1, generation: 1 }, b: { index: 3, generation: 1 } }],
  }), 0);
  return { m, f };
}

describe("contact shapes", () => {
  it("keeps capsules, segments and planes from the stream", () => {
    const { m } = world();
    expect(m.bodies.get("0:1")!.shape).toEqual({ kind: "capsule", radius: 0.25, halfLength: 0.5 });
    expect(m.bodies.get("1:1")!.shape).toEqual({ kind: "segment", a: [-1, 0], b: [1, 0] });
    expect(m.bodies.get("2:1")!.shape).toEqual({ kind: "plane", normal: [0, 1, 0] });
    expect(bodyRadius(m.bodies.get("0:1")!)).toBe(0.75);
    expect(bodyRadius(m.bodies.get("1:1")!)).toBe(1);
    expect(bodyRadius(m.bodies.get("2:1")!)).toBe(0);
  });

  it("picks them by their outlines", () => {
    const { m, f } = world();
    expect(pickBody(m, f, [0.7, 1.1, 0], 0.01)).toBe("0:1"); // in the capsule's right cap
    expect(pickBody(m, f, [0.7, 1.3, 0], 0.01)).toBeNull(); // beyond the cap's corner
    expect(pickBody(m, f, [2.2, 0.005, 0], 0.01)).toBe("1:1"); // on the segment
    expect(pickBody(m, f, [1.5, 0, 0], 0.01)).toBeNull(); // past its end
    expect(pickBody(m, f, [-5, -3, 0], 0.01)).toBe("2:1"); // anywhere under the plane
    expect(pickBody(m, f, [-5, -0.9, 0], 0.01)).toBeNull();
  });

  it("frames a segment by its ends and a plane by its position alone", () => {
    const { m, f } = world();
    const box = sceneBox(m, f);
    expect(box.max[0]).toBe(4);
    expect(box.min[1]).toBe(-1);
  });
});

describe("contact glyphs", () => {
  it("come from the snapshot's columns, coloured by normal impulse relative to the largest", () => {
    const { f } = world();
    const g = contactGlyphs(f.contacts);
    expect(g).toEqual([
      { point: [3, 0, 0], normal: [0, 1, 0], t: 1 },
      { point: [3, -1, 0], normal: [0, 1, 0], t: 0 },
    ]);
    expect(contactGlyphs([])).toEqual([]);
  });

  it("the model follows the touching pairs from the events", () => {
    const { m } = world();
    expect([...m.touching]).toEqual(["1:1|3:1"]);
  });
});

describe("walls and ground", () => {
  it("a wall is a fixed segment body centred between the drag's ends", () => {
    const def = wallDef([1, 1, 0], [3, 2, 0], 0.1)!;
    expect(def.motion).toBe(Motion.FIXED);
    expect(def.kind).toBe(BodyKind.RIGID);
    expect(def.position).toEqual({ x: 2, y: 1.5, z: 0 });
    expect(def.shape!.shape).toEqual({ case: "segment", value: { a: { x: -1, y: -0.5, z: 0 }, b: { x: 1, y: 0.5, z: 0 } } });
    expect(wallDef([1, 1, 0], [1.01, 1, 0], 0.1)).toBeNull();
  });

  it("the ground's top is the scene's lowest point, wider than the scene", () => {
    const { m, f } = world();
    const box = sceneBox(m, f);
    const flat = groundDef(m, f, 2);
    const shape = flat.shape!.shape as { case: "box"; value: { halfWidth: number; halfHeight: number } };
    expect(shape.case).toBe("box");
    expect(flat.position!.y! + shape.value.halfHeight).toBeCloseTo(box.min[1], 12);
    expect(shape.value.halfWidth).toBeGreaterThanOrEqual((box.max[0] - box.min[0]) / 2);
    expect(flat.motion).toBe(Motion.FIXED);
    const deep = groundDef(m, f, 3);
    expect(deep.kind).toBe(BodyKind.PARTICLE);
    expect(deep.shape!.shape).toEqual({ case: "plane", value: { normal: { x: 0, y: 1, z: 0 } } });
    expect(deep.position!.y).toBe(box.min[1]);
  });
});

describe("a plane in 3D", () => {
  it("is drawn as a square of lines on it, centred on its body", () => {
    const lines = planeLines([1, -1, 2], [0, 2, 0], 3);
    expect(lines).toHaveLength(14);
    const points = lines.flatMap(([a, b]) => [a, b]);
    for (const p of points) expect(p[1]).toBeCloseTo(-1, 12);
    expect(Math.max(...points.map((p) => p[0]))).toBeCloseTo(4, 12);
    expect(Math.min(...points.map((p) => p[2]))).toBeCloseTo(-1, 12);
    // A tilted plane: every point on it.
    const n = [1, 1, 0].map((x) => x / Math.SQRT2);
    for (const [a, b] of planeLines([0, 0, 0], [1, 1, 0], 2)) for (const p of [a, b]) expect(p[0] * n[0] + p[1] * n[1]).toBeCloseTo(0, 12);
  });
});
