// The viewer end to end: headless Chromium on the gateway's page, in front
// of a real linkaged with the demo scene in "default". What the page shows
// is read through window.linkage and the canvas; what the server holds is
// read with a gRPC client of its own.
import { mkdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Motion } from "@linkage/proto/body_pb";
import { SceneSchema } from "@linkage/proto/scene_pb";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { direct, type Clients } from "../gateway/test/clients.js";
import { repo, startGatewayProcess, startLinkaged, type RunningGateway, type RunningLinkaged } from "../gateway/test/processes.js";
import { launchChromium, type Browser } from "./browser.js";
import "../app/src/hook.js";

const artifacts = resolve(repo, process.env.LINKAGE_ARTIFACTS ?? join("build", "web-artifacts"));

let linkaged: RunningLinkaged;
let gateway: RunningGateway;
let browser: Browser;
let server: Clients;

beforeAll(async () => {
  await mkdir(artifacts, { recursive: true });
  linkaged = await startLinkaged(["--scene", join(repo, "scenes", "demo.json")]);
  gateway = await startGatewayProcess(linkaged.address);
  browser = await launchChromium();
  server = direct(linkaged.address);
});

afterAll(async () => {
  await browser?.close();
  expect(await gateway?.stop()).toBe(0);
  expect(await linkaged?.stop()).toBe(0);
});

/** Opens the viewer at `query` and waits for its first snapshot. */
async function open(query: string): Promise<Page> {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  onTestFailed(async () => {
    const name = query.replace(/\W+/g, "_");
    await page.screenshot({ path: join(artifacts, `failed${name}.png`) }).catch(() => {});
    console.error(`${query}:\n${problems.join("\n")}\nstatus: ${await status(page)}`);
  });
  await page.goto(new URL(query, gateway.url).toString());
  await page.waitForFunction(() => window.linkage?.ready === true);
  return page;
}

function status(page: Page): Promise<string> {
  return page
    .locator("[data-testid=status]")
    .innerText()
    .catch(() => "(none)");
}

const byName = { ref: { case: "name" as const, value: "" } };
const ref = (name: string) => ({ ref: { ...byName.ref, value: name } });

