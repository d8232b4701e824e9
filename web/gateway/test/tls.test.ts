// TLS on both sides of the gateway against the real linkaged: linkaged with
// TLS and tokens (certificates made here by openssl), the gateway reaching it
// over TLS and serving HTTPS itself, the browser's token passed through, and
// a renewed certificate served without a restart.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { WorldService } from "@linkage/proto/service_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAddress } from "../src/config.js";
import { startGateway, type Gateway } from "../src/gateway.js";
import { startLinkaged, type RunningLinkaged } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "linkage-gateway-tls-"));
const file = (name: string) => join(dir, name);
const token = `lk_${randomBytes(32).toString("hex")}`;

function openssl(...args: string[]) {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}
function makeCa(name: string) {
  openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-subj", `/CN=${name}`, "-keyout", `${name}.key`, "-out", `${name}.pem`);
}
function makeCert(name: string, ca: string) {
  writeFileSync(file(`${name}.ext`), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", `/CN=${name}`,
    "-keyout", `${name}.key`, "-out", `${name}.csr`);
  openssl("x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.pem`, "-CAkey", `${ca}.key`, "-CAcreateserial",
    "-days", "2", "-extfile", `${name}.ext`, "-out", `${name}.pem`);
}

let linkaged: RunningLinkaged;
let gateway: Gateway;

beforeAll(async () => {
  makeCa("ca");
  makeCa("web-ca");
  makeCert("server", "ca");
  makeCert("web-old", "web-ca");
  makeCert("web-new", "web-ca");
  copyFileSync(file("web-old.pem"), file("web.pem"));
  copyFileSync(file("web-old.key"), file("web.key"));
  writeFileSync(file("tokens"), `browser editor * sha256:${createHash("sha256").update(token).digest("hex")}\n`);
  linkaged = await startLinkaged([
    "--tls-cert", file("server.pem"), "--tls-key", file("server.key"), "--tokens", file("tokens"),
  ]);
  gateway = await startGateway({
    upstream: parseAddress("upstream", linkaged.address),
    listen: { host: "127.0.0.1", port: 0 },
    staticDir: "/nonexistent",
    scenesDir: "/nonexistent",
    upstreamTls: { ca: file("ca.pem") },
    tls: { cert: file("web.pem"), key: file("web.key") },
  });
}, 30_000);

afterAll(async () => {
  await gateway?.close();
  await linkaged?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// The CA that signed the certificate the gateway serves now.
function issuer(): Promise<string> {
  return new Promise((done, fail) => {
    const req = get(`${gateway.url}healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
      const cert = (res.socket as import("node:tls").TLSSocket).getPeerCertificate();
      res.resume();
      done(cert.subject.CN);
    });
    req.on("error", fail);
  });
}

describe("TLS through the gateway", () => {
  const api = (ca: string) =>
    createClient(
      WorldService,
      createConnectTransport({ baseUrl: gateway.url, httpVersion: "1.1", nodeOptions: { ca: execFileSync("cat", [ca]) } }),
    );

  it("serves HTTPS and reaches linkaged over TLS with the browser's token", async () => {
    expect(gateway.url.startsWith("https://")).toBe(true);
    const world = await api(file("web-ca.pem")).getWorld({ world: "default" }, { headers: { authorization: `Bearer ${token}` } });
    expect(world.world?.name).toBe("default");
  });

  it("passes linkaged's refusal of a call without a token", async () => {
    const error = await api(file("web-ca.pem")).getWorld({ world: "default" }).catch((e: unknown) => ConnectError.from(e));
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("serves a renewed certificate without a restart", async () => {
    expect(await issuer()).toBe("web-old");
    copyFileSync(file("web-new.key"), file("web.key.new"));
    copyFileSync(file("web-new.pem"), file("web.pem.new"));
    renameSync(file("web.key.new"), file("web.key"));
    renameSync(file("web.pem.new"), file("web.pem"));
    const deadline = Date.now() + 10_000;
    while ((await issuer()) !== "web-new" && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 200));
    expect(await issuer()).toBe("web-new");
  }, 15_000);
});
