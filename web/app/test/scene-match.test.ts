import { describe, expect, it } from "vitest";
import { heldScene, sceneEntry } from "../src/scene-match";
import { SceneModel } from "../src/scene-model";
import { body, distance, snapshot, spring } from "./fixtures";

const A = { index: 0, generation: 1 };
const B = { index: 1, generation: 1 };
const C = { index: 2, generation: 1 };

const pendulum = sceneEntry("pendulum", {
  title: "Pendulum",
  description: "A bob on a rod.",
  bodies: [{ name: "pivot" }, { name: "bob" }],
  constraints: [{ distance: { a: { name: "pivot" }, b: { name: "bob" } } }],
  forces: [{ applied: { body: { name: "bob" } } }],
});
const twin = sceneEntry("twin", { bodies: [{ name: "bob" }, { name: "pivot" }], constraints: [], settings: { dimension: 3 } });

function world(...changes: Parameters<typeof snapshot>[0]["changes"][]) {
  const m = new SceneModel();
  for (const c of changes) m.receive(snapshot({ changes: c }), 0);
  return m;
}

const held = (m: SceneModel, dimension = 2) => heldScene([pendulum, twin], m, dimension)?.stem ?? null;

describe("heldScene", () => {
  it("reads what it compares from a scene file", () => {
    expect(pendulum).toEqual({ stem: "pendulum", title: "Pendulum", description: "A bob on a rod.", bodies: ["bob", "pivot"], constraints: 1, springs: 0, dimension: 2 });
    expect([twin.title, twin.description]).toEqual(["twin", ""]);
  });

  it("finds the scene with the same bodies, constraints, springs and dimension", () => {
    const m = world({ full: true, addedBodies: [body(A, "pivot"), body(B, "bob")], addedConstraints: [distance(A, "", A, B)] });
    expect(held(m)).toBe("pendulum");
    expect(held(m, 3)).toBeNull();
  });

  it("finds none once the world is edited", () => {
    const m = world({ full: true, addedBodies: [body(A, "pivot"), body(B, "bob")], addedConstraints: [distance(A, "", A, B)] });
    m.receive(snapshot({ changes: { addedSprings: [spring(A, A, B)] } }), 0);
    expect(held(m)).toBeNull();
    m.receive(snapshot({ changes: { removedSprings: [A], updatedBodies: [body(B, "renamed")] } }), 0);
    expect(held(m)).toBeNull();
  });

  it("leaves a viewer's drag cursor and its spring out", () => {
    const m = world(
      { full: true, addedBodies: [body(A, "pivot"), body(B, "bob")], addedConstraints: [distance(A, "", A, B)] },
      { addedBodies: [body(C, "drag-cursor-x1")], addedSprings: [spring(A, C, B)] },
    );
    expect(held(m)).toBe("pendulum");
  });
});
