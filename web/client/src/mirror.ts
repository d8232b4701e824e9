// A client's picture of one world, kept from a state stream: what the world
// *is* (bodies, constraints, springs, settings) from each snapshot's change
// records, and what it is *doing* (the bodies' state, constraint rows,
// diagnostics, contacts) from its columns.
import type { Body } from "./gen/linkage/v1/body_pb.js";
import type { Constraint } from "./gen/linkage/v1/constraint_pb.js";
import type { Force } from "./gen/linkage/v1/force_pb.js";
import { ContactEventKind, type Diagnostics, type Snapshot, type TopologyChanges } from "./gen/linkage/v1/snapshot_pb.js";
import type { WorldSettings } from "./gen/linkage/v1/world_pb.js";
import { idKey, key, type IdLike, type Key } from "./ids.js";

/** One constraint's rows in a snapshot: λ and the error C, one value per row. */
export interface ConstraintRows {
  lambda: number[];
  error: number[];
}

/** A contact point of the newest snapshot (a stream with contacts). */
export interface ContactPoint {
  a: Key;
  b: Key;
  /** Where it is (m, world frame) and its normal (unit, from a to b): dimension values each. */
  point: number[];
  normal: number[];
  /** m, < 0: overlapping. */
  separation: number;
  /** N·s along the normal (≥ 0) and across it (friction, along the normal turned +90°). */
  normalImpulse: number;
  tangentImpulse: number;
}

/** Two bodies' keys as one, the lower id first as the server sends pairs: "0:1|2:1". */
export type PairKey = `${Key}|${Key}`;
export function pairKey(a: Key, b: Key): PairKey {
  return `${a}|${b}`;
}

/** A snapshot's contact points, from its packed columns. */
export function contactPoints(s: Snapshot): ContactPoint[] {
  const d = s.dimension || 2;
  const out: ContactPoint[] = [];
  for (let i = 0; i < s.contactAIndex.length; i++) {
    out.push({
      a: key(s.contactAIndex[i], s.contactAGeneration[i]),
      b: key(s.contactBIndex[i], s.contactBGeneration[i]),
      point: s.contactPoint.slice(i * d, (i + 1) * d),
      normal: s.contactNormal.slice(i * d, (i + 1) * d),
      separation: s.contactSeparation[i] ?? 0,
      normalImpulse: s.contactNormalImpulse[i] ?? 0,
      tangentImpulse: s.contactTangentImpulse[i] ?? 0,
    });
  }
  return out;
}

/**
 * What a mirror keeps for each object: the message itself by default; a
 * subclass may keep something derived from it instead (the viewer keeps
 * what it draws).
 */
export interface MirrorEntries<B, C, S> {
  body(b: Body): B;
  constraint(c: Constraint): C;
  spring(f: Force): S;
}

const messages: MirrorEntries<Body, Constraint, Force> = { body: (b) => b, constraint: (c) => c, spring: (f) => f };

/** Whether a snapshot's change records change anything. */
export function hasChanges(c: TopologyChanges | undefined): c is TopologyChanges {
  return !!c && (c.full || c.addedBodies.length > 0 || c.removedBodies.length > 0 || c.updatedBodies.length > 0 ||
    c.addedConstraints.length > 0 || c.removedConstraints.length > 0 || c.updatedConstraints.length > 0 ||
    c.addedSprings.length > 0 || c.removedSprings.length > 0 || c.updatedSprings.length > 0);
}

