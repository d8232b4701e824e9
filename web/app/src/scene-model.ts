// The viewer's picture of a world, kept in sync by the stream: the topology
// (bodies, constraints, springs: what the world *is*) from each snapshot's
// change records, as @linkage/client's Mirror keeps it, with what the views
// draw of each object; and each snapshot's packed columns as a Frame (what
// it is *doing*). Nothing here touches the DOM, so it is unit-tested.
import { create } from "@bufbuild/protobuf";
import { constraintRows, contactPoints, Mirror, type ConstraintRows, type ContactPoint } from "@linkage/client";
import type { Body } from "@linkage/client/proto/body_pb";
import { BodyKind, Motion } from "@linkage/client/proto/body_pb";
import type { Constraint, ConstraintDef } from "@linkage/client/proto/constraint_pb";
import { SpringSchema, type Force, type Spring } from "@linkage/client/proto/force_pb";
import type { Snapshot } from "@linkage/client/proto/snapshot_pb";
import { HaltReason, type Halt } from "@linkage/client/proto/world_pb";
import { idKey, refKey, type Key } from "./ids";

export type Shape =
  | { kind: "disk"; radius: number }
  | { kind: "box"; halfWidth: number; halfHeight: number }
  | { kind: "polygon"; vertices: [number, number][] }
  // A stadium along the body's x axis; a segment from a to b (body frame);
  // the boundary of a half-space through the body's centre, solid away from
  // its normal (body frame).
  | { kind: "capsule"; radius: number; halfLength: number }
  | { kind: "segment"; a: [number, number]; b: [number, number] }
  | { kind: "plane"; normal: [number, number, number] }
  | { kind: "none" };

// Drag cursors (kinematic particles a viewer moves under the mouse) are
// named with this prefix, so every viewer can draw them as cursors.
export const CURSOR_PREFIX = "drag-cursor-";

export interface BodyInfo {
  id: Key;
  name: string;
  cursor: boolean;
  rigid: boolean;
  motion: Motion;
  shape: Shape;
  mass: number;
  body: Body;
}

export interface ConstraintInfo {
  id: Key;
  name: string;
  // The proto field name of the constraint's type: "distance", "point_on_line", …
  type: string;
  // The bodies it holds, in the definition's order; null is the world.
  bodies: (Key | null)[];
  def: ConstraintDef;
}

export interface SpringInfo {
  id: Key;
  a: Key | null;
  b: Key | null;
  spring: Spring;
}

// Bodies' state at one instant, in the stream's column layout.
export interface Pose {
  dimension: number;
  ids: Key[];
  // `dimension` values per body.
  position: number[];
  angle: number[];
  // Body key → its row in the columns.
  slot: Map<Key, number>;
}

export type RowValues = ConstraintRows;

export interface DiagnosticsSample {
  kinetic: number;
  gravitational: number;
  spring: number;
  maxError: number;
  stepSeconds: number;
  solverIterations: number;
  rankDeficiency: number;
  overruns: number;
}

export interface Frame extends Pose {
  world: string;
  tick: number;
  time: number;
  paused: boolean;
  // Why the server paused the world by itself ("diverged at tick 35"), if it did.
  halt?: string;
  topologyVersion: number;
  velocity: number[];
  constraints: Map<Key, RowValues>;
  diagnostics: DiagnosticsSample | null;
  // The tick's contact points (a stream asked for contacts; else none).
  contacts: ContactPoint[];
  // performance.now() when it arrived, for interpolation.
  receivedAt: number;
}

export function haltText(h: Halt | undefined): string | undefined {
  if (!h || h.reason === HaltReason.UNSPECIFIED) return undefined;
  const why = h.reason === HaltReason.WATCHDOG ? "steps too slow" : "diverged";
  return `${why} at tick ${h.tick}`;
}

// A Vec3 as [x, y, z] (the origin for none).
export { vecArray as vec } from "@linkage/client";