describe("the viewer", () => {
  it("loads a scene from the URL and draws it moving", async () => {
    const page = await open("/?world=e2e-scene&scene=double_pendulum");
    const scene = JSON.parse(await readFile(join(repo, "scenes", "double_pendulum.json"), "utf8"));
    const names: string[] = scene.bodies.map((b: { name: string }) => b.name);
    await page.waitForFunction((n) => window.linkage.bodies().length === n, names.length);
    expect((await page.evaluate(() => window.linkage.bodies())).map((b) => b.name).sort()).toEqual([...names].sort());
    expect((await server.world.getWorld({ world: "e2e-scene" })).world?.bodyCount).toBe(names.length);

    const view = page.locator("[data-testid=view]");
    const tick = await page.evaluate(() => window.linkage.tick);
    const before = await view.screenshot();
    await page.waitForFunction((t) => window.linkage.tick > t + 20, tick);
    const after = await view.screenshot();
    expect(before.equals(after)).toBe(false);
    await page.close();
  });

  it("shows the demo scene (saved as a PNG artefact)", async () => {
    const page = await open("/?world=default");
    await page.waitForFunction(() => window.linkage.bodies().length >= 20 && window.linkage.plotSamples() > 120);
    const path = join(artifacts, "demo.png");
    await page.screenshot({ path });
    expect((await stat(path)).size).toBeGreaterThan(20_000);
    await page.close();
  });

  it("drags a body with the mouse, and the server moves it", async () => {
    const world = "e2e-drag";
    await server.world.createWorld({ name: world });
    await server.body.createBody({ world, body: { name: "pivot", motion: Motion.FIXED, position: { x: 0, y: 0 } } });
    await server.body.createBody({ world, body: { name: "bob", mass: 1, position: { x: 0, y: -1 } } });
    await server.constraint.addConstraint({
      world,
      constraint: { name: "rod", type: { case: "distance", value: { a: ref("pivot"), b: ref("bob") } } },
    });
    const page = await open(`/?world=${world}`);
    await page.waitForFunction(() => window.linkage.bodies().length === 2);

    // The bob hangs at rest below its pivot; pull it out to the right.
    const from = await page.evaluate(() => window.linkage.toScreen(0, -1));
    const to = await page.evaluate(() => window.linkage.toScreen(0.8, -0.6));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 10 });
    await expect.poll(async () => (await bobPosition()).x, { timeout: 10_000 }).toBeGreaterThan(0.5);
    await page.mouse.up();

    // Released, whatever the drag added to the world is gone again.
    await expect.poll(async () => (await server.body.listBodies({ world })).bodies.length, { timeout: 5000 }).toBe(2);
    expect((await server.force.listForces({ world })).forces).toEqual([]);
    await page.close();

    async function bobPosition() {
      const { body } = await server.body.getBody({ world, body: ref("bob") });
      return body!.def!.position!;
    }
  });

  it("adds a rod in one page that a second page on the same world shows", async () => {
    const world = "e2e-rod";
    await server.world.createWorld({ name: world, paused: true });
    await server.body.createBodies({
      world,
      bodies: [
        { name: "left", mass: 1, position: { x: -1, y: 0 } },
        { name: "right", mass: 1, position: { x: 1, y: 0.5 } },
      ],
    });
    const editor = await open(`/?world=${world}`);
    const watcher = await open(`/?world=${world}`);
    await editor.waitForFunction(() => window.linkage.bodies().length === 2);
    expect(await watcher.evaluate(() => window.linkage.constraints())).toEqual([]);

    await editor.locator("[data-testid=tool-rod]").click();
    for (const [x, y] of [
      [-1, 0],
      [1, 0.5],
    ]) {
      const at = await editor.evaluate(([x, y]) => window.linkage.toScreen(x, y), [x, y]);
      await editor.mouse.click(at.x, at.y);
    }

    await watcher.waitForFunction(() => window.linkage.constraints().length === 1);
    const [rod] = await watcher.evaluate(() => window.linkage.constraints());
    const bodies = await watcher.evaluate(() => window.linkage.bodies());
    expect(rod.type).toBe("distance");
    expect(new Set(rod.bodies)).toEqual(new Set(bodies.map((b) => b.id)));
    const [onServer] = (await server.constraint.listConstraints({ world })).constraints;
    const distance = onServer.def?.type.case === "distance" ? onServer.def.type.value : undefined;
    expect(distance?.length).toBeCloseTo(Math.hypot(2, 0.5), 6);
    await editor.close();
    await watcher.close();
  });

  it("shows a settings change made in one page in another within a frame", async () => {
    const world = "e2e-settings";
    await server.world.createWorld({ name: world, paused: true, settings: { substeps: 1 } });
    const editor = await open(`/?world=${world}`);
    const watcher = await open(`/?world=${world}`);
    const substeps = (page: Page) => page.locator("[data-testid=setting-substeps]");
    await expect.poll(() => substeps(watcher).inputValue()).toBe("1");

    await substeps(editor).fill("6");
    await substeps(editor).dispatchEvent("change");
    // The stream carries the new settings with its next frame: far sooner
    // than the viewer's poll of the world list (2 s) could.
    await watcher.waitForFunction(
      () => (document.querySelector("[data-testid=setting-substeps]") as HTMLInputElement).value === "6",
      null,
      { timeout: 1000 },
    );
    expect((await server.world.getWorld({ world })).world?.settings?.substeps).toBe(6);
    await editor.close();
    await watcher.close();
  });

  it("stops plotting while paused", async () => {
    const page = await open("/?world=e2e-pause&scene=pendulum");
    await page.waitForFunction(() => window.linkage.plotSamples() > 10);
    await page.locator("[data-testid=pause]").click();
    await page.waitForFunction(() => window.linkage.paused);
    expect((await server.world.getWorld({ world: "e2e-pause" })).world?.paused).toBe(true);
    const samples = await page.evaluate(() => window.linkage.plotSamples());
    await page.waitForTimeout(1000);
    expect(await page.evaluate(() => window.linkage.plotSamples())).toBe(samples);

    await page.locator("[data-testid=resume]").click();
    await page.waitForFunction((n) => window.linkage.plotSamples() > n + 10, samples);
    await page.close();
  });
});

// What a page shows within a few frames on a quiet machine, given time on a busy one.
const SOON = { timeout: 10_000 };

