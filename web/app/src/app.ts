// The viewer's state and its heartbeat: one world's stream feeds the scene
// model and the playback, and every animation frame draws the interpolated
// pose with whichever view (2D canvas or 3D) the world's dimension needs.
import type { WorldSettings } from "@linkage/client/proto/world_pb";
import type { Client } from "@linkage/client";
import type { ColorMode } from "./colors";
import { contactGlyphs } from "./contact-glyphs";
import { bodyPosition } from "./geometry";
import type { Target } from "./hit";
import { Playback } from "./interpolate";
import type { Messages } from "./messages";
import type { Plots } from "./plots";
import { SceneModel, type Frame, type Pose } from "./scene-model";
import { WorldStream, type StreamState } from "./stream";
import type { Overlay, View } from "./view";
import { View2D } from "./view2d";
import type { View3D } from "./view3d";

// What the active tool adds to the picture.
export interface ToolFeedback {
  overlays(): Overlay[];
  highlight(): string[];
}

export interface AppElements {
  stage: HTMLElement;
  status: HTMLElement;
  conn: HTMLElement;
}

export class App {
  readonly model = new SceneModel();
  readonly playback = new Playback();
  view: View;
  world = "";
  selected: Target | null = null;
  hover: Target | null = null;
  colorMode: ColorMode = "force";
  // Contact points and normals drawn (their stream asked for only while on).
  showContacts = false;
  tool: ToolFeedback = { overlays: () => [], highlight: () => [] };
  // The pose last drawn: what the user sees and points at.
  shown: Pose | null = null;
  // Listeners for a new world opened (controls refresh their fields).
  readonly worldListeners: ((world: string) => void)[] = [];
  // Listeners for the world's settings, from the stream: this client's
  // changes and everyone else's, within a frame.
  readonly settingsListeners: ((settings: WorldSettings) => void)[] = [];
  // Listeners for any change of the world's bodies, constraints or springs
  // (or settings), once the frame that brought it is the latest.
  readonly topologyListeners: (() => void)[] = [];
  private stream: WorldStream | null = null;
  private needsFit = true;
  // The view was last framed on a world without bodies.
  private framedEmpty = false;
  private statusAt = 0;
  private view3d: Promise<typeof View3D> | null = null;
  private View3D: typeof View3D | null = null;

  constructor(
    readonly api: Client,
    readonly messages: Messages,
    readonly plots: Plots,
    private readonly el: AppElements,
  ) {
    this.view = new View2D(this.canvas());
    requestAnimationFrame(this.animate);
  }

  get latest(): Frame | null {
    return this.playback.latest;
  }

  // A snapshot is in, and the view that draws it (and maps the hook's
  // toScreen) is the one for its dimension.
  get ready(): boolean {
    const f = this.playback.latest;
    return f !== null && f.dimension === this.view.dimension;
  }

  canvas(): HTMLCanvasElement {
    return this.el.stage.querySelector<HTMLCanvasElement>("[data-testid=view]")!;
  }

  // Reports a failed call in the message area instead of throwing.
  async call<T>(what: string, f: () => Promise<T>): Promise<T | undefined> {
    try {
      return await f();
    } catch (err) {
      this.messages.error(err, what);
      return undefined;
    }
  }

  // Opens a world (creating it if it does not exist) and streams it; `before`
  // runs first (a scene to load), so the first frame already shows its result.
  async open(world: string, before?: () => Promise<unknown>): Promise<boolean> {
    // Listing rather than GetWorld: a missing world is expected here, not an
    // error for the browser to log.
    const list = await this.call("listing worlds", () => this.api.world.listWorlds({}));
    if (!list) return false;
    if (!list.worlds.some((w) => w.name === world)) {
      const made = await this.call(`creating ${world}`, () =>
        this.api.world.createWorld({ name: world }),
      );
      if (!made) return false;
    }
    await before?.();
    this.switchTo(world);
    return true;
  }

  private switchTo(world: string): void {
    this.stream?.stop();
    this.world = world;
    this.selected = null;
    this.hover = null;
    this.model.clear();
    this.playback.reset();
    this.plots.clear();
    this.needsFit = true;
    const url = new URL(window.location.href);
    url.searchParams.set("world", world);
    url.searchParams.delete("scene");
    window.history.replaceState(null, "", url);
    for (const f of this.worldListeners) f(world);
    this.openStream(world);
  }

  // Shows or hides the contacts: the stream is opened again, asking for them
  // or not (its first frame holds the whole topology, which the model takes
  // in stride), so a viewer that does not show them does not pay for them.
  setContacts(on: boolean): void {
    if (on === this.showContacts) return;
    this.showContacts = on;
    if (!this.world) return;
    this.stream?.stop();
    this.openStream(this.world);
  }

  private openStream(world: string): void {
    this.stream = new WorldStream(this.api, world, {
      snapshot: (s) => {
        if (s.world !== this.world) return;
        const settings = this.model.settings;
        const revision = this.model.revision;
        const frame = this.model.receive(s, performance.now());
        this.playback.push(frame);
        if (this.model.settings && this.model.settings !== settings)
          for (const f of this.settingsListeners) f(this.model.settings);
        if (this.model.revision !== revision) for (const f of this.topologyListeners) f();
        this.plots.push(frame);
      },
      state: (state, detail) => this.streamState(state, detail),
      gone: (name) => {
        this.messages.info(`world ${name} no longer exists; showing default`);
        void this.open("default");
      },
    }, this.showContacts);
  }

  private streamState(state: StreamState, detail?: string): void {
    // Said once when a live stream drops; the indicator shows the retries.
    if (state === "retrying" && detail && this.el.conn.classList.contains("live")) {
      this.messages.info(`stream: ${detail}; reconnecting`);
    }
    this.el.conn.textContent = state === "retrying" ? "reconnecting…" : state;
    this.el.conn.className = `conn ${state}`;
  }

