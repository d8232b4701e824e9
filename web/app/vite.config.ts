import { defineConfig } from "vitest/config";

// The gateway `npm run dev` talks to: it serves the linkage.v1 services and
// the scenes, so the dev server only has to proxy those paths to it.
const gateway = process.env.LINKAGE_GATEWAY ?? "http://127.0.0.1:8080";

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  server: {
    proxy: {
      "/linkage.v1.": { target: gateway, changeOrigin: true },
      "/scenes": { target: gateway, changeOrigin: true },
    },
  },
  test: { include: ["test/**/*.test.ts"], environment: "node" },
});
