// Picking in world coordinates: which body or constraint is under a point.
// `tol` is in metres (a few pixels at the current zoom).
import { constraintPrims, primDistance, springPrims } from "./constraint-geometry";
import { bodyPosition, bodyRadius, toLocal, type P3 } from "./geometry";
import type { Key } from "./ids";
import type { BodyInfo, Pose, SceneModel } from "./scene-model";

export type Target = { kind: "body" | "constraint" | "spring"; id: Key };

// Distance (m) from a point to a body's shape, 0 inside it.
export function bodyDistance(info: BodyInfo, pose: Pose, p: P3): number {
  const c = bodyPosition(pose, info.id);
  if (!c) return Infinity;
  const s = info.shape;
  if (!info.rigid || s.kind === "none") {
    const r = s.kind === "disk" ? s.radius : 0;
    return Math.max(0, Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]) - r);
  }
  const [x, y] = toLocal(pose, info.id, p);
  switch (s.kind) {
    case "disk":
      return Math.max(0, Math.hypot(x, y) - s.radius);
    case "box":
      return Math.hypot(Math.max(0, Math.abs(x) - s.halfWidth), Math.max(0, Math.abs(y) - s.halfHeight));
    case "polygon":
      return polygonDistance(s.vertices, x, y);
    case "capsule":
      return Math.max(0, segmentDistance([-s.halfLength, 0], [s.halfLength, 0], x, y) - s.radius);
    case "segment":
      return segmentDistance(s.a, s.b, x, y);
    case "plane":
      // The solid side is away from the normal: inside is 0.
      return Math.max(0, x * s.normal[0] + y * s.normal[1]);
  }
}

function segmentDistance([ax, ay]: [number, number], [bx, by]: [number, number], x: number, y: number): number {
  const ex = bx - ax;
  const ey = by - ay;
  const len2 = ex * ex + ey * ey;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((x - ax) * ex + (y - ay) * ey) / len2)) : 0;
  return Math.hypot(x - ax - ex * t, y - ay - ey * t);
}

function polygonDistance(v: [number, number][], x: number, y: number): number {
  let inside = true;
  let best = Infinity;
  // The vertices may wind either way; inside means the same side of every edge.
  let sign = 0;
  for (let i = 0; i < v.length; i++) {
    const [ax, ay] = v[i];
    const [bx, by] = v[(i + 1) % v.length];
    const cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    if (cross !== 0) {
      if (sign === 0) sign = Math.sign(cross);
      else if (Math.sign(cross) !== sign) inside = false;
    }
    const ex = bx - ax;
    const ey = by - ay;
    const len2 = ex * ex + ey * ey;
    const t = len2 > 0 ? Math.min(1, Math.max(0, ((x - ax) * ex + (y - ay) * ey) / len2)) : 0;
    best = Math.min(best, Math.hypot(x - ax - ex * t, y - ay - ey * t));
  }
  return inside ? 0 : best;
}

// The body under `p`: of those within `tol`, the smallest, so a particle
// lying on a large box can still be picked.
export function pickBody(model: SceneModel, pose: Pose, p: P3, tol: number): Key | null {
  let best: Key | null = null;
  let bestSize = Infinity;
  let bestDistance = Infinity;
  for (const id of pose.ids) {
    const info = model.bodies.get(id);
    // Someone's drag cursor is theirs to move.
    if (!info || info.cursor) continue;
    const d = bodyDistance(info, pose, p);
    if (d > tol) continue;
    const size = bodyRadius(info);
    if (size < bestSize || (size === bestSize && d < bestDistance)) {
      best = id;
      bestSize = size;
      bestDistance = d;
    }
  }
  return best;
}

// The constraint or spring drawn nearest to `p`, within `tol`.
export function pickLink(model: SceneModel, pose: Pose, time: number, p: P3, tol: number, reach: number): Target | null {
  let best: Target | null = null;
  let bestDistance = tol;
  for (const c of model.constraints.values()) {
    const d = primDistance(constraintPrims(c, pose, time, reach), p, tol);
    if (d <= bestDistance) {
      best = { kind: "constraint", id: c.id };
      bestDistance = d;
    }
  }
  for (const s of model.springs.values()) {
    const d = primDistance(springPrims(s, pose), p, tol);
    if (d <= bestDistance) {
      best = { kind: "spring", id: s.id };
      bestDistance = d;
    }
  }
  return best;
}