function shapeOf(body: Body): Shape {
  const s = body.def?.shape?.shape;
  switch (s?.case) {
    case "disk":
      return { kind: "disk", radius: s.value.radius };
    case "box":
      return { kind: "box", halfWidth: s.value.halfWidth, halfHeight: s.value.halfHeight };
    case "polygon":
      return { kind: "polygon", vertices: s.value.vertices.map((v) => [v.x, v.y] as [number, number]) };
    case "capsule":
      return { kind: "capsule", radius: s.value.radius, halfLength: s.value.halfLength };
    case "segment":
      return { kind: "segment", a: [s.value.a?.x ?? 0, s.value.a?.y ?? 0], b: [s.value.b?.x ?? 0, s.value.b?.y ?? 0] };
    case "plane": {
      const n = s.value.normal;
      return { kind: "plane", normal: [n?.x ?? 0, n?.y ?? 0, n?.z ?? 0] };
    }
    default:
      return { kind: "none" };
  }
}

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
}

export function constraintBodies(def: ConstraintDef): (Key | null)[] {
  const t = def.type;
  switch (t.case) {
    case undefined:
      return [];
    case "rackAndPinion":
      return [refKey(t.value.rack), refKey(t.value.pinion)];
    case "trajectory":
      return [refKey(t.value.body)];
    default:
      return [refKey(t.value.a), refKey(t.value.b)];
  }
}

function bodyInfo(body: Body): BodyInfo {
  const def = body.def;
  return {
    id: idKey(body.id),
    name: def?.name ?? "",
    cursor: (def?.name ?? "").startsWith(CURSOR_PREFIX),
    rigid: def?.kind === BodyKind.RIGID,
    // Unspecified motion means dynamic, as in the proto.
    motion: def?.motion === Motion.UNSPECIFIED || def === undefined ? Motion.DYNAMIC : def.motion,
    shape: shapeOf(body),
    mass: def?.mass ?? 0,
    body,
  };
}

function constraintInfo(c: Constraint): ConstraintInfo {
  const def = c.def!;
  return {
    id: idKey(c.id),
    name: def.name,
    type: def.type.case ? snakeCase(def.type.case) : "unknown",
    bodies: constraintBodies(def),
    def,
  };
}

// The stream sends springs alone as springs (other forces are not topology).
function springInfo(f: Force): SpringInfo {
  const spring = f.def?.type.case === "spring" ? f.def.type.value : create(SpringSchema);
  return { id: idKey(f.id), a: refKey(spring.a), b: refKey(spring.b), spring };
}

function diagnosticsOf(s: Snapshot): DiagnosticsSample | null {
  const d = s.diagnostics;
  if (!d) return null;
  return {
    kinetic: d.kineticEnergy,
    gravitational: d.gravitationalEnergy,
    spring: d.springEnergy,
    maxError: d.maxError,
    stepSeconds: d.stepSeconds,
    solverIterations: d.solverIterations,
    rankDeficiency: d.rankDeficiency,
    overruns: Number(d.overruns),
  };
}

// The stream's change records applied by @linkage/client's Mirror, which
// keeps, for each object, what the views draw of it.
export class SceneModel extends Mirror<BodyInfo, ConstraintInfo, SpringInfo> {
  constructor() {
    super({ body: bodyInfo, constraint: constraintInfo, spring: springInfo });
  }

  // Applies one snapshot (its change records, then its state) and returns
  // its state as a Frame, received at `receivedAt` (performance.now()).
  receive(s: Snapshot, receivedAt: number): Frame {
    this.apply(s);
    return {
      world: s.world,
      tick: Number(s.tick),
      time: s.time,
      paused: s.paused,
      halt: haltText(s.halt),
      topologyVersion: Number(s.topologyVersion),
      dimension: s.dimension || 2,
      ids: this.ids,
      slot: this.slot,
      position: s.position,
      velocity: s.velocity,
      angle: s.angle,
      constraints: constraintRows(s),
      diagnostics: diagnosticsOf(s),
      contacts: contactPoints(s),
      receivedAt,
    };
  }
}
