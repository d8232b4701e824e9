// The mouse tools. Everything they change goes through the API, so every
// client watching the world sees it on its next frame. Two-body tools take
// two clicks: a body, then another body or empty space (the world).
import type { BodyDefInit } from "@linkage/client";
import { BodyKind, Motion } from "@linkage/client/proto/body_pb";
import type { App, ToolFeedback } from "./app";
import { BodyDrag } from "./drag";
import { bodyPosition, toLocal, toWorld, type P3 } from "./geometry";
import type { Target } from "./hit";
import { keyId, type Key } from "./ids";
import { linkDef, ref, xyz, type LinkTool, type Pick } from "./links";
import { groundDef, wallDef } from "./static-bodies";
import type { Pose } from "./scene-model";
import type { Overlay } from "./view";

export const TOOLS = ["drag", "select", "impulse", "rod", "pin", "spring", "slider", "body", "wall"] as const;
export type ToolName = (typeof TOOLS)[number];

// Δv per metre of the arrow drawn with the impulse tool.
const IMPULSE_PER_METRE = 3;
// A click this close to a body's centre attaches at the centre.
const SNAP_PX = 8;

export const HINTS: Record<ToolName, string> = {
  drag: "Drag a body: a spring pulls it to the cursor (fixed bodies follow it). Drag empty space to pan, wheel to zoom.",
  select: "Click a body, constraint or spring to select it; Delete removes it.",
  impulse: "Drag an arrow out of a body: an impulse of 3 m/s per metre, at that point.",
  rod: "Click a body, then another, or empty space for the world: a rod at their current distance.",
  pin: "Click a body where the pin goes, then the other body, or empty space to pin it to the world.",
  spring: "Click a body, then another, or empty space for the world: a spring (k, c below) at its current length.",
  slider: "Click where the line starts (a body, or empty space for the world), then the body that slides along it.",
  body: "Click empty space to add a body there (a disk in 2D, a particle in 3D); Shift-click for a fixed one.",
  wall: "Drag a line: a fixed wall (a segment) along it, for contacts (2D). Ground adds a fixed floor under the scene.",
};

// New bodies are this many pixels across at the current zoom.
const NEW_BODY_PX = 14;


type Gesture =
  | { kind: "pan"; x: number; y: number }
  | { kind: "drag"; drag: BodyDrag }
  | { kind: "impulse"; body: Key; grab: P3; from: P3; to: P3 }
  | { kind: "wall"; from: P3; to: P3 };


export class Tools implements ToolFeedback {
  tool: ToolName = "drag";
  private gesture: Gesture | null = null;
  private first: Pick | null = null;
  private cursor: P3 | null = null;

  constructor(
    private readonly app: App,
    private readonly stage: HTMLElement,
    private readonly hint: HTMLElement,
    private readonly changed: (tool: ToolName) => void,
  ) {
    // Capture, so a gesture on a body is ours before the 3D orbit controls
    // (listening on the canvas itself) see it.
    stage.addEventListener("pointerdown", (e) => this.down(e), { capture: true });
    stage.addEventListener("pointermove", (e) => this.move(e), { capture: true });
    stage.addEventListener("pointerup", (e) => this.up(e), { capture: true });
    stage.addEventListener("pointercancel", () => this.finish(), { capture: true });
    stage.addEventListener("contextmenu", (e) => e.preventDefault());
    // A drag left open would leave its cursor and spring in the world.
    window.addEventListener("pagehide", () => this.finish());
    this.setTool("drag");
  }

  setTool(tool: ToolName): void {
    this.finish();
    this.tool = tool;
    this.first = null;
    this.hint.textContent = HINTS[tool];
    this.changed(tool);
  }

  cancel(): void {
    this.first = null;
    this.hint.textContent = HINTS[this.tool];
  }

  overlays(): Overlay[] {
    const g = this.gesture;
    if (g?.kind === "impulse") return [{ kind: "arrow", from: g.from, to: g.to }];
    if (g?.kind === "wall") return [{ kind: "line", from: g.from, to: g.to }];
    if (this.first && this.cursor) return [{ kind: "line", from: this.anchorPoint(this.first), to: this.cursor }];
    return [];
  }

  highlight(): string[] {
    return this.first?.id ? [this.first.id] : [];
  }

  async deleteSelected(): Promise<void> {
    const t = this.app.selected;
    if (!t) {
      this.app.messages.info("nothing selected: pick a body, constraint or spring with the Select tool");
      return;
    }
    const world = this.app.world;
    const api = this.app.api;
    this.app.selected = null;
    if (t.kind === "body") await this.app.call("delete", () => api.body.removeBody({ world, body: ref(t.id) }));
    else if (t.kind === "constraint") await this.app.call("delete", () => api.constraint.removeConstraint({ world, id: keyId(t.id) }));
    else await this.app.call("delete", () => api.force.removeForce({ world, id: keyId(t.id) }));
  }

