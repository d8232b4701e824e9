// The 2D view: a canvas with a pan/zoom camera. Bodies are drawn with their
// shapes and rotation, constraints by type and coloured by force or error.
import { Motion } from "@linkage/client/proto/body_pb";
import { Camera2D } from "./camera2d";
import { largestForce, magnitude, rampCss, rampPosition } from "./colors";
import { constraintPrims, springPrims, type Prim } from "./constraint-geometry";
import type { ContactGlyph } from "./contact-glyphs";
import { bodyAngle, bodyPosition, sceneBounds, type P3 } from "./geometry";
import { pickBody, pickLink, type Target } from "./hit";
import type { BodyInfo, Pose, SceneModel, Shape } from "./scene-model";
import type { DrawState, Overlay, View } from "./view";

const PICK_PX = 6;
const MARKER_PX = 5;
// A contact's dot radius and its normal's length on screen, whatever the zoom.
const CONTACT_DOT_PX = 3;
const CONTACT_NORMAL_PX = 18;

export const PALETTE = {
  background: "#10151b",
  grid: "#1a222b",
  axis: "#2b3743",
  dynamicFill: "rgba(86, 150, 222, 0.28)",
  dynamicStroke: "#7fb6f2",
  fixedFill: "rgba(140, 148, 160, 0.35)",
  fixedStroke: "#9aa3ad",
  kinematicStroke: "#c3a1f2",
  particle: "#dde7f2",
  spring: "#c58fd8",
  selected: "#ffd166",
  hover: "#ffffff",
  overlay: "#ffd166",
};

