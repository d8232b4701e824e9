import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatAddress, parseAddress, parseConfig } from "./config.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");

function config(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseConfig(argv, env);
  if (parsed.help) throw new Error("asked for help");
  return parsed.config;
}

describe("parseConfig", () => {
  it("defaults to linkaged on 50051, port 8080 and the repository's viewer and scenes", () => {
    expect(config([])).toEqual({
      upstream: { host: "127.0.0.1", port: 50051 },
      listen: { host: "127.0.0.1", port: 8080 },
      staticDir: join(repo, "web", "app", "dist"),
      scenesDir: join(repo, "scenes"),
    });
  });

  it("takes environment variables, and flags over them", () => {
    const env = { LINKAGE_UPSTREAM: "linkaged:9000", LINKAGE_WEB_LISTEN: "0.0.0.0:80", LINKAGE_SCENES: "/srv/scenes" };
    expect(config([], env)).toMatchObject({
      upstream: { host: "linkaged", port: 9000 },
      listen: { host: "0.0.0.0", port: 80 },
      scenesDir: "/srv/scenes",
    });
    expect(config(["--upstream", "other:1", "--listen=[::1]:0", "--static", "/srv/www"], env)).toMatchObject({
      upstream: { host: "other", port: 1 },
      listen: { host: "::1", port: 0 },
      staticDir: "/srv/www",
    });
  });

  it("serves metrics only when given an address for them", () => {
    expect(config([]).metricsListen).toBeUndefined();
    expect(config([], { LINKAGE_WEB_METRICS_LISTEN: "0.0.0.0:9100" }).metricsListen).toEqual({ host: "0.0.0.0", port: 9100 });
    expect(config(["--metrics-listen", "127.0.0.1:0"]).metricsListen).toEqual({ host: "127.0.0.1", port: 0 });
    expect(() => config(["--metrics-listen", "9100"])).toThrow("--metrics-listen: '9100' is not host:port");
  });

  it("treats an empty environment variable as unset", () => {
    expect(config([], { LINKAGE_UPSTREAM: "" }).upstream.port).toBe(50051);
  });

  it("answers --help", () => {
    expect(parseConfig(["--listen", "x:1", "--help"], {})).toEqual({ help: true });
  });

  it("refuses unknown flags, missing values and bad addresses", () => {
    expect(() => parseConfig(["--port", "80"], {})).toThrow("unknown argument '--port'");
    expect(() => parseConfig(["--upstream"], {})).toThrow("--upstream needs a value");
    expect(() => parseConfig([], { LINKAGE_WEB_LISTEN: "8080" })).toThrow("--listen: '8080' is not host:port");
    expect(() => parseConfig(["--listen", "a:70000"], {})).toThrow("not host:port");
  });
});

describe("addresses", () => {
  it("read and print IPv4, names and bracketed IPv6", () => {
    for (const text of ["127.0.0.1:50051", "linkaged:1", "[::1]:8080"]) {
      expect(formatAddress(parseAddress("x", text))).toBe(text);
    }
  });
});
