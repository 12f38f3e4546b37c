import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { sharedTest } from "../../vitest.shared.ts";

// Browser tests drive Debian's Chromium through playwright-core (no browser download). CI installs
// it when missing and requires it; elsewhere a machine without it skips them with a warning.
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));

export default defineConfig({
  test: {
    ...sharedTest,
    // A journey of 20–30 s on an idle machine took over 60 s in CI, two files at a time beside the
    // other packages' suites (a timeout, not a failure of the page): twice the headroom. A page that
    // hangs still fails, at its first waitFor's own timeout.
    testTimeout: 120_000,
    // Two files at a time: a browser file waits on its page, its server and Chromium's processes
    // for much of its time, so one at a time left the two cores half idle (docs/testing.md#speed);
    // each file has its own server and database, and each worker one Chromium (test/browser.ts).
    maxWorkers: 2,
    // DOCS_SCREENSHOTS=1 (`npm run docs:screenshots` in apps/web) also writes the screenshots the
    // docs show to docs/img/ (test/browser.ts `screenshot`).
    provide: {
      chromiumPath: chromium,
      requireBrowser: process.env.CI === "true",
      docsScreenshots: process.env.DOCS_SCREENSHOTS === "1",
    },
  },
});
