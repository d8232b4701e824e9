// Dragging a body through the API, so every client sees it: a dynamic body
// is pulled by a temporary spring from its grab point to the cursor (a world
// point the drag moves with UpdateForce), removed on release; a fixed or
// kinematic body, which no force moves, is placed at the cursor with
// UpdateBody. Calls are chained so they reach the server in order, and moves
// made while a call is in flight collapse into one.
import { clone } from "@bufbuild/protobuf";
import { BodyDefSchema, Motion } from "@linkage/proto/body_pb";
import type { Id } from "@linkage/proto/types_pb";
import type { App } from "./app";
import type { P3 } from "./geometry";
import { keyId } from "./ids";
import type { BodyInfo } from "./scene-model";

// The spring's natural frequency and damping ratio with the body's mass: stiff
// enough to follow the hand, damped so it does not ring.
const FREQUENCY_HZ = 3;
const DAMPING_RATIO = 0.7;

function xyz(p: P3) {
  return { x: p[0], y: p[1], z: p[2] };
}

export class BodyDrag {
  private chain: Promise<unknown> = Promise.resolve();
  private spring: Id | undefined;
  private queued = false;
  private ended = false;
  cursor: P3;

  constructor(
    private readonly app: App,
    readonly body: BodyInfo,
    readonly grab: P3,
    cursor: P3,
  ) {
    this.cursor = cursor;
    if (this.pullable) {
      const world = app.world;
      this.chain = app
        .call("drag", () => app.api.force.addForce({ world, force: this.springDef() }))
        .then((r) => (this.spring = r?.id));
    } else this.move(cursor);
  }

  private get pullable(): boolean {
    return this.body.motion === Motion.DYNAMIC;
  }

  private springDef() {
    const m = this.body.mass > 0 ? this.body.mass : 1;
    const w = 2 * Math.PI * FREQUENCY_HZ;
    return {
      type: {
        case: "spring" as const,
        value: {
          a: { ref: { case: "id" as const, value: keyId(this.body.id) } },
          anchorA: xyz(this.grab),
          anchorB: xyz(this.cursor),
          stiffness: m * w * w,
          damping: 2 * m * DAMPING_RATIO * w,
          restLength: 0,
        },
      },
    };
  }

  move(cursor: P3): void {
    this.cursor = cursor;
    if (this.queued || this.ended) return;
    this.queued = true;
    const world = this.app.world;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      if (this.pullable) {
        const id = this.spring;
        if (!id || this.ended) return;
        await this.app.call("drag", () => this.app.api.force.updateForce({ world, id, force: this.springDef() }));
      } else {
        const def = clone(BodyDefSchema, this.body.body.def!);
        def.position = { $typeName: "linkage.v1.Vec3", ...xyz(this.cursor) };
        await this.app.call("drag", () =>
          this.app.api.body.updateBody({ world, body: { ref: { case: "id", value: keyId(this.body.id) } }, def }),
        );
      }
    });
  }

  end(): void {
    this.ended = true;
    const world = this.app.world;
    this.chain = this.chain.then(async () => {
      const id = this.spring;
      if (id) await this.app.call("release", () => this.app.api.force.removeForce({ world, id }));
    });
  }
}
