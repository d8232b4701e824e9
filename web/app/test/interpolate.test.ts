import { describe, expect, it } from "vitest";
import { interpolate, lerpAngle, MAX_SPAN_SECONDS, Playback } from "../src/interpolate";
import type { Frame } from "../src/scene-model";

function frame(tick: number, ids: string[], position: number[], angle: number[], receivedAt: number, dimension = 2): Frame {
  return {
    world: "w", tick, time: tick / 60, paused: false, topologyVersion: 1, dimension, ids,
    slot: new Map(ids.map((id, i) => [id, i])), position, velocity: [], angle,
    constraints: new Map(), diagnostics: null, contacts: [], receivedAt,
  };
}

describe("lerpAngle", () => {
  it("takes the shortest arc across ±π", () => {
    expect(lerpAngle(3.0, -3.0, 0.5)).toBeCloseTo(Math.PI, 6);
    expect(lerpAngle(-3.0, 3.0, 0.5)).toBeCloseTo(-Math.PI, 6);
    expect(lerpAngle(0.1, 0.3, 0.5)).toBeCloseTo(0.2, 12);
  });
  it("ignores whole turns between the two angles", () => {
    expect(lerpAngle(0, 4 * Math.PI + 0.2, 0.5)).toBeCloseTo(0.1, 9);
  });
});

describe("interpolate", () => {
  it("blends positions and angles by the fraction", () => {
    const a = frame(1, ["0:1"], [0, 0], [0], 0);
    const b = frame(2, ["0:1"], [2, -4], [1], 0);
    const p = interpolate(a, b, 0.25);
    expect(p.position).toEqual([0.5, -1]);
    expect(p.angle[0]).toBeCloseTo(0.25, 12);
  });

  it("matches bodies by id when the order changed, and shows new bodies where they are", () => {
    const a = frame(1, ["0:1", "1:1"], [0, 0, 10, 10], [0, 0], 0);
    const b = frame(2, ["1:1", "2:1"], [20, 20, 7, 7], [0, 0], 0);
    const p = interpolate(a, b, 0.5);
    expect(p.ids).toEqual(["1:1", "2:1"]);
    expect(p.position).toEqual([15, 15, 7, 7]);
  });

  it("interpolates all three coordinates in 3D", () => {
    const a = frame(1, ["0:1"], [0, 0, 0], [0], 0, 3);
    const b = frame(2, ["0:1"], [1, 2, 3], [0], 0, 3);
    expect(interpolate(a, b, 0.5).position).toEqual([0.5, 1, 1.5]);
  });
});

describe("Playback", () => {
  it("shows the only snapshot it has", () => {
    const pb = new Playback();
    expect(pb.pose(0)).toBeNull();
    const f = frame(1, ["0:1"], [1, 1], [0], 100);
    pb.push(f);
    expect(pb.pose(100)).toBe(f);
  });

  it("slides from the previous snapshot to the newest over their simulated time", () => {
    const pb = new Playback();
    pb.push(frame(60, ["0:1"], [0, 0], [0], 1000));
    pb.push(frame(61, ["0:1"], [1, 0], [0], 1010));
    expect(pb.pose(1010)!.position[0]).toBeCloseTo(0, 12);
    expect(pb.pose(1010 + 1000 / 120)!.position[0]).toBeCloseTo(0.5, 9);
    expect(pb.pose(1100)!.position[0]).toBe(1);
    // A clock a little behind the arrival stamp stays at the start.
    expect(pb.fraction(1000)).toBe(0);
  });

  it("holds still when paused snapshots repeat a tick", () => {
    const pb = new Playback();
    pb.push(frame(61, ["0:1"], [1, 0], [0], 0));
    pb.push(frame(61, ["0:1"], [1, 0], [0], 16));
    expect(pb.fraction(16)).toBe(1);
    expect(pb.pose(16)!.position[0]).toBe(1);
  });

  it("animates a small tick gap over its length and jumps a large one", () => {
    const pb = new Playback();
    pb.push(frame(60, ["0:1"], [0, 0], [0], 0));
    pb.push(frame(63, ["0:1"], [3, 0], [0], 0));
    expect(pb.fraction(25)).toBeCloseTo(0.5, 9);
    const ticks = Math.ceil(MAX_SPAN_SECONDS * 60) + 1;
    pb.push(frame(63 + ticks, ["0:1"], [9, 0], [0], 0));
    expect(pb.fraction(0)).toBe(1);
  });

  it("jumps when time goes backwards (a reset)", () => {
    const pb = new Playback();
    pb.push(frame(600, ["0:1"], [5, 0], [0], 0));
    pb.push(frame(0, ["0:1"], [0, 0], [0], 0));
    expect(pb.pose(0)!.position[0]).toBe(0);
  });
});
