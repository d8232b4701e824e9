// The repository's scenes for the viewer's scene menu: /scenes/index.json
// lists the stems, /scenes/<stem>.json is the file (the JSON mapping of
// linkage.v1.Scene, ready for LoadScene). The directory is read on every
// request so a scene written while the gateway runs shows up.
import { readdir } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { fileSize, sendFile } from "./files.js";
import { readOnly, requestPath, sendJson, sendText } from "./respond.js";

export const scenesPrefix = "/scenes/";

export async function sceneStems(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".json") && !e.name.startsWith("."))
    .map((e) => e.name.slice(0, -".json".length))
    .sort();
}

export function scenesHandler(dir: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!readOnly(req, res)) return;
    const name = requestPath(req)?.slice(scenesPrefix.length);
    const stems = await sceneStems(dir).catch(() => undefined);
    if (stems === undefined) {
      sendText(res, 500, `cannot read the scenes directory ${dir}`);
      return;
    }
    if (name === "index.json") {
      sendJson(req, res, stems);
      return;
    }
    // Only names from the listing are opened, so no path can leave dir.
    const stem = name?.endsWith(".json") ? name.slice(0, -".json".length) : undefined;
    const size = stem !== undefined && stems.includes(stem) ? await fileSize(join(dir, `${stem}.json`)) : undefined;
    if (size === undefined) {
      sendText(res, 404, `no scene ${name ?? ""}; see ${scenesPrefix}index.json`);
      return;
    }
    await sendFile(req, res, join(dir, `${stem}.json`), size, "no-cache");
  };
}
