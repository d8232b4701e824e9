// Scenes: the gateway serves scenes/ as /scenes/index.json (the stems) and
// /scenes/<stem>.json (linkage.v1.Scene in its JSON mapping); saving writes
// the same format, with the proto's field names as the scene files use them.
import { fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { SceneSchema } from "@linkage/client/proto/scene_pb";
import type { App } from "./app";
import { sceneEntry, type SceneEntry } from "./scene-match";

async function getJson(path: string): Promise<JsonValue> {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return (await r.json()) as JsonValue;
}

export async function sceneStems(): Promise<string[]> {
  const list = await getJson("/scenes/index.json");
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === "string") : [];
}

// Every scene file, read for the picker (titles) and to tell which one a
// world holds; a file that cannot be read is left out.
export async function sceneEntries(): Promise<SceneEntry[]> {
  const stems = await sceneStems();
  const entries = await Promise.all(
    stems.map((stem) => getJson(`/scenes/${encodeURIComponent(stem)}.json`).then((json) => sceneEntry(stem, json), () => null)),
  );
  return entries.filter((e): e is SceneEntry => e !== null);
}

// Loads a scene into `world` (by default the one shown).
export async function loadScene(app: App, stem: string, world = app.world): Promise<boolean> {
  let scene;
  try {
    scene = fromJson(SceneSchema, await getJson(`/scenes/${encodeURIComponent(stem)}.json`));
  } catch (err) {
    app.messages.error(err, `scene ${stem}`);
    return false;
  }
  const done = await app.call(`loading ${stem}`, () => app.api.world.loadScene({ world, scene }));
  if (!done) return false;
  app.refit();
  app.plots.clear();
  return true;
}

export async function saveScene(app: App): Promise<void> {
  const world = app.world;
  const r = await app.call("saving", () => app.api.world.saveScene({ world }));
  if (!r?.scene) return;
  const text = JSON.stringify(toJson(SceneSchema, r.scene, { useProtoFieldName: true }), null, 2) + "\n";
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.download = `${world}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