  // The next frame refits the camera to the scene (a new scene, or F).
  refit(): void {
    this.needsFit = true;
  }

  // Swaps in the view a world's dimension needs; three.js is fetched only
  // when a 3D world is first shown, so 2D viewing does not pay for it.
  private ensureView(dimension: number): boolean {
    if (dimension === this.view.dimension) return true;
    if (dimension === 3 && !this.view3d) {
      this.view3d = import("./view3d").then((m) => m.View3D);
      this.view3d.catch((err) => this.messages.error(err, "loading the 3D view"));
    }
    if (dimension === 3 && !this.View3D) {
      void this.view3d!.then((V) => (this.View3D = V));
      return false;
    }
    this.view.dispose();
    // A canvas keeps the first kind of context it was asked for, so the 2D
    // and WebGL views each get a fresh one under the same test id.
    const old = this.canvas();
    const fresh = document.createElement("canvas");
    fresh.id = old.id;
    fresh.dataset.testid = "view";
    old.replaceWith(fresh);
    this.view = dimension === 3 ? new this.View3D!(fresh) : new View2D(fresh);
    this.needsFit = true;
    return true;
  }

  private animate = (): void => {
    requestAnimationFrame(this.animate);
    // A frame that fails to draw is reported (once, then counted) rather than
    // thrown sixty times a second.
    try {
      this.drawFrame();
    } catch (err) {
      this.messages.error(err, "drawing");
    }
  };

  private drawFrame(): void {
    const frame = this.playback.latest;
    if (!frame) return;
    if (!this.ensureView(frame.dimension)) return;
    const pose = this.playback.pose(performance.now())!;
    // An empty world is framed at once too, so a body the user adds appears
    // where they clicked. Bodies another client puts in it are framed when
    // they come, if any of them is out of the picture.
    if (this.needsFit || (this.framedEmpty && this.hasBodies() && !this.allShown(pose))) {
      this.view.fit(this.model, pose);
      this.needsFit = false;
      this.framedEmpty = !this.hasBodies();
    } else if (this.framedEmpty && this.hasBodies()) {
      this.framedEmpty = false;
    }
    if (this.selected && !this.exists(this.selected)) this.selected = null;
    if (this.hover && !this.exists(this.hover)) this.hover = null;
    this.shown = pose;
    this.view.draw({
      model: this.model,
      pose,
      frame,
      colorMode: this.colorMode,
      selected: this.selected,
      hover: this.hover,
      highlight: this.tool.highlight(),
      overlays: this.tool.overlays(),
      contacts: this.showContacts ? contactGlyphs(frame.contacts) : [],
    });
    this.plots.refresh();
    const now = performance.now();
    if (now - this.statusAt > 200) {
      this.statusAt = now;
      const selected = this.selectionText(frame);
      this.el.status.textContent = this.statusText(frame) + (selected ? "\n" + selected : "");
    }
  }

  // Bodies other than drag cursors (which come and go with the mouse).
  private hasBodies(): boolean {
    for (const b of this.model.bodies.values()) if (!b.cursor) return true;
    return false;
  }

  // Whether every body is inside the canvas.
  private allShown(pose: Pose): boolean {
    const c = this.canvas();
    return pose.ids.every((id) => {
      const p = this.view.toScreen(bodyPosition(pose, id)!);
      return p.x >= 0 && p.y >= 0 && p.x <= c.clientWidth && p.y <= c.clientHeight;
    });
  }

  private exists(t: Target): boolean {
    const m = this.model;
    return (t.kind === "body" ? m.bodies : t.kind === "constraint" ? m.constraints : m.springs).has(t.id);
  }

  // What the selection is, and for a constraint its current λ and error.
  private selectionText(f: Frame): string {
    const t = this.selected;
    if (!t) return "";
    const m = this.model;
    if (t.kind === "body") {
      const b = m.bodies.get(t.id);
      return b ? `selected body ${t.id}${b.name ? ` "${b.name}"` : ""}, ${b.mass.toPrecision(3)} kg` : "";
    }
    if (t.kind === "spring") {
      const sp = m.springs.get(t.id)?.spring;
      return sp ? `selected spring ${t.id}, k = ${sp.stiffness ?? 100} N/m, c = ${sp.damping} N·s/m` : "";
    }
    const c = m.constraints.get(t.id);
    if (!c) return "";
    const rows = f.constraints.get(t.id);
    const values = rows
      ? `, λ = [${rows.lambda.map((v) => v.toPrecision(3)).join(", ")}], C = [${rows.error.map((v) => v.toExponential(1)).join(", ")}]`
      : "";
    return `selected ${c.type} ${t.id}${c.name ? ` "${c.name}"` : ""}${values}`;
  }

  private statusText(f: Frame): string {
    const d = f.diagnostics;
    const parts = [
      f.world,
      `tick ${f.tick}`,
      `t = ${f.time.toFixed(2)} s`,
      f.halt ? `paused by the server: ${f.halt}` : f.paused ? "paused" : "running",
      count(this.model.bodies.size, "body", "bodies"),
      count(this.model.constraints.size, "constraint", "constraints"),
      count(this.model.springs.size, "spring", "springs"),
    ];
    if (d) parts.push(`step ${(d.stepSeconds * 1000).toFixed(2)} ms`, `max |C| ${d.maxError.toExponential(1)}`);
    if (d && d.rankDeficiency > 0) parts.push(`rank deficiency ${d.rankDeficiency}`);
    return parts.join(" · ");
  }
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
