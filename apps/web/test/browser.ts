// What every browser test of the pages shares (docs/web.md#tests): the Chromium this machine has
// (vitest's global setup finds it; CI requires it), and axe-core's WCAG 2.0–2.2 A and AA rules run
// on a page.
import { createRequire } from "node:module";
import type AxeCore from "axe-core";
import { type Browser, type Page, chromium } from "playwright-core";
import { inject } from "vitest";

declare global {
  interface Window {
    axe: typeof AxeCore;
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    chromiumPath: string | undefined;
    requireBrowser: boolean;
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
