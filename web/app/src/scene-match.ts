// Which scene file a world holds. The server keeps no record of the scene it
// loaded, so the viewer compares the world with each file: the same bodies
// by name, as many constraints and springs, and the same dimension. A world
// changed since (a body added, a rod removed) holds none of them.
import type { JsonValue } from "@bufbuild/protobuf";
import type { SceneModel } from "./scene-model";

export interface SceneEntry {
  stem: string;
  // The file's title, for the picker ("Double pendulum"); the stem if it has none.
  title: string;
  // Its sentence for people choosing a scene ("" if it has none).
  description: string;
  bodies: string[];
  constraints: number;
  springs: number;
  dimension: number;
}

type Obj = { [k: string]: JsonValue };
const obj = (v: JsonValue | undefined): Obj => (v && typeof v === "object" && !Array.isArray(v) ? v : {});
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

// What the comparison needs of a scene file (linkage.v1.Scene's JSON).
export function sceneEntry(stem: string, json: JsonValue): SceneEntry {
  const s = obj(json);
  return {
    stem,
    title: typeof s.title === "string" && s.title ? s.title : stem,
    description: typeof s.description === "string" ? s.description : "",
    bodies: list(s.bodies).map((b) => String(obj(b).name ?? "")).sort(),
    constraints: list(s.constraints).length,
    // Applied forces in a scene are not topology the stream reports; springs are.
    springs: list(s.forces).filter((f) => "spring" in obj(f)).length,
    dimension: Number(obj(s.settings).dimension ?? 2) || 2,
  };
}

// The scene the world in `model` holds, or null. Drag cursors and their
// springs (a viewer's, for as long as a mouse button is down) do not count.
export function heldScene(scenes: readonly SceneEntry[], model: SceneModel, dimension: number): SceneEntry | null {
  const cursors = new Set<string>();
  const names: string[] = [];
  for (const b of model.bodies.values()) {
    if (b.cursor) cursors.add(b.id);
    else names.push(b.name);
  }
  names.sort();
  let springs = 0;
  for (const s of model.springs.values()) if (!cursors.has(s.a ?? "") && !cursors.has(s.b ?? "")) springs++;
  return (
    scenes.find(
      (s) =>
        s.dimension === dimension &&
        s.constraints === model.constraints.size &&
        s.springs === springs &&
        s.bodies.length === names.length &&
        s.bodies.every((n, i) => n === names[i]),
    ) ?? null
  );
}
