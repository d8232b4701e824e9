// Rolling columns of diagnostics for the plots: one sample per new tick, so a
// paused world (whose snapshots repeat a tick) adds nothing, and a world
// whose time jumps back (a reset, a scene loaded) starts over.
export const SERIES = ["kinetic", "potential", "total", "maxError", "stepMs"] as const;
export type Series = (typeof SERIES)[number];

export interface Sample {
  tick: number;
  time: number;
  kinetic: number;
  gravitational: number;
  spring: number;
  maxError: number;
  stepSeconds: number;
}

export class PlotBuffer {
  readonly time: number[] = [];
  readonly columns: Record<Series, number[]> = { kinetic: [], potential: [], total: [], maxError: [], stepMs: [] };
  // Samples taken since the page opened, whatever has rolled out of the window.
  total = 0;
  private lastTick = -1;

  constructor(readonly windowSeconds = 20) {}

  clear(): void {
    this.time.length = 0;
    for (const s of SERIES) this.columns[s].length = 0;
    this.lastTick = -1;
  }

  push(s: Sample): boolean {
    const last = this.time.length ? this.time[this.time.length - 1] : -Infinity;
    if (s.time < last) this.clear();
    else if (s.tick <= this.lastTick) return false;
    this.lastTick = s.tick;
    const potential = s.gravitational + s.spring;
    this.time.push(s.time);
    this.columns.kinetic.push(s.kinetic);
    this.columns.potential.push(potential);
    this.columns.total.push(s.kinetic + potential);
    this.columns.maxError.push(s.maxError);
    this.columns.stepMs.push(s.stepSeconds * 1000);
    this.total++;
    this.evict(s.time - this.windowSeconds);
    return true;
  }

  // Drops what is older than `from`, in one splice rather than one per sample.
  private evict(from: number): void {
    let n = 0;
    while (n < this.time.length && this.time[n] < from) n++;
    if (n === 0) return;
    this.time.splice(0, n);
    for (const k of SERIES) this.columns[k].splice(0, n);
  }
}
