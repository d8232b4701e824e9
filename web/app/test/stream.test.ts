import { describe, expect, it } from "vitest";
import { backoffMs } from "../src/stream";

describe("backoffMs", () => {
  it("doubles from a quarter second up to eight, with ±20% spread", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffMs(n, mid))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(1, () => 0)).toBe(200);
    expect(backoffMs(1, () => 1)).toBeCloseTo(300, 9);
  });
});
