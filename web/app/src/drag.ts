// Dragging a body through the API, so every client sees it. A dynamic body is
// pulled by a spring to a kinematic "cursor" particle that the drag moves
// with UpdateBody: body positions are in every snapshot, so other clients
// watch the cursor and the spring move (a spring's own world anchor, changed
// with UpdateForce, would not reach them). Cursor and spring are made in one
// atomic batch and go with one RemoveBody on release. A fixed or kinematic
// body, which no force moves, is itself placed at the cursor. Calls are
// chained so they reach the server in order, and moves made while a call is
// in flight collapse into one.
import { create } from "@bufbuild/protobuf";
import { BodyDefSchema, BodyKind, Motion, type BodyDef } from "@linkage/client/proto/body_pb";
import type { App } from "./app";
import type { P3 } from "./geometry";
import { idKey, keyId } from "./ids";
import { CURSOR_PREFIX, type BodyInfo } from "./scene-model";

// The spring's natural frequency and damping ratio with the body's mass: stiff
// enough to follow the hand, damped so it does not ring.
const FREQUENCY_HZ = 3;
const DAMPING_RATIO = 0.7;

function xyz(p: P3) {
  return { x: p[0], y: p[1], z: p[2] };
}

export class BodyDrag {
  private chain: Promise<unknown> = Promise.resolve();
  // The body the moves place: the cursor particle, or the dragged body itself.
  private moved: string | undefined;
  private queued = false;
  private ended = false;
  private readonly cursorName = CURSOR_PREFIX + Math.random().toString(36).slice(2, 10);
  cursor: P3;

  constructor(
    private readonly app: App,
    readonly body: BodyInfo,
    readonly grab: P3,
    cursor: P3,
  ) {
    this.cursor = cursor;
    if (body.motion !== Motion.DYNAMIC) {
      this.moved = body.id;
      this.move(cursor);
      return;
    }
    const world = app.world;
    const m = body.mass > 0 ? body.mass : 1;
    const w = 2 * Math.PI * FREQUENCY_HZ;
    this.chain = app
      .call("drag", () =>
        app.api.world.applyBatch({
          world,
          commands: [
            { command: { case: "createBody", value: this.cursorDef() } },
            {
              command: {
                case: "addForce",
                value: {
                  type: {
                    case: "spring",
                    value: {
                      a: { ref: { case: "id", value: keyId(body.id) } },
                      anchorA: xyz(grab),
                      b: { ref: { case: "name", value: this.cursorName } },
                      stiffness: m * w * w,
                      damping: 2 * m * DAMPING_RATIO * w,
                      restLength: 0,
                    },
                  },
                },
              },
            },
          ],
        }),
      )
      .then((r) => {
        const id = r?.results[0]?.created;
        if (id) this.moved = idKey(id);
      });
  }

  private cursorDef(): BodyDef {
    return create(BodyDefSchema, {
      name: this.cursorName,
      kind: BodyKind.PARTICLE,
      motion: Motion.KINEMATIC,
      mass: 1,
      position: xyz(this.cursor),
    });
  }

  // A dragged kinematic body changes its position alone (an update mask:
  // what other clients change meanwhile stays); the cursor particle is
  // always this viewer's own.
  private movedDef(): { def: BodyDef; updateMask?: { paths: string[] } } {
    if (this.moved !== this.body.id) return { def: this.cursorDef() };
    return { def: create(BodyDefSchema, { position: xyz(this.cursor) }), updateMask: { paths: ["position"] } };
  }

  move(cursor: P3): void {
    this.cursor = cursor;
    if (this.queued || this.ended) return;
    this.queued = true;
    const world = this.app.world;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      const id = this.moved;
      if (!id) return;
      const update = this.movedDef();
      await this.app.call("drag", () => this.app.api.body.updateBody({ world, body: { ref: { case: "id", value: keyId(id) } }, ...update }));
    });
  }

  end(): void {
    this.ended = true;
    const world = this.app.world;
    this.chain = this.chain.then(async () => {
      const id = this.moved;
      if (id && id !== this.body.id) {
        await this.app.call("release", () => this.app.api.body.removeBody({ world, body: { ref: { case: "id", value: keyId(id) } } }));
      }
    });
  }
}