/** Where the page draws every body, as a box in canvas pixels, and the canvas' size. */
async function drawnBox(page: Page) {
  return page.evaluate(() => {
    const r = document.querySelector("[data-testid=view]")!.getBoundingClientRect();
    const points = window.linkage.bodies().map((b) => window.linkage.toScreen(b.x, b.y, b.z));
    const xs = points.map((p) => p.x - r.left);
    const ys = points.map((p) => p.y - r.top);
    return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys), width: r.width, height: r.height };
  });
}

/** The bodies are all in the canvas, and across or down they fill at least 60 % of it. */
function expectFramed(box: Awaited<ReturnType<typeof drawnBox>>) {
  expect(box.left).toBeGreaterThanOrEqual(0);
  expect(box.top).toBeGreaterThanOrEqual(0);
  expect(box.right).toBeLessThanOrEqual(box.width);
  expect(box.bottom).toBeLessThanOrEqual(box.height);
  expect(Math.max((box.right - box.left) / box.width, (box.bottom - box.top) / box.height)).toBeGreaterThan(0.6);
}

/** 64 particles floating (no gravity) 20 m from the origin: `[nx, ny, nz]` of them 1 m apart. */
async function particleCloud(world: string, [nx, ny, nz]: [number, number, number]) {
  const bodies = [];
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++) for (let k = 0; k < nz; k++) bodies.push({ name: `p${i}-${j}-${k}`, mass: 1, position: { x: 20 + i, y: 5 + j, z: k } });
  await server.body.createBodies({ world, bodies });
}

async function readScene(stem: string) {
  return fromJson(SceneSchema, JSON.parse(await readFile(join(repo, "scenes", `${stem}.json`), "utf8")) as JsonValue);
}

describe("the viewer with contacts", () => {
  it("draws contact points when C turns them on, and adds walls and a ground", async () => {
    const world = "e2e-contacts";
    const page = await open(`/?world=${world}&scene=box_stack`);
    await page.waitForFunction(() => window.linkage.bodies().length === 12);
    // Off by default: the stream does not even carry them.
    expect(await page.evaluate(() => [window.linkage.showContacts, window.linkage.contacts().length])).toEqual([false, 0]);
    await page.keyboard.press("c");
    // Ten boxes resting on each other and the ground: at least two points a box.
    await page.waitForFunction(() => window.linkage.showContacts && window.linkage.contacts().length >= 20, undefined, SOON);
    const contacts = await page.evaluate(() => window.linkage.contacts());
    expect(contacts.some((c) => c.normalImpulse > 0)).toBe(true);
    await page.screenshot({ path: join(artifacts, "contacts.png") });
    await page.locator("[data-testid=show-contacts]").click();
    await page.waitForFunction(() => !window.linkage.showContacts && window.linkage.contacts().length === 0, undefined, SOON);

    // The Wall tool: a line dragged across empty space is a fixed segment there.
    await page.locator("[data-testid=tool-wall]").click();
    const from = await page.evaluate(() => window.linkage.toScreen(-4, 2));
    const to = await page.evaluate(() => window.linkage.toScreen(-2, 3));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 5 });
    await page.mouse.up();
    await expect
      .poll(async () => (await server.body.listBodies({ world })).bodies.find((b) => b.def?.shape?.shape.case === "segment"), SOON)
      .toBeDefined();
    const bodies = (await server.body.listBodies({ world })).bodies;
    const segment = bodies.find((b) => b.def?.shape?.shape.case === "segment")!;
    expect(segment.def?.motion).toBe(Motion.FIXED);
    expect(segment.def!.position!.x).toBeCloseTo(-3, 1);
    expect(segment.def!.position!.y).toBeCloseTo(2.5, 1);

    // Ground: a fixed box whose top is under everything the world held.
    await page.locator("[data-testid=add-ground]").click();
    await expect.poll(async () => (await server.body.listBodies({ world })).bodies.length, SOON).toBe(14);
    const ground = (await server.body.listBodies({ world })).bodies.at(-1)!;
    const box = ground.def?.shape?.shape;
    expect(box?.case).toBe("box");
    expect(ground.def?.motion).toBe(Motion.FIXED);
    if (box?.case === "box") expect(ground.def!.position!.y + box.value.halfHeight).toBeLessThanOrEqual(-1 + 1e-9);
    await page.close();
  });
});

