// What each constraint type looks like, as a few primitives in world
// coordinates. The 2D and 3D renderers draw them and hit testing measures
// distances to them, so a constraint is picked exactly where it is drawn.
import { MotorKind } from "@linkage/client/proto/constraint_pb";
import type { Path } from "@linkage/client/proto/constraint_pb";
import type { Vec3 } from "@linkage/client/proto/types_pb";
import type { Key } from "./ids";
import { bodyPosition, rotate, toWorld, type P3 } from "./geometry";
import { vec, type ConstraintInfo, type Pose, type SpringInfo } from "./scene-model";

// `line` is the constraint itself; `guide` a path it keeps a point on (drawn
// faint); `spring` a zigzag.
export type Style = "line" | "dashed" | "guide" | "spring";
export type Marker = "pin" | "ring" | "weld" | "motor" | "target" | "angle";

export type Prim =
  | { kind: "segment"; a: P3; b: P3; style: Style }
  | { kind: "circle"; c: P3; r: number; style: Style }
  | { kind: "marker"; p: P3; marker: Marker };

function centre(pose: Pose, id: Key | null): P3 {
  return (id && bodyPosition(pose, id)) || [0, 0, 0];
}

function unit(v: P3, fallback: P3): P3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return n > 0 ? [v[0] / n, v[1] / n, v[2] / n] : fallback;
}

function along(p: P3, u: P3, s: number): P3 {
  return [p[0] + u[0] * s, p[1] + u[1] * s, p[2] + u[2] * s];
}

// g(t) of a prescribed trajectory, per component.
export function pathPoint(path: Path | undefined, t: number): P3 {
  const o = vec(path?.origin);
  const v = vec(path?.velocity);
  const amp = vec(path?.amplitude);
  const f = vec(path?.frequency);
  const ph = vec(path?.phase);
  return [0, 1, 2].map((k) => o[k] + v[k] * t + amp[k] * Math.sin(2 * Math.PI * f[k] * t + ph[k])) as P3;
}

// `reach` (m) is how far guide lines extend each way: enough to cross the view.
export function constraintPrims(c: ConstraintInfo, pose: Pose, time: number, reach: number): Prim[] {
  const t = c.def.type;
  const [a, b] = c.bodies;
  const ends = (v: { anchorA?: Vec3; anchorB?: Vec3 }): [P3, P3] => [
    toWorld(pose, a ?? null, vec(v.anchorA)),
    toWorld(pose, b ?? null, vec(v.anchorB)),
  ];
  switch (t.case) {
    case "distance": {
      const [pa, pb] = ends(t.value);
      return [{ kind: "segment", a: pa, b: pb, style: "line" }];
    }
    case "rope": {
      const [pa, pb] = ends(t.value);
      return [{ kind: "segment", a: pa, b: pb, style: "dashed" }];
    }
    case "pin": {
      const [pa, pb] = ends(t.value);
      return [{ kind: "segment", a: pa, b: pb, style: "line" }, { kind: "marker", p: pb, marker: "pin" }];
    }
    case "pointOnLine": {
      const [pa, pb] = ends(t.value);
      const u = unit(rotate(pose, a ?? null, vec(t.value.axis)), [1, 0, 0]);
      return [
        { kind: "segment", a: along(pa, u, -reach), b: along(pa, u, reach), style: "guide" },
        { kind: "marker", p: pb, marker: "ring" },
      ];
    }
    case "pointOnCircle": {
      const [pa, pb] = ends(t.value);
      return [
        { kind: "circle", c: pa, r: t.value.radius ?? 0, style: "guide" },
        { kind: "marker", p: pb, marker: "ring" },
      ];
    }
    case "pointOnPlane": {
      const [pa, pb] = ends(t.value);
      return [{ kind: "segment", a: pa, b: pb, style: "guide" }, { kind: "marker", p: pb, marker: "ring" }];
    }
    case "weld": {
      const [pa, pb] = ends(t.value);
      return [{ kind: "segment", a: pa, b: pb, style: "line" }, { kind: "marker", p: pb, marker: "weld" }];
    }
    case "relativeAngle": {
      const ca = centre(pose, a ?? null);
      const cb = centre(pose, b ?? null);
      return [{ kind: "segment", a: ca, b: cb, style: "dashed" }, { kind: "marker", p: cb, marker: "angle" }];
    }
    case "gear":
      return [
        { kind: "circle", c: centre(pose, a ?? null), r: t.value.radiusA ?? 1, style: "dashed" },
        { kind: "circle", c: centre(pose, b ?? null), r: t.value.radiusB ?? 1, style: "dashed" },
      ];
    case "rackAndPinion": {
      const rack = c.bodies[0] ?? null;
      const pa = toWorld(pose, rack, vec(t.value.anchor));
      const u = unit(rotate(pose, rack, vec(t.value.axis)), [1, 0, 0]);
      return [
        { kind: "segment", a: along(pa, u, -reach), b: along(pa, u, reach), style: "guide" },
        { kind: "circle", c: centre(pose, c.bodies[1] ?? null), r: t.value.radius ?? 1, style: "dashed" },
      ];
    }
    case "motor": {
      const cb = centre(pose, b ?? null);
      if (t.value.kind !== MotorKind.LINEAR) return [{ kind: "marker", p: cb, marker: "motor" }];
      const u = unit(rotate(pose, a ?? null, vec(t.value.axis)), [1, 0, 0]);
      return [{ kind: "segment", a: along(cb, u, -0.2), b: along(cb, u, 0.2), style: "dashed" }];
    }
    case "trajectory": {
      const body = c.bodies[0] ?? null;
      const p = toWorld(pose, body, vec(t.value.anchor));
      const g = pathPoint(t.value.path, time);
      return [{ kind: "segment", a: p, b: g, style: "dashed" }, { kind: "marker", p: g, marker: "target" }];
    }
    case undefined:
      return [];
  }
}

export function springPrims(s: SpringInfo, pose: Pose): Prim[] {
  return [
    {
      kind: "segment",
      a: toWorld(pose, s.a, vec(s.spring.anchorA)),
      b: toWorld(pose, s.b, vec(s.spring.anchorB)),
      style: "spring",
    },
  ];
}

function segmentDistance(p: P3, a: P3, b: P3): number {
  const ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
  const len2 = ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2;
  const s = len2 > 0 ? Math.min(1, Math.max(0, (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2)) : 0;
  return Math.hypot(ap[0] - ab[0] * s, ap[1] - ab[1] * s, ap[2] - ab[2] * s);
}

// Distance (m) from a world point to what the primitives draw; markers count
// as a disk of `markerRadius`.
export function primDistance(prims: Prim[], p: P3, markerRadius: number): number {
  let best = Infinity;
  for (const q of prims) {
    let d: number;
    if (q.kind === "segment") d = segmentDistance(p, q.a, q.b);
    else if (q.kind === "circle") d = Math.abs(Math.hypot(p[0] - q.c[0], p[1] - q.c[1], p[2] - q.c[2]) - q.r);
    else d = Math.max(0, Math.hypot(p[0] - q.p[0], p[1] - q.p[1], p[2] - q.p[2]) - markerRadius);
    best = Math.min(best, d);
  }
  return best;
}
