import { defineConfig } from "vitest/config";

// One browser, one linkaged and one gateway for the whole run; cases wait
// for the viewer's frames, which take seconds on a busy machine.
export default defineConfig({
  test: { include: ["*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
