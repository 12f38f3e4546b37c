// What every browser test of the pages shares (docs/web.md#tests): the Chromium this machine has
// (vitest's global setup finds it; CI requires it), and axe-core's WCAG 2.0–2.2 A and AA rules run
// on a page.
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type AxeCore from "axe-core";
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

declare global {
  interface Window {
    axe: typeof AxeCore;
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    chromiumPath: string | undefined;
    requireBrowser: boolean;
    docsScreenshots: boolean;
  }
}

/** Debian's Chromium, or undefined when it is not installed (then the browser tests are skipped). */
export const chromiumPath = inject("chromiumPath");
if (!chromiumPath && inject("requireBrowser")) throw new Error("Chromium is required in CI (apt-get install chromium)");
if (!chromiumPath) console.warn("Chromium not installed (apt-get install chromium): the browser tests are skipped");

const axeScript = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** Chromium, headless, as the tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
}

let shared: Promise<Browser> | undefined;

/**
 * One Chromium for every browser file a worker process runs (`isolate: false` keeps this module
 * between files, docs/testing.md#speed): each file and test works in contexts of its own (own
 * cookies, storage, viewport), which is all a separate browser gave it. Playwright ends it when the
 * worker exits; a crashed one is launched again by the next file.
 */
export function sharedChromium(): Promise<Browser> {
  shared ??= launchChromium().then((browser) => {
    browser.on("disconnected", () => {
      shared = undefined;
    });
    return browser;
  });
  return shared;
}

/** How the pages are seen in the tests unless a test says otherwise: a phone in New York, British English. */
const phoneInNewYork: BrowserContextOptions = {
  timezoneId: "America/New_York",
  viewport: { width: 390, height: 844 },
  locale: "en-GB",
};

/** A user the test signs in by their token (the `access_token` cookie). */
interface SignedIn {
  token: string;
}

export interface BrowserPages {
  /** The file's server, as the browser reaches it (`http://127.0.0.1:port`). */
  readonly base: string;
  /** A new context (cookies of its own), phone-size in New York unless `options` say otherwise, `user` signed in. */
  context(user?: SignedIn, options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a new context (as `context`), at `path` of the file's server when given. */
  page(user?: SignedIn, path?: string, options?: BrowserContextOptions): Promise<Page>;
}

/**
 * What every browser file with a server of its own repeated: the server listening on a free port
 * of 127.0.0.1 before the file's tests, the worker's shared Chromium, and the file's contexts
 * closed after them. Call it after `useTestApp` (its hooks run after the app is built).
 */
export function useBrowserPages(t: {
  readonly app: { listen(options: { port: number; host: string }): Promise<string> };
}): BrowserPages {
  let base = "";
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const context = async (user?: SignedIn, options: BrowserContextOptions = {}) => {
    if (!browser) throw new Error("no browser: useBrowserPages' beforeAll has not run");
    const created = await browser.newContext({ ...phoneInNewYork, ...options });
    contexts.push(created);
    if (user) await created.addCookies([{ name: "access_token", value: user.token, url: base }]);
    return created;
  };
  return {
    get base() {
      return base;
    },
    context,
    async page(user, path, options) {
      const page = await (await context(user, options)).newPage();
      if (path !== undefined) await page.goto(`${base}${path}`);
      return page;
    },
  };
}

/** axe-core's WCAG 2.0–2.2 level A and AA rules on the page as it is now: the violations, readable. */
export async function axeViolations(page: Page, name: string): Promise<string[]> {
  await page.addScriptTag({ path: axeScript });
  const result = await page.evaluate(async () => {
    const run = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"] },
    });
    return {
      passes: run.passes.length,
      violations: run.violations.map(
        (v) => `${v.id} (${v.impact ?? "?"}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
      ),
    };
  });
  console.log(`axe, ${name}: ${String(result.passes)} rules pass, ${String(result.violations.length)} violations`);
  return result.violations;
}

const testResults = fileURLToPath(new URL("../test-results/", import.meta.url));
const docsImages = fileURLToPath(new URL("../../../docs/img/", import.meta.url));
const docsScreenshots = inject("docsScreenshots");

/**
 * A full-page screenshot to apps/web/test-results/`name`.png; with `docs: true` also, at desktop
 * width, to docs/img/ when the run regenerates the docs' images (`npm run docs:screenshots` in apps/web,
 * i.e. DOCS_SCREENSHOTS=1), so a reader can make the pictures docs/web.md shows again.
 */
export async function screenshot(page: Page, name: string, options: { docs?: boolean } = {}): Promise<void> {
  await mkdir(testResults, { recursive: true });
  await page.screenshot({ path: `${testResults}${name}.png`, fullPage: true });
  if (options.docs && docsScreenshots) {
    // The docs show a desktop-width page (the tests run phone-size); the test's size is restored after.
    const size = page.viewportSize();
    await mkdir(docsImages, { recursive: true });
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.screenshot({ path: `${docsImages}${name}.png`, fullPage: true });
    if (size) await page.setViewportSize(size);
  }
}
