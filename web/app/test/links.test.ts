import { describe, expect, it } from "vitest";
import { toWorld } from "../src/geometry";
import { linkDef } from "../src/links";
import { SceneModel } from "../src/scene-model";
import { snapshot } from "./fixtures";

// Body 0:1 at (1, 0) turned a quarter turn; body 1:1 at (3, 0), not turned.
const pose = new SceneModel().receive(snapshot({ bodyIndex: [0, 1], bodyGeneration: [1, 1], position: [1, 0, 3, 0], angle: [Math.PI / 2, 0] }), 0);
const spring = { stiffness: 40, damping: 0.3 };
const A = { id: "0:1", point: [1, 1, 0] as [number, number, number] };
const B = { id: "1:1", point: [3, 0, 0] as [number, number, number] };
const WORLD = { id: null, point: [0, 2, 0] as [number, number, number] };

function value(d: ReturnType<typeof linkDef>): any {
  if ("error" in d) throw new Error(d.error);
  return d.def.type!.value;
}

function close(v: { x: number; y: number; z: number }, x: number, y: number) {
  expect(v.x).toBeCloseTo(x, 12);
  expect(v.y).toBeCloseTo(y, 12);
  expect(v.z).toBe(0);
}

describe("linkDef", () => {
  it("joins two bodies with a rod at the click points, in each body's frame, length left to the server", () => {
    const d = linkDef("rod", pose, A, B, spring);
    expect(d).toMatchObject({ kind: "constraint", def: { type: { case: "distance" } } });
    const v = value(d);
    expect(v.a.ref.value).toMatchObject({ index: 0, generation: 1 });
    expect(v.b.ref.value).toMatchObject({ index: 1, generation: 1 });
    // (1, 1) is one metre along the turned body's own x axis.
    close(v.anchorA, 1, 0);
    close(v.anchorB, 0, 0);
    expect(v.length).toBeUndefined();
  });

  it("puts the world at `a` of a constraint and at `b` of a spring", () => {
    const rod = value(linkDef("rod", pose, A, WORLD, spring));
    expect(rod.a).toBeUndefined();
    close(rod.anchorA, 0, 2);
    expect(rod.b.ref.value).toMatchObject({ index: 0, generation: 1 });

    const d = linkDef("spring", pose, WORLD, A, spring);
    expect(d).toMatchObject({ kind: "force" });
    const s = value(d);
    expect(s.a.ref.value).toMatchObject({ index: 0, generation: 1 });
    expect(s.b).toBeUndefined();
    close(s.anchorB, 0, 2);
    expect(s).toMatchObject({ stiffness: 40, damping: 0.3 });
    expect(s.restLength).toBeUndefined();
  });

  it("pins both bodies at the first click point", () => {
    const v = value(linkDef("pin", pose, A, B, spring));
    const pa = toWorld(pose, "0:1", [v.anchorA.x, v.anchorA.y, 0]);
    const pb = toWorld(pose, "1:1", [v.anchorB.x, v.anchorB.y, 0]);
    for (const p of [pa, pb]) {
      expect(p[0]).toBeCloseTo(1, 12);
      expect(p[1]).toBeCloseTo(1, 12);
    }
  });

  it("lays a slider's line from the first pick through the second, in the first body's frame", () => {
    const v = value(linkDef("slider", pose, A, B, spring));
    // World direction (2, -1) seen from a body turned by 90°: (-1, -2).
    close(v.axis, -1, -2);
    const onWorld = value(linkDef("slider", pose, WORLD, B, spring));
    expect(onWorld.a).toBeUndefined();
    close(onWorld.axis, 3, -2);
    expect(linkDef("slider", pose, B, WORLD, spring)).toEqual({ error: "the second click must be the body that slides" });
  });

  it("refuses a body linked to itself", () => {
    expect(linkDef("rod", pose, A, { ...A, point: [1, 0.5, 0] }, spring)).toEqual({ error: "pick two different bodies" });
  });
});