  private pose(): Pose | null {
    return this.app.shown ?? this.app.latest;
  }

  private local(e: PointerEvent): { x: number; y: number } {
    const r = this.app.canvas().getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private pickAt(x: number, y: number): Target | null {
    const pose = this.pose();
    const frame = this.app.latest;
    if (!pose || !frame) return null;
    return this.app.view.pick(x, y, this.app.model, pose, frame.time);
  }

  // The world point under the cursor, on the plane through `depth` in 3D.
  private worldAt(x: number, y: number, depth?: P3): P3 {
    return this.app.view.toWorld(x, y, depth);
  }

  private claim(e: PointerEvent): void {
    e.stopPropagation();
    e.preventDefault();
    this.stage.setPointerCapture(e.pointerId);
  }

  private down(e: PointerEvent): void {
    // A second button pressed mid-gesture ends the gesture; presses on the
    // message area and other overlays are theirs.
    if (this.gesture) {
      this.finish();
      return;
    }
    if (e.target !== this.app.canvas()) return;
    const { x, y } = this.local(e);
    const pose = this.pose();
    const is2d = this.app.view.dimension === 2;
    if (e.button !== 0) {
      // Middle or right button pans the 2D view; the 3D controls do their own.
      if (is2d) {
        this.claim(e);
        this.gesture = { kind: "pan", x: e.clientX, y: e.clientY };
      }
      return;
    }
    const hit = this.pickAt(x, y);
    const body = hit?.kind === "body" ? hit.id : null;
    const depth = body && pose ? bodyPosition(pose, body) ?? undefined : undefined;
    const point = this.worldAt(x, y, depth);

    switch (this.tool) {
      case "drag":
      case "impulse": {
        const info = body ? this.app.model.bodies.get(body) : undefined;
        if (info && pose) {
          this.claim(e);
          const grab = this.snap(pose, body, point);
          const local = toLocal(pose, body, grab);
          this.gesture =
            this.tool === "drag"
              ? { kind: "drag", drag: new BodyDrag(this.app, info, local, point) }
              : { kind: "impulse", body: info.id, grab: local, from: grab, to: grab };
          return;
        }
        break;
      }
      case "select":
        this.app.selected = hit;
        if (hit) {
          this.claim(e);
          return;
        }
        break;
      case "body":
        if (body) break;
        this.claim(e);
        void this.addBody(point, e.shiftKey);
        return;
      case "wall":
        if (!is2d) {
          this.app.messages.info("walls are for 2D worlds; in 3D, Ground adds a plane");
          return;
        }
        this.claim(e);
        this.gesture = { kind: "wall", from: point, to: point };
        return;
      default: {
        if (!body && !this.first && this.tool !== "slider") break;
        this.claim(e);
        this.click(pose, { id: body, point });
        return;
      }
    }
    // Nothing of ours under the cursor: the view pans (2D) or orbits (3D).
    if (is2d) {
      this.claim(e);
      this.gesture = { kind: "pan", x: e.clientX, y: e.clientY };
    }
  }

  private move(e: PointerEvent): void {
    const { x, y } = this.local(e);
    const g = this.gesture;
    if (g?.kind === "pan") {
      this.app.view.pan(e.clientX - g.x, e.clientY - g.y);
      g.x = e.clientX;
      g.y = e.clientY;
      return;
    }
    if (g?.kind === "drag") {
      const pose = this.pose();
      const depth = pose ? bodyPosition(pose, g.drag.body.id) ?? undefined : undefined;
      g.drag.move(this.worldAt(x, y, depth));
      return;
    }
    if (g?.kind === "impulse" || g?.kind === "wall") {
      g.to = this.worldAt(x, y, g.from);
      return;
    }
    this.cursor = this.worldAt(x, y, this.first ? this.anchorPoint(this.first) : undefined);
    // Hovering only when no button is down keeps the 3D orbit cheap.
    if (e.buttons === 0) {
      this.app.hover = this.pickAt(x, y);
      this.app.canvas().style.cursor = this.cursorFor(this.app.hover);
    }
  }

  private async addBody(at: P3, fixed: boolean): Promise<void> {
    const view = this.app.view;
    const a = view.toScreen(at);
    const edge = view.toWorld(a.x + NEW_BODY_PX, a.y, at);
    const r = Number(Math.max(1e-3, Math.hypot(edge[0] - at[0], edge[1] - at[1], edge[2] - at[2])).toPrecision(1));
    const flat = view.dimension === 2;
    const world = this.app.world;
    const def = {
      kind: flat ? BodyKind.RIGID : BodyKind.PARTICLE,
      motion: fixed ? Motion.FIXED : Motion.DYNAMIC,
      position: xyz(at),
      shape: { shape: { case: "disk" as const, value: { radius: r } } },
      // A particle's mass is not taken from its shape: give it one.
      mass: flat ? 0 : 1,
    };
    await this.app.call("add body", () => this.app.api.body.createBody({ world, body: def }));
  }

  private cursorFor(hover: Target | null): string {
    if (this.tool === "select") return hover ? "pointer" : "default";
    if (this.tool === "drag" || this.tool === "impulse") return hover?.kind === "body" ? "grab" : "default";
    return "crosshair";
  }

  private up(e: PointerEvent): void {
    if (this.stage.hasPointerCapture(e.pointerId)) this.stage.releasePointerCapture(e.pointerId);
    this.finish();
  }

  private finish(): void {
    const g = this.gesture;
    this.gesture = null;
    if (g?.kind === "drag") g.drag.end();
    if (g?.kind === "impulse") void this.impulse(g);
    if (g?.kind === "wall") void this.addStatic("wall", wallDef(g.from, g.to, this.metresPerPixel() * NEW_BODY_PX));
  }

  // Adds a fixed floor under the scene (a box in 2D, a plane in 3D).
  async addGround(): Promise<void> {
    const pose = this.pose();
    if (!pose) return;
    await this.addStatic("ground", groundDef(this.app.model, pose, this.app.view.dimension));
  }

  private async addStatic(what: string, body: BodyDefInit | null): Promise<void> {
    if (!body) return;
    const world = this.app.world;
    const made = await this.app.call(`add ${what}`, () => this.app.api.body.createBody({ world, body }));
    if (made && !this.app.model.settings?.contacts)
      this.app.messages.info(`${what} added; contacts are off in this world: tick contacts under Solver to make bodies collide`);
  }

  private metresPerPixel(): number {
    const view = this.app.view;
    const a = view.toWorld(0, 0);
    const b = view.toWorld(1, 0, a);
    return Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  }

  private async impulse(g: Extract<Gesture, { kind: "impulse" }>): Promise<void> {
    const info = this.app.model.bodies.get(g.body);
    if (!info) return;
    const d: P3 = [g.to[0] - g.from[0], g.to[1] - g.from[1], g.to[2] - g.from[2]];
    if (Math.hypot(...d) === 0) return;
    const k = (info.mass > 0 ? info.mass : 1) * IMPULSE_PER_METRE;
    const world = this.app.world;
    await this.app.call("impulse", () =>
      this.app.api.force.applyImpulse({
        world,
        impulse: { body: ref(g.body), impulse: xyz([d[0] * k, d[1] * k, d[2] * k]), point: xyz(info.rigid ? g.grab : [0, 0, 0]) },
      }),
    );
  }

  // A click near a body's centre (or any click on a particle) means the centre.
  private snap(pose: Pose, id: Key | null, point: P3): P3 {
    if (!id) return point;
    const c = bodyPosition(pose, id);
    if (!c) return point;
    const info = this.app.model.bodies.get(id);
    const a = this.app.view.toScreen(c);
    const b = this.app.view.toScreen(point);
    if (!info?.rigid || Math.hypot(a.x - b.x, a.y - b.y) < SNAP_PX) return c;
    return point;
  }

  // Where a first pick sits now (its body may have moved since).
  private anchorPoint(p: Pick): P3 {
    const pose = this.pose();
    return pose && p.id ? toWorld(pose, p.id, p.point) : p.point;
  }

  private click(pose: Pose | null, pick: Pick): void {
    if (!pose) return;
    const snapped: Pick = { id: pick.id, point: this.snap(pose, pick.id, pick.point) };
    if (!this.first) {
      // Kept in the body's frame, so it moves with the body until the second click.
      this.first = { id: snapped.id, point: toLocal(pose, snapped.id, snapped.point) };
      this.hint.textContent = "Now click the second body, or empty space for the world. Esc cancels.";
      return;
    }
    const first = { id: this.first.id, point: this.anchorPoint(this.first) };
    this.cancel();
    const spring = {
      stiffness: Number((document.getElementById("spring-k") as HTMLInputElement).value),
      damping: Number((document.getElementById("spring-c") as HTMLInputElement).value),
    };
    const def = linkDef(this.tool as LinkTool, pose, first, snapped, spring);
    if ("error" in def) {
      this.app.messages.info(def.error);
      return;
    }
    const world = this.app.world;
    if (def.kind === "constraint") {
      const constraint = def.def;
      void this.app.call(this.tool, () => this.app.api.constraint.addConstraint({ world, constraint }));
    } else {
      const force = def.def;
      void this.app.call(this.tool, () => this.app.api.force.addForce({ world, force }));
    }
  }
}
