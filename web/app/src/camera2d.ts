// The 2D view's world ↔ screen map: a centre in world metres, a scale in CSS
// pixels per metre, y up on the world side and down on the screen side.
export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function emptyBounds(): Bounds {
  return { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
}

export function extend(b: Bounds, x: number, y: number, r = 0): void {
  b.minX = Math.min(b.minX, x - r);
  b.minY = Math.min(b.minY, y - r);
  b.maxX = Math.max(b.maxX, x + r);
  b.maxY = Math.max(b.maxY, y + r);
}

export const MIN_SCALE = 1e-3;
export const MAX_SCALE = 1e6;

export class Camera2D {
  cx = 0;
  cy = 0;
  scale = 100;
  width = 1;
  height = 1;

  resize(width: number, height: number): void {
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
  }

  toScreen(x: number, y: number): { x: number; y: number } {
    return { x: this.width / 2 + (x - this.cx) * this.scale, y: this.height / 2 - (y - this.cy) * this.scale };
  }

  toWorld(sx: number, sy: number): { x: number; y: number } {
    return { x: this.cx + (sx - this.width / 2) / this.scale, y: this.cy - (sy - this.height / 2) / this.scale };
  }

  // Frames `b` with `margin` (a fraction of the view) on every side; a point
  // or an empty scene keeps a 4 m wide view.
  fit(b: Bounds, margin = 0.08): void {
    if (!(b.maxX >= b.minX && b.maxY >= b.minY)) {
      this.cx = 0;
      this.cy = 0;
      this.scale = this.width / 4;
      return;
    }
    const w = Math.max(b.maxX - b.minX, 0.5);
    const h = Math.max(b.maxY - b.minY, 0.5);
    const usable = 1 - 2 * margin;
    this.cx = (b.minX + b.maxX) / 2;
    this.cy = (b.minY + b.maxY) / 2;
    this.scale = clampScale(Math.min((this.width * usable) / w, (this.height * usable) / h));
  }

  // Zooms by `factor` keeping the world point under the screen point fixed.
  zoomAt(sx: number, sy: number, factor: number): void {
    const before = this.toWorld(sx, sy);
    this.scale = clampScale(this.scale * factor);
    const after = this.toWorld(sx, sy);
    this.cx += before.x - after.x;
    this.cy += before.y - after.y;
  }

  // Moves the view by a screen displacement (the world follows the mouse).
  pan(dx: number, dy: number): void {
    this.cx -= dx / this.scale;
    this.cy += dy / this.scale;
  }
}

function clampScale(s: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
}
