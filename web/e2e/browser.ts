// Debian's Chromium, headless, in a profile of its own that is deleted
// afterwards: no downloaded browser, nothing shared with a user's profile.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";

const args = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  // Playwright takes the profile directory as a parameter, not as
  // --user-data-dir, and passes it to Chromium as that flag.
  const profile = await mkdtemp(join(tmpdir(), "linkage-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
