// Tests @linkage/client as a user gets it. Makes a scratch Node project in
// DIR (project/ holds its tests), installs the packed tarball there with
// Vitest, TypeScript and connect-node beside it at the versions
// web/package-lock.json holds, type-checks the tests against the
// declarations the tarball ships and runs them (against LINKAGED, through
// LINKAGE_GATEWAY too). The project's lock file is cut from the workspace's
// (the packages those need, with their integrity hashes), so npm takes every
// package from its cache, which the workspace's own `npm ci` filled, and
// never asks the registry.
//
//   node run.mjs TARBALL DIR
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..", "..");
const [tarball, dir] = process.argv.slice(2).map((p) => resolve(p));
if (!tarball || !dir) {
  console.error("usage: node run.mjs TARBALL DIR");
  process.exit(2);
}

const lock = JSON.parse(readFileSync(join(web, "package-lock.json"), "utf8")).packages;
const client = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8"));
const tools = ["vitest", "typescript", "@connectrpc/connect-node", "@types/node"];

// Where Node would find `name` from the package at lock path `from`: its own
// node_modules, then each enclosing one's.
function find(name, from) {
  for (let p = from; ; p = p.slice(0, Math.max(0, p.lastIndexOf("node_modules/") - 1))) {
    const candidate = (p ? p + "/" : "") + "node_modules/" + name;
    if (lock[candidate]) return candidate;
    if (!p) throw new Error(`${name} (needed by ${from || "the workspace"}) is not in web/package-lock.json`);
  }
}

// Every package those need, by lock path, as seen from the client workspace.
const entries = new Map();
const queue = [...Object.keys(client.dependencies), ...tools].map((name) => find(name, "client"));
while (queue.length > 0) {
  const path = queue.pop();
  if (entries.has(path)) continue;
  const entry = lock[path];
  entries.set(path, entry);
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional);
  for (const name of [...Object.keys(entry.dependencies ?? {}), ...peers]) queue.push(find(name, path));
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    try {
      queue.push(find(name, path));
    } catch {
      // An optional dependency for another platform that npm left out.
    }
  }
}

const packages = {};
for (const [path, entry] of entries) {
  const at = path.startsWith("client/") ? path.slice("client/".length) : path;
  if (packages[at] && packages[at].version !== entry.version) throw new Error(`two versions of ${at}`);
  packages[at] = entry;
}
const version = (name) => packages[`node_modules/${name}`].version;
const devDependencies = Object.fromEntries(tools.map((name) => [name, version(name)]));
const manifest = {
  name: "linkage-client-user",
  private: true,
  type: "module",
  dependencies: { "@linkage/client": `file:${relative(dir, tarball)}` },
  devDependencies,
};
const integrity = "sha512-" + createHash("sha512").update(readFileSync(tarball)).digest("base64");
packages["node_modules/@linkage/client"] = {
  version: client.version,
  resolved: manifest.dependencies["@linkage/client"],
  integrity,
  dependencies: client.dependencies,
  engines: client.engines,
};
for (const [path, entry] of Object.entries(packages)) if (path !== "node_modules/@linkage/client") delete entry.resolved;

// DIR is made afresh each run; anything else found there is left alone.
if (existsSync(dir) && readdirSync(dir).length > 0) {
  const old = join(dir, "package.json");
  if (!existsSync(old) || JSON.parse(readFileSync(old, "utf8")).name !== manifest.name) {
    console.error(`${dir} holds something other than this test's project; give an empty or new directory`);
    process.exit(2);
  }
}
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
writeFileSync(
  join(dir, "package-lock.json"),
  JSON.stringify({ name: manifest.name, lockfileVersion: 3, requires: true, packages: { "": manifest, ...packages } }, null, 2) + "\n",
);
for (const f of readdirSync(join(here, "project"))) copyFileSync(join(here, "project", f), join(dir, f));
// A step that fails has said why on the inherited output; exit with its
// status, after `hint` if there is one.
function run(command, args, hint) {
  try {
    execFileSync(command, args, { cwd: dir, stdio: "inherit" });
  } catch (err) {
    if (hint) console.error(hint);
    process.exit(err.status || 1);
  }
}
// `npm install` rather than `npm ci`: ci checks the lock against every
// optional dependency of every platform, which the workspace's lock leaves out.
run(
  "npm",
  ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"],
  "npm could not install from its cache alone: `npm ci` in web/ puts every package the workspace's lock names there",
);
run(process.execPath, ["plain.mjs"]);
run(join(dir, "node_modules", ".bin", "tsc"), ["-p", "."]);
run(join(dir, "node_modules", ".bin", "vitest"), ["run"]);
