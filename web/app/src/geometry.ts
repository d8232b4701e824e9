// Where things are in a pose: body frames to world points and back (in 2D
// p = x + R(θ) r; 3D bodies are particles, so r is only an offset), and the
// extent of a scene for the camera.
import type { Vec3 } from "@linkage/client/proto/types_pb";
import type { Key } from "./ids";
import { Motion } from "@linkage/client/proto/body_pb";
import type { Bounds } from "./camera2d";
import { vec, type BodyInfo, type Pose, type SceneModel } from "./scene-model";

export type P3 = [number, number, number];

export function bodyPosition(pose: Pose, id: Key): P3 | null {
  const i = pose.slot.get(id);
  if (i === undefined) return null;
  const d = pose.dimension;
  return [pose.position[i * d], pose.position[i * d + 1], d === 3 ? pose.position[i * d + 2] : 0];
}

export function bodyAngle(pose: Pose, id: Key): number {
  const i = pose.slot.get(id);
  return i === undefined ? 0 : pose.angle[i] ?? 0;
}

// A point given in `id`'s frame, in world coordinates; a null id is the world.
export function toWorld(pose: Pose, id: Key | null, local: P3): P3 {
  if (id === null) return local;
  const x = bodyPosition(pose, id);
  if (!x) return local;
  const th = bodyAngle(pose, id);
  const c = Math.cos(th);
  const s = Math.sin(th);
  return [x[0] + c * local[0] - s * local[1], x[1] + s * local[0] + c * local[1], x[2] + local[2]];
}

export function toLocal(pose: Pose, id: Key | null, world: P3): P3 {
  if (id === null) return world;
  const x = bodyPosition(pose, id);
  if (!x) return world;
  const th = bodyAngle(pose, id);
  const c = Math.cos(th);
  const s = Math.sin(th);
  const dx = world[0] - x[0];
  const dy = world[1] - x[1];
  return [c * dx + s * dy, -s * dx + c * dy, world[2] - x[2]];
}

// Rotates a direction from `id`'s frame into the world's.
export function rotate(pose: Pose, id: Key | null, v: P3): P3 {
  if (id === null) return v;
  const th = bodyAngle(pose, id);
  const c = Math.cos(th);
  const s = Math.sin(th);
  return [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]];
}

// The radius a body's shape reaches from its centre (0 for a bare point).
// Rotates a world direction into `id`'s frame.
export function unrotate(pose: Pose, id: Key | null, v: P3): P3 {
  if (id === null) return v;
  const th = bodyAngle(pose, id);
  const c = Math.cos(th);
  const s = Math.sin(th);
  return [c * v[0] + s * v[1], -s * v[0] + c * v[1], v[2]];
}

export function bodyRadius(b: BodyInfo): number {
  const s = b.shape;
  switch (s.kind) {
    case "disk":
      return s.radius;
    case "box":
      return Math.hypot(s.halfWidth, s.halfHeight);
    case "polygon":
      return Math.max(0, ...s.vertices.map(([x, y]) => Math.hypot(x, y)));
    case "capsule":
      return s.halfLength + s.radius;
    case "segment":
      return Math.max(Math.hypot(...s.a), Math.hypot(...s.b));
    // Endless: framed by its position alone.
    case "plane":
    case "none":
      return 0;
  }
}

// Constraint types whose `a` end may be a world point, `anchor_a`.
const ANCHORED = new Set(["distance", "rope", "pin", "pointOnLine", "pointOnCircle", "pointOnPlane", "weld"]);

// What the camera should frame: every body, and for a mechanism hung from a
// single pivot (a world point or a fixed body: a pendulum, a chain, a bead on
// a wire) the sphere it can swing through, so a chain let go sideways still
// fits once it hangs. Mechanisms held at two or more pivots (a four-bar, a
// crank and slider) cannot swing away and are framed as they are.
export function sceneBox(model: SceneModel, pose: Pose): { min: P3; max: P3 } {
  const min: P3 = [Infinity, Infinity, Infinity];
  const max: P3 = [-Infinity, -Infinity, -Infinity];
  const extend3 = (p: P3, r: number) => {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], p[k] - r);
      max[k] = Math.max(max[k], p[k] + r);
    }
  };
  const size = (k: Key) => {
    const info = model.bodies.get(k);
    return info ? bodyRadius(info) : 0;
  };
  for (const id of pose.ids) {
    if (!model.bodies.get(id)?.cursor) extend3(bodyPosition(pose, id)!, size(id));
  }

  const fixed = (k: Key | null) => k === null || model.bodies.get(k)?.motion === Motion.FIXED;
  const links = new Map<Key, Key[]>();
  for (const c of model.constraints.values()) {
    const ends = c.bodies.filter((k): k is Key => !fixed(k));
    for (const k of ends) {
      const list = links.get(k) ?? [];
      links.set(k, list);
      for (const o of ends) if (o !== k) list.push(o);
    }
  }
  // Connected mechanisms, by the constraints between moving bodies.
  const component = new Map<Key, Key[]>();
  for (const start of links.keys()) {
    if (component.has(start)) continue;
    const members: Key[] = [];
    const queue = [start];
    while (queue.length) {
      const k = queue.pop()!;
      if (component.has(k)) continue;
      component.set(k, members);
      members.push(k);
      for (const o of links.get(k) ?? []) queue.push(o);
    }
  }
  const pivots = new Map<Key[], P3[]>();
  for (const c of model.constraints.values()) {
    const a = c.bodies[0];
    const moving = c.bodies.slice(1).find((k): k is Key => !fixed(k));
    if (a === undefined || !fixed(a) || !moving) continue;
    let pivot: P3 | null;
    if (a !== null) pivot = bodyPosition(pose, a);
    // A world anchor left unset in the message is the origin.
    else pivot = ANCHORED.has(c.def.type.case ?? "") ? vec((c.def.type.value as { anchorA?: Vec3 }).anchorA) : null;
    if (!pivot) continue;
    extend3(pivot, 0);
    const members = component.get(moving)!;
    pivots.set(members, [...(pivots.get(members) ?? []), pivot]);
  }
  for (const [members, at] of pivots) {
    if (at.length !== 1) continue;
    const pivot = at[0];
    let reach = 0;
    for (const k of members) {
      const p = bodyPosition(pose, k);
      if (p) reach = Math.max(reach, Math.hypot(p[0] - pivot[0], p[1] - pivot[1], p[2] - pivot[2]) + size(k));
    }
    extend3(pivot, reach);
  }
  if (!(max[0] >= min[0])) return { min: [-1, -1, -1], max: [1, 1, 1] };
  return { min, max };
}

export function sceneBounds(model: SceneModel, pose: Pose): Bounds {
  const { min, max } = sceneBox(model, pose);
  return { minX: min[0], minY: min[1], maxX: max[0], maxY: max[1] };
}
