// Generates protobuf-es stubs (JavaScript + declarations) for linkage.v1 and
// grpc.health.v1 from the repository's proto/ with Debian's protoc and the
// protoc-gen-es plugin.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const protoRoot = join(here, "..", "..", "proto");
const out = join(here, "gen");
const plugin = join(here, "..", "node_modules", ".bin", "protoc-gen-es");
const protos = (dir) =>
  readdirSync(join(protoRoot, dir))
    .filter((f) => f.endsWith(".proto"))
    .map((f) => join(dir, f));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
execFileSync(
  "protoc",
  [
    `--plugin=protoc-gen-es=${plugin}`,
    `--es_out=${out}`,
    "--es_opt=target=js+dts,import_extension=js",
    `-I${protoRoot}`,
    ...protos(join("linkage", "v1")),
    ...protos(join("grpc", "health", "v1")),
  ],
  { stdio: "inherit" },
);
