// Snapshots arrive at the tick rate, frames are drawn at the display's rate:
// the view shows the world one snapshot behind, sliding from the previous
// snapshot to the newest over the simulated time between them. Sliding by
// simulated rather than arrival time keeps motion even when the network
// delivers snapshots in bursts.
import type { Frame, Pose } from "./scene-model";

// Longer gaps (a paused world stepped by many ticks, a stalled stream) are
// jumps, not motion worth animating.
export const MAX_SPAN_SECONDS = 0.25;

export function lerpAngle(a: number, b: number, t: number): number {
  let d = (b - a) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  else if (d < -Math.PI) d += 2 * Math.PI;
  return a + d * t;
}

// The pose `t` of the way from `a` to `b`; bodies missing from `a` (just
// added) are shown where `b` has them.
export function interpolate(a: Pose, b: Pose, t: number): Pose {
  if (t >= 1 || a.dimension !== b.dimension) return b;
  const dim = b.dimension;
  const position = new Array<number>(b.position.length);
  const angle = new Array<number>(b.angle.length);
  const sameOrder = a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i]);
  for (let i = 0; i < b.ids.length; i++) {
    const j = sameOrder ? i : a.slot.get(b.ids[i]);
    if (j === undefined) {
      for (let k = 0; k < dim; k++) position[i * dim + k] = b.position[i * dim + k];
      angle[i] = b.angle[i];
      continue;
    }
    for (let k = 0; k < dim; k++) {
      const p = a.position[j * dim + k];
      position[i * dim + k] = p + (b.position[i * dim + k] - p) * t;
    }
    angle[i] = lerpAngle(a.angle[j], b.angle[i], t);
  }
  return { dimension: dim, ids: b.ids, slot: b.slot, position, angle };
}

export class Playback {
  previous: Frame | null = null;
  latest: Frame | null = null;

  push(frame: Frame): void {
    this.previous = this.latest;
    this.latest = frame;
  }

  reset(): void {
    this.previous = null;
    this.latest = null;
  }

  // How far along previous → latest the view is at `now` (ms, the clock of
  // Frame.receivedAt).
  fraction(now: number): number {
    const a = this.previous;
    const b = this.latest;
    if (!a || !b) return 1;
    const span = b.time - a.time;
    if (!(span > 0) || span > MAX_SPAN_SECONDS) return 1;
    return Math.min(1, Math.max(0, (now - b.receivedAt) / 1000 / span));
  }

  pose(now: number): Pose | null {
    if (!this.latest) return null;
    if (!this.previous) return this.latest;
    return interpolate(this.previous, this.latest, this.fraction(now));
  }
}