export class View2D implements View {
  readonly dimension = 2 as const;
  readonly camera = new Camera2D();
  private readonly ctx: CanvasRenderingContext2D;
  private readonly onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const r = this.canvas.getBoundingClientRect();
    this.camera.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
  };

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.ctx = canvas.getContext("2d")!;
    canvas.addEventListener("wheel", this.onWheel, { passive: false });
  }

  dispose(): void {
    this.canvas.removeEventListener("wheel", this.onWheel);
  }

  toScreen(p: P3): { x: number; y: number } {
    return this.camera.toScreen(p[0], p[1]);
  }

  toWorld(sx: number, sy: number): P3 {
    const w = this.camera.toWorld(sx, sy);
    return [w.x, w.y, 0];
  }

  pan(dx: number, dy: number): void {
    this.camera.pan(dx, dy);
  }

  fit(model: SceneModel, pose: Pose): void {
    this.resize();
    this.camera.fit(sceneBounds(model, pose));
  }

  // Guide lines reach past the edges of the view whatever the zoom.
  private reach(): number {
    return (this.camera.width + this.camera.height) / this.camera.scale;
  }

  pick(sx: number, sy: number, model: SceneModel, pose: Pose, time: number): Target | null {
    const p = this.toWorld(sx, sy);
    const tol = PICK_PX / this.camera.scale;
    const body = pickBody(model, pose, p, tol);
    if (body) return { kind: "body", id: body };
    return pickLink(model, pose, time, p, tol, this.reach());
  }

  // Matches the backing store to the canvas's CSS size and the pixel ratio.
  private resize(): void {
    const ratio = window.devicePixelRatio || 1;
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    if (this.canvas.width !== Math.round(w * ratio) || this.canvas.height !== Math.round(h * ratio)) {
      this.canvas.width = Math.round(w * ratio);
      this.canvas.height = Math.round(h * ratio);
    }
    this.camera.resize(w, h);
    this.ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  }

  draw(s: DrawState): void {
    this.resize();
    const ctx = this.ctx;
    ctx.fillStyle = PALETTE.background;
    ctx.fillRect(0, 0, this.camera.width, this.camera.height);
    this.drawGrid();

    const reach = this.reach();
    const maxForce = largestForce(s.frame.constraints.values());
    const links: { prims: Prim[]; color: string; target: Target }[] = [];
    for (const c of s.model.constraints.values()) {
      const t = rampPosition(magnitude(s.frame.constraints.get(c.id), s.colorMode), s.colorMode, maxForce);
      links.push({ prims: constraintPrims(c, s.pose, s.frame.time, reach), color: rampCss(t), target: { kind: "constraint", id: c.id } });
    }
    for (const sp of s.model.springs.values()) {
      links.push({ prims: springPrims(sp, s.pose), color: PALETTE.spring, target: { kind: "spring", id: sp.id } });
    }

    // Guides under the bodies, the links themselves over them.
    for (const l of links) this.drawPrims(l.prims, l.color, true, null);
    for (const id of s.pose.ids) {
      const info = s.model.bodies.get(id);
      const mark = same(s.selected, "body", id) ? PALETTE.selected : same(s.hover, "body", id) || s.highlight.includes(id) ? PALETTE.hover : null;
      this.drawBody(info, s.pose, id, mark);
    }
    for (const l of links) {
      const mark = same(s.selected, l.target.kind, l.target.id) ? PALETTE.selected : same(s.hover, l.target.kind, l.target.id) ? PALETTE.hover : null;
      this.drawPrims(l.prims, l.color, false, mark);
    }
    this.drawContacts(s.contacts);
    for (const o of s.overlays) this.drawOverlay(o);
  }

  private drawContacts(contacts: ContactGlyph[]): void {
    const ctx = this.ctx;
    ctx.lineWidth = 2;
    for (const g of contacts) {
      const p = this.toScreen(g.point);
      const color = rampCss(g.t);
      ctx.beginPath();
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(p.x + g.normal[0] * CONTACT_NORMAL_PX, p.y - g.normal[1] * CONTACT_NORMAL_PX);
      ctx.strokeStyle = color;
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(p.x, p.y, CONTACT_DOT_PX, 0, 2 * Math.PI);
      ctx.fillStyle = color;
      ctx.fill();
    }
  }

  private drawGrid(): void {
    const ctx = this.ctx;
    const cam = this.camera;
    // A grid step of 1, 2 or 5 × 10ⁿ m that lands 40–100 px apart.
    const raw = 60 / cam.scale;
    const pow = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= raw) ?? 10 * pow;
    const tl = cam.toWorld(0, 0);
    const br = cam.toWorld(cam.width, cam.height);
    ctx.lineWidth = 1;
    ctx.strokeStyle = PALETTE.grid;
    ctx.beginPath();
    for (let x = Math.ceil(tl.x / step) * step; x <= br.x; x += step) {
      const sx = Math.round(cam.toScreen(x, 0).x) + 0.5;
      ctx.moveTo(sx, 0);
      ctx.lineTo(sx, cam.height);
    }
    for (let y = Math.ceil(br.y / step) * step; y <= tl.y; y += step) {
      const sy = Math.round(cam.toScreen(0, y).y) + 0.5;
      ctx.moveTo(0, sy);
      ctx.lineTo(cam.width, sy);
    }
    ctx.stroke();
    const o = cam.toScreen(0, 0);
    ctx.strokeStyle = PALETTE.axis;
    ctx.beginPath();
    ctx.moveTo(0, Math.round(o.y) + 0.5);
    ctx.lineTo(cam.width, Math.round(o.y) + 0.5);
    ctx.moveTo(Math.round(o.x) + 0.5, 0);
    ctx.lineTo(Math.round(o.x) + 0.5, cam.height);
    ctx.stroke();
  }

  private drawBody(info: BodyInfo | undefined, pose: Pose, id: string, mark: string | null): void {
    const ctx = this.ctx;
    const p = bodyPosition(pose, id)!;
    const c = this.camera.toScreen(p[0], p[1]);
    const scale = this.camera.scale;
    const motion = info?.motion ?? Motion.DYNAMIC;
    const fixed = motion === Motion.FIXED;
    const shape = info?.shape ?? { kind: "none" as const };

    if (info?.cursor) {
      // Another viewer's (or this one's) drag cursor: a hollow crosshair.
      ctx.beginPath();
      ctx.arc(c.x, c.y, 6, 0, 2 * Math.PI);
      ctx.moveTo(c.x - 10, c.y);
      ctx.lineTo(c.x + 10, c.y);
      ctx.moveTo(c.x, c.y - 10);
      ctx.lineTo(c.x, c.y + 10);
      this.outline(PALETTE.spring, 1.5);
      return;
    }
    if (!info?.rigid || shape.kind === "none") {
      const r = Math.max(3, shape.kind === "disk" ? shape.radius * scale : 0);
      ctx.beginPath();
      ctx.arc(c.x, c.y, r, 0, 2 * Math.PI);
      ctx.fillStyle = fixed ? PALETTE.fixedStroke : PALETTE.particle;
      ctx.fill();
      if (mark) this.outline(mark, 2);
      return;
    }

    ctx.save();
    ctx.translate(c.x, c.y);
    // Screen y points down, so the world's counter-clockwise angle is negated.
    ctx.rotate(-bodyAngle(pose, id));
    // A segment has no inside: it is drawn as a thick line.
    const line = shape.kind === "segment";
    shapePath(ctx, shape, scale, 0, this.reach() * scale);
    if (!line) {
      ctx.fillStyle = fixed ? PALETTE.fixedFill : PALETTE.dynamicFill;
      ctx.fill();
    }
    ctx.lineWidth = line ? 3 : 1.5;
    ctx.strokeStyle = fixed ? PALETTE.fixedStroke : motion === Motion.KINEMATIC ? PALETTE.kinematicStroke : PALETTE.dynamicStroke;
    if (motion === Motion.KINEMATIC) ctx.setLineDash([5, 3]);
    if (shape.kind === "plane") {
      // The surface alone, not the far edges of the half-space drawn.
      ctx.beginPath();
      const [tx, ty] = [-shape.normal[1], shape.normal[0]];
      const far = this.reach() * scale;
      ctx.moveTo(-tx * far, ty * far);
      ctx.lineTo(tx * far, -ty * far);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    if (shape.kind === "disk") {
      // A spoke, so a turning disk is seen to turn.
      ctx.beginPath();
      ctx.moveTo(0, 0);
      ctx.lineTo(shape.radius * scale, 0);
      ctx.stroke();
    }
    if (mark) {
      shapePath(ctx, shape, scale, 2, this.reach() * scale);
      this.outline(mark, line ? 6 : 2);
    }
    ctx.restore();
  }

  private outline(color: string, width: number): void {
    this.ctx.lineWidth = width;
    this.ctx.strokeStyle = color;
    this.ctx.stroke();
  }

  private drawPrims(prims: Prim[], color: string, guides: boolean, mark: string | null): void {
    const ctx = this.ctx;
    for (const q of prims) {
      const isGuide = q.kind !== "marker" && q.style === "guide";
      if (isGuide !== guides) continue;
      ctx.beginPath();
      if (q.kind === "segment") {
        const a = this.toScreen(q.a);
        const b = this.toScreen(q.b);
        if (q.style === "spring") zigzag(ctx, a, b);
        else {
          ctx.moveTo(a.x, a.y);
          ctx.lineTo(b.x, b.y);
        }
      } else if (q.kind === "circle") {
        const c = this.toScreen(q.c);
        ctx.arc(c.x, c.y, q.r * this.camera.scale, 0, 2 * Math.PI);
      } else {
        this.marker(q.p, q.marker, color, mark);
        continue;
      }
      if (mark) {
        ctx.setLineDash([]);
        this.outline(mark, 6);
      }
      ctx.setLineDash(q.style === "dashed" || q.style === "guide" ? [6, 4] : []);
      ctx.globalAlpha = isGuide ? 0.55 : 1;
      this.outline(color, q.kind === "segment" && q.style === "line" ? 2.5 : 1.5);
      ctx.globalAlpha = 1;
      ctx.setLineDash([]);
    }
  }

  private marker(p: P3, kind: string, color: string, mark: string | null): void {
    const ctx = this.ctx;
    const c = this.toScreen(p);
    const r = MARKER_PX;
    ctx.beginPath();
    if (kind === "weld") ctx.rect(c.x - r, c.y - r, 2 * r, 2 * r);
    else if (kind === "target") {
      ctx.moveTo(c.x - r - 2, c.y);
      ctx.lineTo(c.x + r + 2, c.y);
      ctx.moveTo(c.x, c.y - r - 2);
      ctx.lineTo(c.x, c.y + r + 2);
    } else if (kind === "motor") ctx.arc(c.x, c.y, r + 6, -0.3, 1.5 * Math.PI);
    else if (kind === "angle") ctx.arc(c.x, c.y, r + 3, -Math.PI / 4, Math.PI / 4);
    else ctx.arc(c.x, c.y, kind === "ring" ? r - 1 : r, 0, 2 * Math.PI);
    if (kind === "pin") {
      ctx.fillStyle = PALETTE.background;
      ctx.fill();
    }
    if (mark) this.outline(mark, 5);
    this.outline(color, 2);
  }

  private drawOverlay(o: Overlay): void {
    const ctx = this.ctx;
    const a = this.toScreen(o.from);
    const b = this.toScreen(o.to);
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    if (o.kind === "arrow") {
      const ang = Math.atan2(b.y - a.y, b.x - a.x);
      for (const s of [-1, 1]) {
        ctx.moveTo(b.x, b.y);
        ctx.lineTo(b.x - 12 * Math.cos(ang + s * 0.45), b.y - 12 * Math.sin(ang + s * 0.45));
      }
    }
    ctx.setLineDash(o.kind === "line" ? [4, 4] : []);
    this.outline(PALETTE.overlay, 2);
    ctx.setLineDash([]);
  }
}

