// The viewer's built files. A page path the viewer routes itself (no file
// extension, asked for by a browser) gets index.html; anything else that is
// not a file is a 404, so a mistyped API or asset URL fails loudly.
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileSize, sendFile } from "./files.js";
import { readOnly, requestPath, sendText } from "./respond.js";

// Vite puts content-hashed files under assets/: they never change.
const immutable = "public, max-age=31536000, immutable";

/** The file under `root` that `path` names, or undefined if it escapes root. */
export function resolveUnder(root: string, path: string): string | undefined {
  const file = resolve(root, `.${sep}${path}`);
  const rel = relative(root, file);
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : file;
}

function wantsPage(req: IncomingMessage, path: string): boolean {
  return extname(path) === "" && (req.headers.accept ?? "").includes("text/html");
}

export function staticHandler(root: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!readOnly(req, res)) return;
    const path = requestPath(req);
    const file = path === undefined ? undefined : resolveUnder(root, path);
    if (path === undefined || file === undefined) {
      sendText(res, 400, "bad path");
      return;
    }
    const candidates = path.endsWith("/") ? [join(file, "index.html")] : [file];
    if (wantsPage(req, path)) candidates.push(join(root, "index.html"));
    for (const candidate of candidates) {
      const size = await fileSize(candidate);
      if (size !== undefined) {
        const cache = path.startsWith("/assets/") ? immutable : "no-cache";
        await sendFile(req, res, candidate, size, cache);
        return;
      }
    }
    const missingApp = (await fileSize(join(root, "index.html"))) === undefined;
    sendText(res, 404, missingApp ? `no viewer in ${root}: build it with 'npm run build' in web/` : `${path}: not found`);
  };
}
