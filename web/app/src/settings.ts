// The solver panel: a world's settings shown as fields, each change sent at
// once with UpdateWorld (only that field; the others keep their values), and
// refreshed from the stream, so edits made elsewhere show up within a frame.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Dynamics, Integrator, LinearSolver, type WorldSettings, type WorldSettingsSchema } from "@linkage/client/proto/world_pb";
import type { App } from "./app";

type Settings = MessageInitShape<typeof WorldSettingsSchema>;
type Key = "dynamics" | "integrator" | "solver" | "tickRate" | "substeps" | "feedbackStiffness" | "feedbackDamping" | "baumgarte" | "projectPositions" | "projectVelocities" | "contacts";

type Field =
  | { key: Key; label: string; kind: "enum"; options: [number, string][]; title?: string }
  | { key: Key; label: string; kind: "number"; integer?: boolean; min: number; title?: string }
  | { key: Key; label: string; kind: "bool"; title?: string };

const FIELDS: Field[] = [
  {
    key: "dynamics", label: "method", kind: "enum", options: [
      [Dynamics.FORCE_BASED, "force-based (Witkin)"],
      [Dynamics.VELOCITY_PROJECTION, "velocity projection"],
      [Dynamics.SEQUENTIAL_IMPULSES, "sequential impulses"],
    ],
  },
  {
    key: "integrator", label: "integrator", kind: "enum", options: [
      [Integrator.EXPLICIT_EULER, "explicit Euler"],
      [Integrator.SEMI_IMPLICIT_EULER, "semi-implicit Euler"],
      [Integrator.MIDPOINT, "midpoint"],
      [Integrator.RK4, "RK4"],
      [Integrator.VELOCITY_VERLET, "velocity Verlet"],
    ],
  },
  {
    key: "solver", label: "solver", kind: "enum", options: [
      [LinearSolver.LDLT, "LDLᵀ (direct)"],
      [LinearSolver.CONJUGATE_GRADIENT, "conjugate gradient"],
      [LinearSolver.GAUSS_SEIDEL, "Gauss–Seidel"],
    ],
  },
  { key: "tickRate", label: "tick rate (Hz)", kind: "number", min: 1 },
  { key: "substeps", label: "substeps", kind: "number", integer: true, min: 1 },
  { key: "feedbackStiffness", label: "k_s (1/s²)", kind: "number", min: 0, title: "drift feedback stiffness of the force-based method" },
  { key: "feedbackDamping", label: "k_d (1/s)", kind: "number", min: 0, title: "drift feedback damping of the force-based method" },
  { key: "baumgarte", label: "Baumgarte β", kind: "number", min: 0, title: "position feedback of the impulse methods, 0 to 1" },
  { key: "projectPositions", label: "SHAKE", kind: "bool", title: "project positions onto C = 0 after each step" },
  { key: "projectVelocities", label: "RATTLE", kind: "bool", title: "project velocities onto J v = 0 after each step" },
  { key: "contacts", label: "contacts", kind: "bool", title: "bodies with shapes collide (sequential impulses)" },
];

export class SettingsPanel {
  private readonly inputs = new Map<Key, HTMLInputElement | HTMLSelectElement>();

  constructor(private readonly app: App, box: HTMLElement) {
    for (const f of FIELDS) {
      const label = document.createElement("label");
      label.textContent = f.label;
      if (f.title) label.title = f.title;
      let input: HTMLInputElement | HTMLSelectElement;
      if (f.kind === "enum") {
        input = document.createElement("select");
        for (const [value, text] of f.options) input.append(new Option(text, String(value)));
      } else {
        input = document.createElement("input");
        input.type = f.kind === "bool" ? "checkbox" : "number";
        if (f.kind === "number") {
          input.min = String(f.min);
          input.step = f.integer ? "1" : "any";
        }
      }
      input.id = `setting-${f.key}`;
      input.dataset.testid = `setting-${f.key}`;
      label.htmlFor = input.id;
      input.addEventListener("change", () => void this.send(f, input));
      box.append(label, f.kind === "bool" ? wrap(input) : input);
      this.inputs.set(f.key, input);
    }
  }

  private async send(f: Field, input: HTMLInputElement | HTMLSelectElement): Promise<void> {
    let value: number | boolean;
    if (f.kind === "bool") value = (input as HTMLInputElement).checked;
    else {
      value = Number(input.value);
      if (input.value === "" || !Number.isFinite(value)) return;
    }
    const settings = { [f.key]: value } as Settings;
    // Only this setting changes (an update mask, by its proto name): a false
    // or a 0 is set too, and nothing else is sent back.
    const updateMask = { paths: [f.key.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())] };
    const world = this.app.world;
    const r = await this.app.call(`setting ${f.label}`, () => this.app.api.world.updateWorld({ world, settings, updateMask }));
    if (r?.world?.settings) this.show(r.world.settings);
  }

  // Shows a world's settings, leaving alone the field being edited.
  show(s: WorldSettings): void {
    for (const [key, input] of this.inputs) {
      if (document.activeElement === input) continue;
      const v = s[key];
      if (input instanceof HTMLInputElement && input.type === "checkbox") input.checked = Boolean(v);
      else if (v !== undefined) input.value = String(v);
    }
  }
}

function wrap(input: HTMLElement): HTMLElement {
  const span = document.createElement("span");
  span.append(input);
  return span;
}
