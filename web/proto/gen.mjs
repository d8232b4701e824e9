// Generates protobuf-es stubs (JavaScript + declarations) for linkage.v1 from
// the repository's proto/ with Debian's protoc and the protoc-gen-es plugin.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const protoRoot = join(here, "..", "..", "proto");
const out = join(here, "gen");
const plugin = join(here, "..", "node_modules", ".bin", "protoc-gen-es");
const protos = (root, dir) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith(".proto"))
    .map((f) => join(dir, f));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// linkage.v1 from the repository's proto/, and grpc.health.v1 from here.
for (const [root, dir] of [
  [protoRoot, join("linkage", "v1")],
  [here, join("grpc", "health", "v1")],
]) {
  execFileSync(
    "protoc",
    [
      `--plugin=protoc-gen-es=${plugin}`,
      `--es_out=${out}`,
      "--es_opt=target=js+dts,import_extension=js",
      `-I${root}`,
      ...protos(root, dir),
    ],
    { stdio: "inherit" },
  );
}
