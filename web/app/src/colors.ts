// Constraint colours: by force (|λ| relative to the largest in the frame) or
// by error (max |C| on a log scale), through one ramp the legend shows too.
import type { RowValues } from "./scene-model";

export type ColorMode = "force" | "error";

export const RAMP = ["#2bb3a3", "#e6c229", "#e0523a"];

// Errors at or below this read as exact; at or above the top, as broken.
export const ERROR_FLOOR = 1e-9;
export const ERROR_CEIL = 1e-2;

export function magnitude(rows: RowValues | undefined, mode: ColorMode): number {
  if (!rows) return 0;
  if (mode === "error") return rows.error.reduce((m, e) => Math.max(m, Math.abs(e)), 0);
  return Math.sqrt(rows.lambda.reduce((s, l) => s + l * l, 0));
}

// The largest force in a frame: what "force" colours are relative to. A loop,
// not Math.max(...), which would overflow the stack on a big world.
export function largestForce(rows: Iterable<RowValues>): number {
  let max = 0;
  for (const r of rows) max = Math.max(max, magnitude(r, "force"));
  return max;
}

// Where a magnitude sits on the ramp, 0…1. `max` is the frame's largest force.
export function rampPosition(value: number, mode: ColorMode, max: number): number {
  if (mode === "error") {
    if (!(value > ERROR_FLOOR)) return 0;
    const t = (Math.log10(value) - Math.log10(ERROR_FLOOR)) / (Math.log10(ERROR_CEIL) - Math.log10(ERROR_FLOOR));
    return Math.min(1, t);
  }
  return max > 0 ? Math.min(1, value / max) : 0;
}

function rgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const STOPS = RAMP.map(rgb);

export function rampColor(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = STOPS[i];
  const b = STOPS[i + 1];
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

export function rampCss(t: number, alpha = 1): string {
  const [r, g, b] = rampColor(t);
  return `rgba(${r | 0}, ${g | 0}, ${b | 0}, ${alpha})`;
}
