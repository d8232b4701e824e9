import { defineConfig } from "vitest/config";

// Integration tests start real servers; a start-up or a stream can take seconds.
export default defineConfig({
  test: { testTimeout: 20_000, hookTimeout: 20_000 },
});
