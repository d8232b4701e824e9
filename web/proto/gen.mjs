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
const files = readdirSync(join(protoRoot, "linkage", "v1"))
  .filter((f) => f.endsWith(".proto"))
  .map((f) => join("linkage", "v1", f));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
execFileSync(
  "protoc",
  [
    `--plugin=protoc-gen-es=${plugin}`,
    `--es_out=${out}`,
    "--es_opt=target=js+dts,import_extension=js",
    `-I${protoRoot}`,
    ...files,
  ],
  { stdio: "inherit" },
);
