// The client's picture of a world, kept in sync by the stream: the topology
// (bodies, constraints, springs: what the world *is*) from each snapshot's
// TopologyChanges, and each snapshot's packed columns unpacked into a Frame
// (what it is *doing*). Nothing here touches the DOM, so it is unit-tested.
import type { Body } from "@linkage/proto/body_pb";
import { BodyKind, Motion } from "@linkage/proto/body_pb";
import type { Constraint, ConstraintDef } from "@linkage/proto/constraint_pb";
import type { Force, Spring } from "@linkage/proto/force_pb";
import type { Snapshot, TopologyChanges } from "@linkage/proto/snapshot_pb";
import type { Vec3 } from "@linkage/proto/types_pb";
import { HaltReason, type Halt, type WorldSettings } from "@linkage/proto/world_pb";
import { idKey, key, refKey, type Key } from "./ids";

export type Shape =
  | { kind: "disk"; radius: number }
  | { kind: "box"; halfWidth: number; halfHeight: number }
  | { kind: "polygon"; vertices: [number, number][] }
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

export interface RowValues {
  lambda: number[];
  error: number[];
}

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
  // performance.now() when it arrived, for interpolation.
  receivedAt: number;
}

export function haltText(h: Halt | undefined): string | undefined {
  if (!h || h.reason === HaltReason.UNSPECIFIED) return undefined;
  const why = h.reason === HaltReason.WATCHDOG ? "steps too slow" : "diverged";
  return `${why} at tick ${h.tick}`;
}

export function vec(v: Vec3 | undefined): [number, number, number] {
  return v ? [v.x, v.y, v.z] : [0, 0, 0];
}

function shapeOf(body: Body): Shape {
  const s = body.def?.shape?.shape;
  switch (s?.case) {
    case "disk":
      return { kind: "disk", radius: s.value.radius };
    case "box":
      return { kind: "box", halfWidth: s.value.halfWidth, halfHeight: s.value.halfHeight };
    case "polygon":
      return { kind: "polygon", vertices: s.value.vertices.map((v) => [v.x, v.y] as [number, number]) };
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

function springInfo(f: Force): SpringInfo | null {
  if (f.def?.type.case !== "spring") return null;
  const spring = f.def.type.value;
  return { id: idKey(f.id), a: refKey(spring.a), b: refKey(spring.b), spring };
}

// Splits the concatenated λ and C columns by each constraint's row count.
export function unpackConstraintRows(s: Snapshot): Map<Key, RowValues> {
  const out = new Map<Key, RowValues>();
  let row = 0;
  for (let i = 0; i < s.constraintIndex.length; i++) {
    const rows = s.constraintRows[i] ?? 0;
    out.set(key(s.constraintIndex[i], s.constraintGeneration[i]), {
      lambda: s.lambda.slice(row, row + rows),
      error: s.error.slice(row, row + rows),
    });
    row += rows;
  }
  return out;
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

export class SceneModel {
  readonly bodies = new Map<Key, BodyInfo>();
  readonly constraints = new Map<Key, ConstraintInfo>();
  readonly springs = new Map<Key, SpringInfo>();
  // Bumped whenever the topology changes, so views can rebuild what they cache.
  revision = 0;
  // The world's settings as the stream last sent them (on its first frame and
  // whenever any client changes them); replaced, never edited in place.
  settings: WorldSettings | null = null;

  clear(): void {
    this.bodies.clear();
    this.constraints.clear();
    this.springs.clear();
    this.settings = null;
    this.revision++;
  }

  applyChanges(changes: TopologyChanges): void {
    if (changes.full) this.clear();
    // Removals first: an id in both lists cannot happen (generations are not
    // reused), but a new body may take a removed one's index.
    for (const id of changes.removedBodies) this.bodies.delete(idKey(id));
    for (const id of changes.removedConstraints) this.constraints.delete(idKey(id));
    for (const id of changes.removedSprings) this.springs.delete(idKey(id));
    for (const b of changes.addedBodies) {
      const info = bodyInfo(b);
      this.bodies.set(info.id, info);
    }
    for (const c of changes.addedConstraints) {
      const info = constraintInfo(c);
      this.constraints.set(info.id, info);
    }
    for (const f of changes.addedSprings) {
      const info = springInfo(f);
      if (info) this.springs.set(info.id, info);
    }
    // Updates (any client's new definition or name) replace what is known
    // of objects the model already holds.
    for (const b of changes.updatedBodies) {
      const info = bodyInfo(b);
      if (this.bodies.has(info.id)) this.bodies.set(info.id, info);
    }
    for (const c of changes.updatedConstraints) {
      const info = constraintInfo(c);
      if (this.constraints.has(info.id)) this.constraints.set(info.id, info);
    }
    for (const f of changes.updatedSprings) {
      const info = springInfo(f);
      if (info && this.springs.has(info.id)) this.springs.set(info.id, info);
    }
    this.revision++;
  }

  // Applies one snapshot's topology changes and returns its state as a Frame.
  apply(s: Snapshot, receivedAt: number): Frame {
    const c = s.changes;
    if (c && (c.full || c.addedBodies.length || c.removedBodies.length || c.addedConstraints.length ||
        c.removedConstraints.length || c.addedSprings.length || c.removedSprings.length ||
        c.updatedBodies.length || c.updatedConstraints.length || c.updatedSprings.length)) {
      this.applyChanges(c);
    }
    if (c?.settings) this.settings = c.settings;
    const ids: Key[] = new Array(s.bodyIndex.length);
    const slot = new Map<Key, number>();
    for (let i = 0; i < s.bodyIndex.length; i++) {
      ids[i] = key(s.bodyIndex[i], s.bodyGeneration[i]);
      slot.set(ids[i], i);
    }
    return {
      world: s.world,
      tick: Number(s.tick),
      time: s.time,
      paused: s.paused,
      halt: haltText(s.halt),
      topologyVersion: Number(s.topologyVersion),
      dimension: s.dimension || 2,
      ids,
      slot,
      position: s.position,
      velocity: s.velocity,
      angle: s.angle,
      constraints: unpackConstraintRows(s),
      diagnostics: diagnosticsOf(s),
      receivedAt,
    };
  }
}