// A rigid body's outline in its own frame, in pixels (y up made y down),
// `grow` px larger; a plane's half-space `far` px deep and wide.
function shapePath(ctx: CanvasRenderingContext2D, shape: Shape, scale: number, grow: number, far: number): void {
  ctx.beginPath();
  switch (shape.kind) {
    case "disk":
      ctx.arc(0, 0, shape.radius * scale + grow, 0, 2 * Math.PI);
      break;
    case "box": {
      const w = shape.halfWidth * scale + grow;
      const h = shape.halfHeight * scale + grow;
      ctx.rect(-w, -h, 2 * w, 2 * h);
      break;
    }
    case "polygon":
      shape.vertices.forEach(([x, y], i) => (i ? ctx.lineTo(x * scale, -y * scale) : ctx.moveTo(x * scale, -y * scale)));
      ctx.closePath();
      break;
    case "capsule": {
      const l = shape.halfLength * scale;
      const r = shape.radius * scale + grow;
      ctx.moveTo(-l, -r);
      ctx.lineTo(l, -r);
      ctx.arc(l, 0, r, -Math.PI / 2, Math.PI / 2);
      ctx.lineTo(-l, r);
      ctx.arc(-l, 0, r, Math.PI / 2, (3 * Math.PI) / 2);
      ctx.closePath();
      break;
    }
    case "segment":
      ctx.moveTo(shape.a[0] * scale, -shape.a[1] * scale);
      ctx.lineTo(shape.b[0] * scale, -shape.b[1] * scale);
      break;
    case "plane": {
      // The surface through the centre, and the solid side away from the normal.
      const [nx, ny] = shape.normal;
      const [tx, ty] = [-ny, nx];
      ctx.moveTo(-tx * far, ty * far);
      ctx.lineTo(tx * far, -ty * far);
      ctx.lineTo(tx * far - nx * far, -ty * far + ny * far);
      ctx.lineTo(-tx * far - nx * far, ty * far + ny * far);
      ctx.closePath();
      break;
    }
    case "none":
      break;
  }
}

function same(t: Target | null, kind: string, id: string): boolean {
  return t !== null && t.kind === kind && t.id === id;
}

// A spring's coils, eight of them whatever its length.
function zigzag(ctx: CanvasRenderingContext2D, a: { x: number; y: number }, b: { x: number; y: number }): void {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy);
  ctx.moveTo(a.x, a.y);
  if (len < 1) return;
  const nx = -dy / len;
  const ny = dx / len;
  const coils = 16;
  const amp = Math.min(6, len / 6);
  for (let i = 1; i < coils; i++) {
    const t = 0.1 + (0.8 * i) / coils;
    const side = i % 2 ? 1 : -1;
    ctx.lineTo(a.x + dx * t + nx * amp * side, a.y + dy * t + ny * amp * side);
  }
  ctx.lineTo(b.x, b.y);
}
