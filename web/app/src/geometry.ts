// Where things are in a pose: body frames to world points and back (in 2D
// p = x + R(θ) r; 3D bodies are particles, so r is only an offset), and the
// extent of a scene for the camera.
import type { Vec3 } from "@linkage/proto/types_pb";
import type { Key } from "./ids";
import { emptyBounds, extend, type Bounds } from "./camera2d";
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
    case "none":
      return 0;
  }
}

// Constraint types whose `a` end may be a world point, `anchor_a`.
const ANCHORED = new Set(["distance", "rope", "pin", "pointOnLine", "pointOnCircle", "pointOnPlane", "weld"]);

// What the camera should frame: every body, and the circle each mechanism
// hung from a world point can swing through (a chain let go horizontally
// ends up hanging below its pivot).
export function sceneBounds(model: SceneModel, pose: Pose): Bounds {
  const b = emptyBounds();
  for (const id of pose.ids) {
    const p = bodyPosition(pose, id)!;
    const info = model.bodies.get(id);
    if (!info?.cursor) extend(b, p[0], p[1], info ? bodyRadius(info) : 0);
  }
  const links = new Map<Key, Key[]>();
  for (const c of model.constraints.values()) {
    const ends = c.bodies.filter((k): k is Key => k !== null);
    for (const k of ends) links.set(k, [...(links.get(k) ?? []), ...ends.filter((o) => o !== k)]);
  }
  for (const c of model.constraints.values()) {
    const t = c.def.type;
    if (c.bodies[0] !== null || !ANCHORED.has(t.case ?? "")) continue;
    // Unset in the message when it is the origin.
    const anchor = vec((t.value as { anchorA?: Vec3 }).anchorA);
    let reach = 0;
    const seen = new Set<Key>();
    const queue = c.bodies.filter((k): k is Key => k !== null);
    while (queue.length) {
      const k = queue.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      const p = bodyPosition(pose, k);
      const info = model.bodies.get(k);
      if (p) reach = Math.max(reach, Math.hypot(p[0] - anchor[0], p[1] - anchor[1]) + (info ? bodyRadius(info) : 0));
      queue.push(...(links.get(k) ?? []));
    }
    extend(b, anchor[0], anchor[1], reach);
  }
  return b;
}

// The axis-aligned box around every body, in three dimensions.
export function sceneBounds3(model: SceneModel, pose: Pose): { min: P3; max: P3 } {
  const min: P3 = [Infinity, Infinity, Infinity];
  const max: P3 = [-Infinity, -Infinity, -Infinity];
  for (const id of pose.ids) {
    const p = bodyPosition(pose, id)!;
    const info = model.bodies.get(id);
    const r = info ? bodyRadius(info) : 0;
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], p[k] - r);
      max[k] = Math.max(max[k], p[k] + r);
    }
  }
  if (!(max[0] >= min[0])) return { min: [-1, -1, -1], max: [1, 1, 1] };
  return { min, max };
}
