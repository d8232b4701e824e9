import { describe, expect, it } from "vitest";
import { resolveUnder } from "./static.js";

describe("resolveUnder", () => {
  it("maps request paths to files under the root", () => {
    expect(resolveUnder("/srv/app", "/")).toBe("/srv/app");
    expect(resolveUnder("/srv/app", "/assets/a.js")).toBe("/srv/app/assets/a.js");
    expect(resolveUnder("/srv/app", "/a/../b.css")).toBe("/srv/app/b.css");
  });

  it("refuses paths that leave the root", () => {
    expect(resolveUnder("/srv/app", "/../secret")).toBeUndefined();
    expect(resolveUnder("/srv/app", "/a/../../app2/x")).toBeUndefined();
    expect(resolveUnder("/srv/app", "/..")).toBeUndefined();
  });
});
