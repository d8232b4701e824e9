import { describe, expect, it } from "vitest";
import { Motion } from "@linkage/client/proto/body_pb";
import type { App } from "../src/app";
import { BodyDrag } from "../src/drag";
import { SceneModel } from "../src/scene-model";
import { body, snapshot } from "./fixtures";

// An App whose API records calls and answers each after a tick of the event loop.
function fakeApp() {
  const calls: { rpc: string; req: any }[] = [];
  const answer = (rpc: string, res: unknown) => async (req: unknown) => {
    calls.push({ rpc, req });
    await new Promise((r) => setTimeout(r, 1));
    return res;
  };
  const app = {
    world: "w",
    api: {
      world: { applyBatch: answer("applyBatch", { results: [{ created: { index: 7, generation: 3 } }, {}] }) },
      body: { updateBody: answer("updateBody", {}), removeBody: answer("removeBody", {}) },
    },
    call: (_what: string, f: () => Promise<unknown>) => f(),
  } as unknown as App;
  return { app, calls };
}

function info(fixed = false) {
  const m = new SceneModel();
  m.receive(snapshot({ changes: { full: true, addedBodies: [body({ index: 1, generation: 1 }, "bob", { fixed, mass: 2 })] } }), 0);
  return m.bodies.get("1:1")!;
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe("BodyDrag", () => {
  it("makes a cursor and a spring in one batch, moves the cursor, removes it on release, in order", async () => {
    const { app, calls } = fakeApp();
    const d = new BodyDrag(app, info(), [0.1, 0, 0], [1, 1, 0]);
    d.move([2, 2, 0]);
    d.move([3, 3, 0]);
    d.move([4, 4, 0]);
    d.end();
    await settle();
    expect(calls.map((c) => c.rpc)).toEqual(["applyBatch", "updateBody", "removeBody"]);
    const [cursor, spring] = calls[0].req.commands;
    expect(cursor.command.value).toMatchObject({ motion: Motion.KINEMATIC, position: { x: 1, y: 1 } });
    expect(spring.command.value.type.value).toMatchObject({ anchorA: { x: 0.1 }, restLength: 0, b: { ref: { case: "name", value: cursor.command.value.name } } });
    // k = m (2π·3 Hz)²: stiffer for heavier bodies.
    expect(spring.command.value.type.value.stiffness).toBeCloseTo(2 * (6 * Math.PI) ** 2, 9);
    // Moves made while the batch was in flight collapse into the newest.
    expect(calls[1].req.def.position).toMatchObject({ x: 4, y: 4 });
    expect(calls[1].req.body.ref.value).toMatchObject({ index: 7, generation: 3 });
    expect(calls[2].req.body.ref.value).toMatchObject({ index: 7, generation: 3 });
  });

  it("places a fixed body itself and leaves it there", async () => {
    const { app, calls } = fakeApp();
    const d = new BodyDrag(app, info(true), [0, 0, 0], [1, 2, 0]);
    await settle();
    d.move([5, 6, 0]);
    d.end();
    await settle();
    expect(calls.map((c) => c.rpc)).toEqual(["updateBody", "updateBody"]);
    // Its position alone (an update mask): the rest stays the body's, whatever other clients did to it.
    expect(calls[1].req.def).toMatchObject({ name: "", position: { x: 5, y: 6 } });
    expect(calls[1].req.updateMask.paths).toEqual(["position"]);
    expect(calls[1].req.body.ref.value).toMatchObject({ index: 1, generation: 1 });
  });
});
