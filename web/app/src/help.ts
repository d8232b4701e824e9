// The help overlay: every tool with its key and what it does (the hints the
// sidebar shows, from the same table), the other keys, and the mouse. Opened
// with ? (or the ? button), closed with ?, Esc, a click outside or ×.
import { HINTS, TOOLS, type ToolName } from "./tools";

const OTHER_KEYS: [string, string][] = [
  ["Space", "pause or resume the world"],
  ["N", "step it (by the ticks beside Step)"],
  ["F", "fit the view to the scene"],
  ["C", "show contact points and their normals, coloured by normal impulse (off by default)"],
  ["Esc", "cancel a half-made rod, pin, spring or slider"],
  ["Delete", "delete the selection (also Backspace)"],
  ["?", "this help"],
];

const MOUSE: [string, string][] = [
  ["2D", "drag empty space to pan (Drag tool), wheel to zoom"],
  ["3D", "left button orbits, right button pans, wheel zooms"],
];

function table(rows: [string, string, string?][]): HTMLTableElement {
  const t = document.createElement("table");
  for (const cells of rows) {
    const tr = t.insertRow();
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text ?? "";
      if (i === 0) td.className = "key";
    });
  }
  return t;
}

function heading(text: string): HTMLHeadingElement {
  const h = document.createElement("h3");
  h.textContent = text;
  return h;
}

export class Help {
  constructor(private readonly el: HTMLElement, keys: Record<string, ToolName>) {
    const keyOf = (tool: ToolName) => Object.entries(keys).find(([, t]) => t === tool)?.[0].toUpperCase() ?? "";
    const name = (tool: ToolName) => tool[0].toUpperCase() + tool.slice(1);
    const close = document.createElement("button");
    close.className = "close";
    close.textContent = "×";
    close.title = "close (Esc)";
    close.dataset.testid = "help-close";
    close.addEventListener("click", () => this.hide());
    const panel = document.createElement("div");
    panel.className = "help-panel";
    panel.append(
      close,
      heading("Tools"),
      table(TOOLS.map((t) => [keyOf(t), name(t), HINTS[t]])),
      heading("Keys"),
      table(OTHER_KEYS),
      heading("Mouse"),
      table(MOUSE),
    );
    el.replaceChildren(panel);
    el.addEventListener("click", (e) => {
      if (e.target === el) this.hide();
    });
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  toggle(): void {
    this.el.hidden = !this.el.hidden;
  }

  hide(): void {
    this.el.hidden = true;
  }
}
