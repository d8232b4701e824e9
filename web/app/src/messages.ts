// The small message area over the view: server errors (code and message) and
// notes, each fading after a while; a repeat of the newest bumps its count
// instead of stacking.
import { describeError } from "./errors";

const SHOWN_MS = 8000;
const MAX_SHOWN = 4;

export class Messages {
  private last: { text: string; el: HTMLElement; count: number; timer: number } | null = null;

  constructor(private readonly box: HTMLElement) {}

  error(err: unknown, context?: string): void {
    this.show((context ? context + ": " : "") + describeError(err), "error");
  }

  info(text: string): void {
    this.show(text, "info");
  }

  private show(text: string, kind: "error" | "info"): void {
    if (this.last && this.last.text === text && this.last.el.isConnected) {
      this.last.count++;
      this.last.el.textContent = `${text} (×${this.last.count})`;
      clearTimeout(this.last.timer);
      this.last.timer = this.expire(this.last.el);
      return;
    }
    const el = document.createElement("div");
    el.className = `message ${kind}`;
    el.textContent = text;
    el.title = "click to dismiss";
    el.addEventListener("click", () => el.remove());
    this.box.append(el);
    while (this.box.children.length > MAX_SHOWN) this.box.firstElementChild!.remove();
    this.last = { text, el, count: 1, timer: this.expire(el) };
  }

  private expire(el: HTMLElement): number {
    return window.setTimeout(() => {
      el.classList.add("fading");
      window.setTimeout(() => el.remove(), 400);
    }, SHOWN_MS);
  }
}
