import { describe, expect, it } from "vitest";
import { PlotBuffer, type Sample } from "../src/plot-buffer";

function sample(tick: number, extra: Partial<Sample> = {}): Sample {
  return { tick, time: tick / 60, kinetic: 1, gravitational: -3, spring: 0.5, maxError: 1e-7, stepSeconds: 0.002, ...extra };
}

describe("PlotBuffer", () => {
  it("derives potential and total energy and step time in ms", () => {
    const b = new PlotBuffer();
    expect(b.push(sample(1))).toBe(true);
    expect(b.columns.potential).toEqual([-2.5]);
    expect(b.columns.total).toEqual([-1.5]);
    expect(b.columns.stepMs).toEqual([2]);
    expect(b.columns.maxError).toEqual([1e-7]);
    expect(b.time).toEqual([1 / 60]);
  });

  it("takes nothing while the tick does not advance (a paused world)", () => {
    const b = new PlotBuffer();
    b.push(sample(5));
    expect(b.push(sample(5))).toBe(false);
    expect(b.push(sample(5))).toBe(false);
    expect(b.total).toBe(1);
    expect(b.push(sample(6))).toBe(true);
    expect(b.total).toBe(2);
  });

  it("keeps a rolling window of simulated time", () => {
    const b = new PlotBuffer(1);
    for (let t = 0; t <= 180; t++) b.push(sample(t));
    expect(b.total).toBe(181);
    expect(b.time[0]).toBeGreaterThanOrEqual(2 - 1e-12);
    expect(b.time[b.time.length - 1]).toBe(3);
    expect(b.time.length).toBe(61);
    for (const k of Object.values(b.columns)) expect(k.length).toBe(61);
  });

  it("starts over when time goes back, and counts on", () => {
    const b = new PlotBuffer();
    for (let t = 100; t < 110; t++) b.push(sample(t));
    expect(b.push(sample(0))).toBe(true);
    expect(b.time).toEqual([0]);
    expect(b.total).toBe(11);
  });
});