/** Splits a snapshot's concatenated λ and C columns by each constraint's row count. */
export function constraintRows(s: Snapshot): Map<Key, ConstraintRows> {
  const out = new Map<Key, ConstraintRows>();
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

/**
 * A mirror of one world: apply every snapshot of a stream, in order.
 *
 *     const mirror = new Mirror();
 *     for await (const s of mirror.follow(client.stream("lab"))) {
 *       console.log(mirror.tick, mirror.position(bodyNames(mirror).get("bob")!));
 *     }
 *
 * `bodies`, `constraints` and `springs` map id keys ("3:1") to the object as
 * the server last sent it (added, or updated by any client: a rename, a new
 * mass, length or stiffness); removed objects go. The state is the newest
 * snapshot's.
 */
export class Mirror<B = Body, C = Constraint, S = Force> {
  readonly bodies = new Map<Key, B>();
  readonly constraints = new Map<Key, C>();
  readonly springs = new Map<Key, S>();
  /**
   * The world's settings as the stream last sent them (its first frame, and
   * whenever any client changes them); replaced, never edited in place.
   */
  settings: WorldSettings | null = null;
  /**
   * Bumped whenever the topology or the settings change, so readers can
   * rebuild what they derive from them.
   */
  revision = 0;
  /** The newest snapshot, and each of its bodies' row in its columns. */
  snapshot: Snapshot | null = null;
  slot = new Map<Key, number>();
  ids: Key[] = [];
  /**
   * The pairs of bodies touching as of the newest snapshot, kept from the
   * stream's begin and end events (a stream with contacts): the newest
   * snapshot's contactEvents say what began and ended since the one before.
   */
  readonly touching = new Set<PairKey>();
  private rows: Map<Key, ConstraintRows> | null = null;
  private points: ContactPoint[] | null = null;
  private readonly entries: MirrorEntries<B, C, S>;

  /** Without `entries` the mirror keeps the messages (B, C and S as defaulted). */
  constructor(entries?: MirrorEntries<B, C, S>) {
    this.entries = entries ?? (messages as unknown as MirrorEntries<B, C, S>);
  }

  get world(): string {
    return this.snapshot?.world ?? "";
  }
  get tick(): number {
    return Number(this.snapshot?.tick ?? 0n);
  }
  get time(): number {
    return this.snapshot?.time ?? 0;
  }
  get paused(): boolean {
    return this.snapshot?.paused ?? false;
  }
  get dimension(): number {
    return this.snapshot?.dimension || 2;
  }
  get diagnostics(): Diagnostics | undefined {
    return this.snapshot?.diagnostics;
  }

  /** Forgets everything (a new world, or a stream started over). */
  clear(): void {
    this.bodies.clear();
    this.constraints.clear();
    this.springs.clear();
    this.settings = null;
    this.snapshot = null;
    this.slot = new Map();
    this.ids = [];
    this.rows = null;
    this.touching.clear();
    this.points = null;
    this.revision++;
  }

  /** Applies one snapshot: its change records, then its state. */
  apply(s: Snapshot): this {
    const c = s.changes;
    if (hasChanges(c)) this.applyChanges(c);
    if (c?.settings) {
      this.settings = c.settings;
      this.revision++;
    }
    this.snapshot = s;
    this.ids = new Array<Key>(s.bodyIndex.length);
    this.slot = new Map();
    for (let i = 0; i < s.bodyIndex.length; i++) {
      this.ids[i] = key(s.bodyIndex[i], s.bodyGeneration[i]);
      this.slot.set(this.ids[i], i);
    }
    this.rows = null;
    this.points = null;
    if (s.contactEventsFull) this.touching.clear();
    for (const e of s.contactEvents) {
      const pair = pairKey(idKey(e.a), idKey(e.b));
      if (e.kind === ContactEventKind.BEGIN) this.touching.add(pair);
      else this.touching.delete(pair);
    }
    return this;
  }

  /** Applies the snapshots of a stream as they pass, and yields them. */
  async *follow(snapshots: AsyncIterable<Snapshot>): AsyncGenerator<Snapshot> {
    for await (const s of snapshots) {
      this.apply(s);
      yield s;
    }
  }

  applyChanges(changes: TopologyChanges): void {
    const { entries: as } = this;
    if (changes.full) {
      this.bodies.clear();
      this.constraints.clear();
      this.springs.clear();
    }
    // Removals first: an id is never in two lists (generations are not
    // reused), but a new object may take a removed one's index.
    for (const id of changes.removedBodies) this.bodies.delete(idKey(id));
    for (const id of changes.removedConstraints) this.constraints.delete(idKey(id));
    for (const id of changes.removedSprings) this.springs.delete(idKey(id));
    for (const b of changes.addedBodies) this.bodies.set(idKey(b.id), as.body(b));
    for (const c of changes.addedConstraints) this.constraints.set(idKey(c.id), as.constraint(c));
    for (const f of changes.addedSprings) this.springs.set(idKey(f.id), as.spring(f));
    // An update (any client's new definition or name) replaces what is known
    // of an object already held.
    for (const b of changes.updatedBodies) if (this.bodies.has(idKey(b.id))) this.bodies.set(idKey(b.id), as.body(b));
    for (const c of changes.updatedConstraints)
      if (this.constraints.has(idKey(c.id))) this.constraints.set(idKey(c.id), as.constraint(c));
    for (const f of changes.updatedSprings) if (this.springs.has(idKey(f.id))) this.springs.set(idKey(f.id), as.spring(f));
    this.revision++;
  }

  /**
   * A body's position (dimension values), velocity, angle and angular
   * velocity in the newest snapshot; undefined for a body it does not hold.
   */
  position(body: IdLike): number[] | undefined {
    return this.column(body, this.snapshot?.position, this.dimension);
  }
  velocity(body: IdLike): number[] | undefined {
    return this.column(body, this.snapshot?.velocity, this.dimension);
  }
  angle(body: IdLike): number | undefined {
    return this.column(body, this.snapshot?.angle, 1)?.[0];
  }
  angularVelocity(body: IdLike): number | undefined {
    return this.column(body, this.snapshot?.angularVelocity, 1)?.[0];
  }

  /**
   * A constraint's λ and C rows in the newest snapshot (streams asked for
   * constraints only).
   */
  constraintRows(constraint: IdLike): ConstraintRows | undefined {
    if (!this.snapshot) return undefined;
    this.rows ??= constraintRows(this.snapshot);
    return this.rows.get(typeof constraint === "string" ? constraint : idKey(constraint));
  }

  /** The newest snapshot's contact points (streams asked for contacts only). */
  contacts(): ContactPoint[] {
    if (!this.snapshot) return [];
    this.points ??= contactPoints(this.snapshot);
    return this.points;
  }

  private column(body: IdLike, values: number[] | undefined, width: number): number[] | undefined {
    const i = this.slot.get(typeof body === "string" ? body : idKey(body));
    if (i === undefined || !values || values.length < (i + 1) * width) return undefined;
    return values.slice(i * width, (i + 1) * width);
  }
}

/** Body names to keys, for a mirror that keeps the messages (named bodies only). */
export function bodyNames(mirror: Mirror<Body, unknown, unknown>): Map<string, Key> {
  const out = new Map<string, Key>();
  for (const [k, b] of mirror.bodies) if (b.def?.name) out.set(b.def.name, k);
  return out;
}
