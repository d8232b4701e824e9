// Generates the linkage.v1 stubs the package is built from (protobuf-es
// TypeScript, compiled with the rest into dist/) from the repository's proto/
// with Debian's protoc and the workspace's protoc-gen-es. Written to src/gen/,
// never committed; the tarball carries them compiled.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const protoRoot = join(here, "..", "..", "proto");
const out = join(here, "src", "gen");
const plugin = join(here, "..", "node_modules", ".bin", "protoc-gen-es");
const dir = join("linkage", "v1");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
execFileSync(
  "protoc",
  [
    `--plugin=protoc-gen-es=${plugin}`,
    `--es_out=${out}`,
    "--es_opt=target=ts,import_extension=js",
    `-I${protoRoot}`,
    ...readdirSync(join(protoRoot, dir)).filter((f) => f.endsWith(".proto")).map((f) => join(dir, f)),
  ],
  { stdio: "inherit" },
);
