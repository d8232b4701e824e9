// window.linkage: a small read-only face of the viewer for end-to-end tests
// and for poking at the viewer from the console.
import type { App } from "./app";
import { bodyPosition } from "./geometry";
import type { Plots } from "./plots";
import "./hook";

export function installHook(app: App, plots: Plots): void {
  window.linkage = {
    get ready() {
      return app.ready;
    },
    get tick() {
      return app.latest?.tick ?? 0;
    },
    get paused() {
      return app.latest?.paused ?? false;
    },
    get world() {
      return app.world;
    },
    // The newest snapshot's state (not the interpolated picture).
    bodies() {
      const f = app.latest;
      if (!f) return [];
      return f.ids.map((id) => {
        const [x, y, z] = bodyPosition(f, id)!;
        return { id, name: app.model.bodies.get(id)?.name ?? "", x, y, z, angle: f.angle[f.slot.get(id)!] ?? 0 };
      });
    },
    constraints() {
      return [...app.model.constraints.values()].map((c) => ({ id: c.id, name: c.name, type: c.type, bodies: [...c.bodies] }));
    },
    // Viewport CSS pixels, ready for page.mouse.
    toScreen(x, y, z = 0) {
      const r = app.canvas().getBoundingClientRect();
      const p = app.view.toScreen([x, y, z]);
      return { x: r.left + p.x, y: r.top + p.y };
    },
    plotSamples() {
      return plots.samples;
    },
    get showContacts() {
      return app.showContacts;
    },
    contacts() {
      return (app.latest?.contacts ?? []).map((c) => ({ a: c.a, b: c.b, x: c.point[0], y: c.point[1], normalImpulse: c.normalImpulse }));
    },
  };
}
