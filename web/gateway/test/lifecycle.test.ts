// The gateway as a program: its start-up line, /healthz following linkaged,
// the viewer's files, and a clean exit on SIGTERM with streams open.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserProtocols, clientsOf } from "./clients.js";
import { repo, startGatewayProcess, startLinkaged, type RunningGateway, type RunningLinkaged } from "./processes.js";

const main = join(repo, "web", "gateway", "dist", "main.js");

describe("the program", () => {
  let linkaged: RunningLinkaged;
  let gateway: RunningGateway;
  let site: string;

  beforeAll(async () => {
    site = await mkdtemp(join(tmpdir(), "linkage-site-"));
    await mkdir(join(site, "assets"));
    await writeFile(join(site, "index.html"), "<!doctype html><title>viewer</title>");
    await writeFile(join(site, "assets", "app-1234.js"), "console.log(1)");
    linkaged = await startLinkaged();
    gateway = await startGatewayProcess(linkaged.address, ["--static", site]);
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await linkaged?.stop("SIGKILL");
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, gateway.url), { headers });

  it("says where it serves", () => {
    expect(gateway.output()).toMatch(/^linkage-gateway serving http:\/\/127\.0\.0\.1:\d+\/ \(linkaged at 127\.0\.0\.1:\d+/);
  });

  it("serves the viewer, index.html for its pages, and 404 for missing files", async () => {
    const index = await get("/");
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await index.text()).toContain("<title>viewer</title>");
    const page = await get("/worlds/default", { accept: "text/html,*/*" });
    expect(await page.text()).toContain("<title>viewer</title>");
    const asset = await get("/assets/app-1234.js");
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await get("/assets/missing.js", { accept: "text/html" })).status).toBe(404);
    expect((await get("/worlds/default", { accept: "application/json" })).status).toBe(404);
    expect((await get("/%2e%2e/%2e%2e/etc/passwd")).status).toBe(404);
    expect((await get("/%E0%A4%A")).status).toBe(400);
  });

  it("is healthy while linkaged answers, and says so (and calls fail UNAVAILABLE) when it does not", async () => {
    expect((await get("/healthz")).status).toBe(200);
    await linkaged.stop();
    const down = await get("/healthz");
    expect(down.status).toBe(503);
    expect(await down.text()).toMatch(/^linkaged at 127\.0\.0\.1:\d+ does not answer: \[unavailable\]/);
    const call = await clientsOf(browserProtocols.connect(gateway.url))
      .world.listWorlds({})
      .then(
        () => undefined,
        (reason: unknown) => ConnectError.from(reason),
      );
    expect(call?.code).toBe(Code.Unavailable);
  });
});

describe("on SIGTERM", () => {
  it("ends open streams with UNAVAILABLE and exits 0", async () => {
    const linkaged = await startLinkaged();
    const gateway = await startGatewayProcess(linkaged.address);
    try {
      const api = clientsOf(browserProtocols.connect(gateway.url));
      const frames = api.world.streamState({ world: "default", rateHz: 10 })[Symbol.asyncIterator]();
      await frames.next();
      const ended = (async () => {
        while (!(await frames.next()).done);
      })().then(
        () => undefined,
        (reason: unknown) => ConnectError.from(reason),
      );
      const started = Date.now();
      expect(await gateway.stop("SIGTERM")).toBe(0);
      expect(Date.now() - started).toBeLessThan(3000);
      const error = await ended;
      expect(error?.code).toBe(Code.Unavailable);
      expect(error?.rawMessage).toBe("the gateway is shutting down");
      expect(gateway.output()).toContain("linkage-gateway: stopped");
    } finally {
      await gateway.stop("SIGKILL");
      await linkaged.stop();
    }
  });
});

describe("its command line", () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [main, ...args], { encoding: "utf8", env: {} });

  it("explains itself with --help", () => {
    const help = run("--help");
    expect(help.status).toBe(0);
    for (const word of ["--upstream", "LINKAGE_UPSTREAM", "--listen", "LINKAGE_WEB_LISTEN", "--static", "--scenes", "/healthz"]) {
      expect(help.stdout).toContain(word);
    }
  });

  it("refuses a bad flag or address with exit code 2", () => {
    for (const args of [["--nope"], ["--listen", "nowhere"], ["--upstream"]]) {
      const result = run(...args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^linkage-gateway: /);
    }
  });
});