describe("the viewer's first minute", () => {
  it("frames a world of 3D particles when it opens", async () => {
    const world = "e2e-cloud";
    await server.world.createWorld({ name: world, settings: { dimension: 3, gravity: { x: 0, y: 0, z: 0 } } });
    // A long row: a bounding sphere would leave most of the canvas empty.
    await particleCloud(world, [16, 2, 2]);
    const page = await open(`/?world=${world}`);
    await page.waitForFunction(() => window.linkage.bodies().length === 64);
    expectFramed(await drawnBox(page));
    await page.close();
  });

  it("frames 3D particles another client puts into an empty world it shows", async () => {
    const world = "e2e-cloud-late";
    await server.world.createWorld({ name: world, settings: { dimension: 3, gravity: { x: 0, y: 0, z: 0 } } });
    const page = await open(`/?world=${world}`);
    await particleCloud(world, [4, 4, 4]);
    await page.waitForFunction(() => window.linkage.bodies().length === 64);
    await expect.poll(async () => {
      const b = await drawnBox(page);
      return b.left >= 0 && b.right <= b.width && b.top >= 0 && b.bottom <= b.height;
    }, SOON).toBe(true);
    expectFramed(await drawnBox(page));
    await page.close();
  });

  it("shows in the scene picker the scene the world holds", async () => {
    const picker = (page: Page) => page.locator("[data-testid=scene-select]");
    const demo = await open("/?world=default");
    await expect.poll(() => picker(demo).inputValue(), SOON).toBe("demo");
    await demo.close();

    const world = "e2e-picker";
    const page = await open(`/?world=${world}&scene=pendulum`);
    await expect.poll(() => picker(page).inputValue(), SOON).toBe("pendulum");
    const { title, description } = await readScene("pendulum");
    expect(await picker(page).locator("option:checked").innerText()).toBe(title);
    expect(await page.locator("[data-testid=scene-about]").innerText()).toBe(description);

    // Another client loads a scene, edits the world, resets it.
    await server.world.loadScene({ world, scene: await readScene("double_pendulum") });
    await expect.poll(() => picker(page).inputValue(), SOON).toBe("double_pendulum");
    await server.body.createBody({ world, body: { name: "extra", mass: 1, position: { x: 3, y: 0 } } });
    await expect.poll(() => picker(page).inputValue(), SOON).toBe("");
    expect(await page.locator("[data-testid=scene-about]").innerText()).toBe("This world holds none of the scene files.");
    await expect(page.locator("[data-testid=scene-load]").isDisabled()).resolves.toBe(true);
    await server.world.reset({ world });
    await expect.poll(() => picker(page).inputValue(), SOON).toBe("double_pendulum");

    // Loading from the picker loads into the world shown.
    await picker(page).selectOption("chain");
    await page.locator("[data-testid=scene-load]").click();
    await expect.poll(async () => (await server.world.getWorld({ world })).world?.bodyCount, SOON).toBe((await readScene("chain")).bodies.length);
    await expect.poll(() => picker(page).inputValue(), SOON).toBe("chain");
    await page.close();
  });

  it("lists every tool and key in the help overlay", async () => {
    const page = await open("/?world=e2e-help");
    const help = page.locator("[data-testid=help]");
    await expect(help.isVisible()).resolves.toBe(false);
    await page.keyboard.press("?");
    await expect(help.isVisible()).resolves.toBe(true);
    const text = await help.innerText();
    for (const tool of await page.locator("[data-tool]").all()) expect(text).toContain(await tool.innerText());
    for (const key of ["Space", "Esc", "Delete", "contact points"]) expect(text).toContain(key);
    await page.keyboard.press("Escape");
    await expect(help.isVisible()).resolves.toBe(false);
    await page.locator("[data-testid=help-button]").click();
    await expect(help.isVisible()).resolves.toBe(true);
    await page.locator("[data-testid=help-close]").click();
    await expect(help.isVisible()).resolves.toBe(false);
    await page.close();
  });

  it("sends the token typed into its field with every call, for the tab's session", async () => {
    const page = await open("/?world=e2e-token");
    const sent: (string | undefined)[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/linkage.v1.")) sent.push(r.headers()["authorization"]);
    });
    await page.locator("[data-testid=token]").fill("s3cret");
    await page.locator("[data-testid=token]").dispatchEvent("change");
    await expect.poll(() => sent.length, SOON).toBeGreaterThan(1);
    expect(new Set(sent)).toEqual(new Set(["Bearer s3cret"]));
    expect(await page.evaluate(() => sessionStorage.getItem("linkage.token"))).toBe("s3cret");
    await page.close();
  });
});
