import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { sharedTest } from "../../vitest.shared.ts";

// Browser tests drive Debian's Chromium through playwright-core (no browser download). CI installs
// it when missing and requires it; elsewhere a machine without it skips them with a warning.
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));

export default defineConfig({
  test: {
    ...sharedTest,
    testTimeout: 60_000,
    provide: { chromiumPath: chromium, requireBrowser: process.env.CI === "true" },
  },
});
