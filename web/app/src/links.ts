// What the two-click tools add: a rod, pin, spring or slider between two
// picks (a body and a world point on it, or the world), as the API wants it.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConstraintDefSchema } from "@linkage/client/proto/constraint_pb";
import type { ForceDefSchema } from "@linkage/client/proto/force_pb";
import { toLocal, unrotate, type P3 } from "./geometry";
import { keyId, type Key } from "./ids";
import type { Pose } from "./scene-model";

export type LinkTool = "rod" | "pin" | "spring" | "slider";

// A click: the body under it (null: the world) and the world point clicked.
export type Pick = { id: Key | null; point: P3 };

export type LinkDef =
  | { kind: "constraint"; def: MessageInitShape<typeof ConstraintDefSchema> }
  | { kind: "force"; def: MessageInitShape<typeof ForceDefSchema> }
  | { error: string };

export function ref(id: Key | null) {
  return id ? { ref: { case: "id" as const, value: keyId(id) } } : undefined;
}

export function xyz(p: P3) {
  return { x: p[0], y: p[1], z: p[2] };
}

// Lengths and rest lengths are left unset: the server measures them as the
// bodies are now.
export function linkDef(tool: LinkTool, pose: Pose, a: Pick, b: Pick, spring: { stiffness: number; damping: number }): LinkDef {
  if (a.id !== null && a.id === b.id) return { error: "pick two different bodies" };
  if (a.id === null && b.id === null) return { error: "pick at least one body" };
  // The world end, if any, goes where the API allows it: a constraint's `a`
  // may be empty, a spring's `b`.
  const swap = tool === "spring" ? a.id === null : b.id === null;
  const [p, q] = swap ? [b, a] : [a, b];
  const local = (k: Pick, at = k.point) => xyz(toLocal(pose, k.id, at));
  switch (tool) {
    case "rod":
      return { kind: "constraint", def: { type: { case: "distance", value: { a: ref(p.id), b: ref(q.id), anchorA: local(p), anchorB: local(q) } } } };
    case "pin": {
      // The pin sits where the first click was, in both bodies' frames.
      const value = { a: ref(p.id), b: ref(q.id), anchorA: local(p, a.point), anchorB: local(q, a.point) };
      return { kind: "constraint", def: { type: { case: "pin", value } } };
    }
    case "spring": {
      const value = { a: ref(p.id), b: ref(q.id), anchorA: local(p), anchorB: local(q), ...spring };
      return { kind: "force", def: { type: { case: "spring", value } } };
    }
    case "slider": {
      if (b.id === null) return { error: "the second click must be the body that slides" };
      // The line runs from the first pick through the second, in a's frame.
      const dir: P3 = [b.point[0] - a.point[0], b.point[1] - a.point[1], b.point[2] - a.point[2]];
      const axis: P3 = Math.hypot(...dir) > 1e-9 ? unrotate(pose, a.id, dir) : [1, 0, 0];
      const value = { a: ref(a.id), b: ref(b.id), anchorA: local(a), anchorB: local(b), axis: xyz(axis) };
      return { kind: "constraint", def: { type: { case: "pointOnLine", value } } };
    }
  }
}
