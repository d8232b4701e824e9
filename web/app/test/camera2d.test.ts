import { describe, expect, it } from "vitest";
import { Camera2D, emptyBounds, extend } from "../src/camera2d";

function camera(w = 800, h = 600): Camera2D {
  const c = new Camera2D();
  c.resize(w, h);
  return c;
}

describe("Camera2D", () => {
  it("maps world to screen and back, y up", () => {
    const c = camera();
    c.cx = 1;
    c.cy = -2;
    c.scale = 50;
    expect(c.toScreen(1, -2)).toEqual({ x: 400, y: 300 });
    expect(c.toScreen(2, -1)).toEqual({ x: 450, y: 250 });
    for (const [x, y] of [[0, 0], [-3.5, 7.25], [1e3, -1e-3]]) {
      const s = c.toScreen(x, y);
      const w = c.toWorld(s.x, s.y);
      expect(w.x).toBeCloseTo(x, 9);
      expect(w.y).toBeCloseTo(y, 9);
    }
  });

  it("fits a scene's bounds inside the view with a margin", () => {
    const c = camera();
    const b = emptyBounds();
    extend(b, -7, -3);
    extend(b, 5, 2, 0.5);
    c.fit(b, 0.1);
    for (const [x, y] of [[-7, -3], [5.5, 2.5], [-7, 2.5]]) {
      const s = c.toScreen(x, y);
      expect(s.x).toBeGreaterThanOrEqual(80 - 1e-9);
      expect(s.x).toBeLessThanOrEqual(720 + 1e-9);
      expect(s.y).toBeGreaterThanOrEqual(60 - 1e-9);
      expect(s.y).toBeLessThanOrEqual(540 + 1e-9);
    }
    // The wider extent (12.5 m over 640 px) sets the scale.
    expect(c.scale).toBeCloseTo(640 / 12.5, 9);
    expect(c.toScreen(-0.75, -0.25)).toEqual({ x: 400, y: 300 });
  });

  it("fits an empty scene to a default view and a single point without dividing by zero", () => {
    const c = camera();
    c.fit(emptyBounds());
    expect(c.scale).toBe(200);
    const b = emptyBounds();
    extend(b, 3, 4);
    c.fit(b);
    expect(Number.isFinite(c.scale)).toBe(true);
    expect(c.toScreen(3, 4)).toEqual({ x: 400, y: 300 });
  });

  it("zooms about the cursor and pans with the mouse", () => {
    const c = camera();
    const before = c.toWorld(123, 456);
    c.zoomAt(123, 456, 2.5);
    const after = c.toWorld(123, 456);
    expect(after.x).toBeCloseTo(before.x, 9);
    expect(after.y).toBeCloseTo(before.y, 9);
    expect(c.scale).toBe(250);
    const p = c.toScreen(1, 1);
    c.pan(10, -20);
    expect(c.toScreen(1, 1)).toEqual({ x: p.x + 10, y: p.y - 20 });
  });
});
