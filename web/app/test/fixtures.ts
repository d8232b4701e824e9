// Snapshots built the way the server sends them, for the unit tests.
import { create } from "@bufbuild/protobuf";
import { BodyKind, BodySchema, Motion } from "@linkage/client/proto/body_pb";
import { ConstraintSchema } from "@linkage/client/proto/constraint_pb";
import { ForceSchema } from "@linkage/client/proto/force_pb";
import { SnapshotSchema, TopologyChangesSchema, type Snapshot } from "@linkage/client/proto/snapshot_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";

type Id = { index: number; generation: number };

export function body(id: Id, name: string, opts: { rigid?: boolean; fixed?: boolean; box?: [number, number]; disk?: number; mass?: number } = {}) {
  return create(BodySchema, {
    id,
    def: {
      name,
      kind: opts.rigid ? BodyKind.RIGID : BodyKind.PARTICLE,
      motion: opts.fixed ? Motion.FIXED : Motion.DYNAMIC,
      mass: opts.mass ?? 1,
      shape: opts.box
        ? { shape: { case: "box", value: { halfWidth: opts.box[0], halfHeight: opts.box[1] } } }
        : opts.disk
          ? { shape: { case: "disk", value: { radius: opts.disk } } }
          : undefined,
    },
  });
}

export function distance(id: Id, name: string, a: Id | null, b: Id, anchorA = { x: 0, y: 0, z: 0 }) {
  return create(ConstraintSchema, {
    id,
    def: {
      name,
      type: {
        case: "distance",
        value: { a: a ? { ref: { case: "id", value: a } } : undefined, b: { ref: { case: "id", value: b } }, anchorA, length: 1 },
      },
    },
  });
}

export function pin(id: Id, a: Id | null, b: Id) {
  return create(ConstraintSchema, {
    id,
    def: { type: { case: "pin", value: { a: a ? { ref: { case: "id", value: a } } : undefined, b: { ref: { case: "id", value: b } } } } },
  });
}

export function spring(id: Id, a: Id, b: Id | null) {
  return create(ForceSchema, {
    id,
    def: { type: { case: "spring", value: { a: { ref: { case: "id", value: a } }, b: b ? { ref: { case: "id", value: b } } : undefined } } },
  });
}

export function snapshot(init: MessageInitShape<typeof SnapshotSchema> & { changes?: MessageInitShape<typeof TopologyChangesSchema> }): Snapshot {
  return create(SnapshotSchema, { dimension: 2, world: "default", ...init });
}
