// The sidebar: worlds, scenes, time, tools, colours, and the keyboard
// shortcuts that mirror them.
import type { World } from "@linkage/client/proto/world_pb";
import { Code } from "@linkage/client";
import { errorCode } from "./errors";
import type { App } from "./app";
import { ERROR_CEIL, ERROR_FLOOR, RAMP, type ColorMode } from "./colors";
import { Help } from "./help";
import { getToken, setToken } from "./token";
import { heldScene, type SceneEntry } from "./scene-match";
import { loadScene, saveScene, sceneEntries } from "./scenes";
import { SettingsPanel } from "./settings";
import { Tools, type ToolName } from "./tools";

// How often the world list is re-read, for worlds other clients create or
// delete (the stream carries one world's state and settings, not the list).
const POLL_MS = 2000;

// The picker's entry for a world that holds none of the scene files.
const NO_SCENE = "(edited or new)";

const KEYS: Record<string, ToolName> = { d: "drag", s: "select", i: "impulse", r: "rod", p: "pin", k: "spring", l: "slider", b: "body", w: "wall" };

function $<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

export class Controls {
  readonly tools: Tools;
  private readonly settings: SettingsPanel;
  private readonly help = new Help($("help"), KEYS);
  private readonly worldSelect = $<HTMLSelectElement>("world-select");
  private readonly sceneSelect = $<HTMLSelectElement>("scene-select");
  private scenes: SceneEntry[] = [];
  // The stem of the scene the world was last seen to hold ("" for none).
  private held: string | undefined;

  constructor(private readonly app: App, stage: HTMLElement) {
    this.tools = new Tools(app, stage, $("tool-hint"), (tool) => this.showTool(tool));
    app.tool = this.tools;
    this.settings = new SettingsPanel(app, $("settings"));
    this.bindWorlds();
    void this.bindScenes();
    this.bindTime();
    this.bindTools();
    this.bindColors();
    this.bindKeys();
    this.bindAccess();
    $("help-button").addEventListener("click", () => this.help.toggle());
    app.worldListeners.push(() => void this.poll());
    app.settingsListeners.push((settings) => this.settings.show(settings));
    setInterval(() => void this.poll(), POLL_MS);
  }

  private bindWorlds(): void {
    this.worldSelect.addEventListener("change", () => void this.app.open(this.worldSelect.value));
    this.worldSelect.addEventListener("focus", () => void this.poll());
    const name = $<HTMLInputElement>("world-name");
    const create = async () => {
      const world = name.value.trim();
      if (!world) {
        this.app.messages.info("type a name for the new world");
        return;
      }
      const dimension = $<HTMLInputElement>("world-3d").checked ? 3 : 2;
      try {
        await this.app.api.world.createWorld({ name: world, settings: { dimension } });
      } catch (err) {
        // CreateWorld's FAILED_PRECONDITION: a world of that name exists.
        if (errorCode(err) !== Code.FailedPrecondition) {
          this.app.messages.error(err, "create world");
          return;
        }
        this.app.messages.info(`world ${world} already exists; opened it`);
      }
      name.value = "";
      await this.app.open(world);
    };
    $("world-create").addEventListener("click", () => void create());
    name.addEventListener("keydown", (e) => {
      if (e.key === "Enter") void create();
    });
  }

  private async bindScenes(): Promise<void> {
    const load = $<HTMLButtonElement>("scene-load");
    load.addEventListener("click", () => {
      if (this.sceneSelect.value) void loadScene(this.app, this.sceneSelect.value);
    });
    const enable = () => {
      load.disabled = !this.sceneSelect.value;
      this.describeScene();
    };
    this.sceneSelect.addEventListener("change", enable);
    $("scene-save").addEventListener("click", () => void saveScene(this.app));
    $("reset").addEventListener("click", async () => {
      const world = this.app.world;
      if (await this.app.call("reset", () => this.app.api.world.reset({ world }))) this.app.plots.clear();
    });
    try {
      this.scenes = await sceneEntries();
    } catch (err) {
      this.app.messages.error(err, "scene list");
    }
    this.sceneSelect.replaceChildren(
      new Option(NO_SCENE, ""),
      ...this.scenes.map((s) => Object.assign(new Option(s.title, s.stem), { title: `scenes/${s.stem}.json` })),
    );
    this.app.topologyListeners.push(() => this.showHeldScene());
    this.app.worldListeners.push(() => (this.held = undefined));
    this.showHeldScene();
    enable();
  }

