import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { sceneStems } from "./scenes.js";

it("lists the stems of the JSON files, sorted, and nothing else", async () => {
  const dir = await mkdtemp(join(tmpdir(), "scenes-"));
  for (const name of ["pendulum.json", "chain.json", "generate.py", ".hidden.json", "CMakeLists.txt"]) {
    await writeFile(join(dir, name), "{}");
  }
  await mkdir(join(dir, "src.json"));
  expect(await sceneStems(dir)).toEqual(["chain", "pendulum"]);
});
