// Contact points as the views draw them: where each is, its normal (unit,
// from body a to body b), and where its normal impulse sits on the colour
// ramp, relative to the largest of the frame (a resting stack's bottom
// contacts red, a speculative contact that has not pushed yet at the low
// end). Pure, so it is unit-tested.
import type { ContactPoint } from "@linkage/client";
import type { P3 } from "./geometry";

export interface ContactGlyph {
  point: P3;
  normal: P3;
  // 0…1 on the ramp.
  t: number;
}

function p3(v: number[]): P3 {
  return [v[0] ?? 0, v[1] ?? 0, v[2] ?? 0];
}

export function contactGlyphs(points: readonly ContactPoint[]): ContactGlyph[] {
  let largest = 0;
  for (const c of points) largest = Math.max(largest, c.normalImpulse);
  return points.map((c) => ({
    point: p3(c.point),
    normal: p3(c.normal),
    t: largest > 0 ? Math.min(1, Math.max(0, c.normalImpulse / largest)) : 0,
  }));
}