  // Puts the scene the world holds in the picker when that changes (a load,
  // a reset, an edit, another world), and leaves a choice the user made
  // meanwhile alone otherwise.
  private showHeldScene(): void {
    const frame = this.app.latest;
    if (!frame || frame.world !== this.app.world) return;
    const stem = heldScene(this.scenes, this.app.model, frame.dimension)?.stem ?? "";
    if (stem === this.held) return;
    this.held = stem;
    this.sceneSelect.value = stem;
    $<HTMLButtonElement>("scene-load").disabled = !stem;
    this.describeScene();
  }

  // The picked scene's sentence under the picker.
  private describeScene(): void {
    const picked = this.scenes.find((s) => s.stem === this.sceneSelect.value);
    $("scene-about").textContent = picked ? picked.description : "This world holds none of the scene files.";
  }

  private bindTime(): void {
    const api = this.app.api.world;
    const ticks = $<HTMLInputElement>("step-ticks");
    $("pause").addEventListener("click", () => void this.app.call("pause", () => api.pause({ world: this.app.world })));
    $("resume").addEventListener("click", () => void this.app.call("resume", () => api.resume({ world: this.app.world })));
    $("step").addEventListener("click", () => {
      const n = Math.max(1, Math.floor(Number(ticks.value) || 1));
      void this.app.call("step", () => api.step({ world: this.app.world, ticks: n }));
    });
  }

  private bindTools(): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-tool]")) {
      b.addEventListener("click", () => this.tools.setTool(b.dataset.tool as ToolName));
    }
    $("delete").addEventListener("click", () => void this.tools.deleteSelected());
    $("add-ground").addEventListener("click", () => void this.tools.addGround());
  }

  private showTool(tool: ToolName): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-tool]")) b.classList.toggle("active", b.dataset.tool === tool);
    $("spring-options").classList.toggle("shown", tool === "spring");
  }

  private bindColors(): void {
    $("legend-ramp").style.background = `linear-gradient(to right, ${RAMP.join(", ")})`;
    const show = (mode: ColorMode) => {
      this.app.colorMode = mode;
      $("legend-low").textContent = mode === "force" ? "0" : `≤ ${ERROR_FLOOR.toExponential(0)}`;
      $("legend-high").textContent = mode === "force" ? "largest |λ| now" : `≥ ${ERROR_CEIL.toExponential(0)} (log)`;
    };
    for (const r of document.querySelectorAll<HTMLInputElement>("input[name=color-mode]")) {
      r.addEventListener("change", () => r.checked && show(r.value as ColorMode));
    }
    show("force");
    const contacts = $<HTMLInputElement>("show-contacts");
    contacts.checked = false;
    contacts.addEventListener("change", () => {
      this.app.setContacts(contacts.checked);
      // The keys (C among them) keep working after a click on the box.
      contacts.blur();
    });
  }

  // The token field: kept for the tab's session (sessionStorage, as
  // token.ts reads it for every call); a new one reopens the world at once,
  // so its stream and list need not wait for a retry.
  private bindAccess(): void {
    const field = $<HTMLInputElement>("token");
    field.value = getToken() ?? "";
    field.addEventListener("change", () => {
      setToken(field.value.trim());
      void this.app.open(this.app.world || "default");
    });
  }

  private bindKeys(): void {
    window.addEventListener("keydown", (e) => {
      const t = e.target as HTMLElement;
      if (t.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
      const key = e.key.toLowerCase();
      const world = this.app.world;
      const api = this.app.api.world;
      if (key === "?") this.help.toggle();
      else if (key === "escape" && this.help.open) this.help.hide();
      else if (key in KEYS) this.tools.setTool(KEYS[key]);
      else if (key === "escape") this.tools.cancel();
      else if (key === "delete" || key === "backspace") void this.tools.deleteSelected();
      else if (key === "f") this.app.refit();
      else if (key === "c") $<HTMLInputElement>("show-contacts").click();
      else if (key === "n") $("step").click();
      else if (key === " ") {
        if (this.app.latest?.paused) void this.app.call("resume", () => api.resume({ world }));
        else void this.app.call("pause", () => api.pause({ world }));
      } else return;
      e.preventDefault();
    });
  }

  private async poll(): Promise<void> {
    let worlds: World[];
    try {
      worlds = (await this.app.api.world.listWorlds({})).worlds;
    } catch {
      // The stream reports the connection; a failed poll only waits for the next.
      return;
    }
    const names = worlds.map((w) => w.name).sort();
    if (!names.includes(this.app.world) && this.app.world) names.push(this.app.world);
    const have = [...this.worldSelect.options].map((o) => o.value);
    if (have.join("\n") !== names.join("\n")) this.worldSelect.replaceChildren(...names.map((n) => new Option(n, n)));
    this.worldSelect.value = this.app.world;
  }
}
