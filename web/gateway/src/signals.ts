// AbortSignal.any() arrived in Node 18.17 and 20.3; the gateway supports
// 18.14, so a controller that follows a parent signal is built by hand.

/** A controller that aborts with `parent`, and can also be aborted alone. */
export function linkedAbort(parent: AbortSignal): AbortController {
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) {
    follow();
  } else {
    parent.addEventListener("abort", follow, { once: true });
    controller.signal.addEventListener("abort", () => parent.removeEventListener("abort", follow), { once: true });
  }
  return controller;
}
