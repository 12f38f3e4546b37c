// The reference pages in a real browser (Debian's Chromium through playwright-core) against a real
// server on this run's database: a patient books end to end, the front desk sees and cancels it,
// a cell that cannot be booked says why, and two patients racing for one slot get one
// confirmation and one "just taken". Screenshots go to apps/web/test-results/.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  createClinic,
  createUser,
  type TestUser,
} from "@clinic/api/testing";
import { clinics, closures } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";

declare module "vitest" {
  export interface ProvidedContext {
    chromiumPath: string | undefined;
    requireBrowser: boolean;
  }
}

const chromiumPath = inject("chromiumPath");
const requireBrowser = inject("requireBrowser");
if (!chromiumPath && requireBrowser) throw new Error("Chromium is required in CI (apt-get install chromium)");
if (!chromiumPath) console.warn("Chromium not installed (apt-get install chromium): the browser tests are skipped");

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
/** Tomorrow in the clinic's zone: every weekday is open, so any date works. */
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

describe.skipIf(!chromiumPath)("the booking page and the front desk in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  let base = "";
  let browser: Browser | undefined;
  let clinicId = "";
  let staff: TestUser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const db = t.handle.db;
    clinicId = await createClinic(db, { timezone: timeZone, name: "Praxis Browser" });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    const all = [1, 2, 3, 4, 5, 6, 7];
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    await addService(db, clinicId, { name: "Deep Tissue Massage", durationMin: 30, providerId: anna.id });
    await addService(db, clinicId, { name: "Physiotherapy Assessment", durationMin: 30, providerId: anna.id });
    // Anna's lunch break, shown as closed on the desk.
    const noon = (hh: string) => new Date(new Date(`${day}T${hh}:00Z`).getTime() - berlinOffsetMs(day));
    await db.insert(closures).values({
      clinicId,
      scope: "provider",
      providerId: anna.id,
      startsAt: noon("12:00"),
      endsAt: noon("13:00"),
      reason: "Lunch",
    });
    staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
    await mkdir(shots, { recursive: true });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A phone-size page of a user in New York (the clinic is in Berlin), signed in by cookie. */
  async function pageAs(user: TestUser, path: string): Promise<Page> {
    if (!browser) throw new Error("no browser");
    const context = await browser.newContext({
      timezoneId: "America/New_York",
      viewport: { width: 390, height: 844 },
      locale: "en-GB",
    });
    contexts.push(context);
    await context.addCookies([{ name: "access_token", value: user.token, url: base }]);
    const page = await context.newPage();
    await page.goto(`${base}${path}`);
    return page;
  }

  /** Chooses the service (through the forgiving search), the date and a time, and fills the name. */
  async function chooseSlot(page: Page, time: string, name: string) {
    await page.getByLabel("Search services").fill("deep tisue");
    await page.getByRole("radio", { name: /Deep Tissue Massage/ }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    await page.getByRole("button", { name: new RegExp(`^${time}`) }).click();
    await page.getByLabel("Name").fill(name);
  }

  it("lets a patient book and see it; the desk shows it, explains a closed cell, and cancel frees the cell", async () => {
    const patient = await createUser(t.handle.db);
    const page = await pageAs(patient, `/book/${clinicId}`);
    await page.getByRole("heading", { name: "Book at Praxis Browser" }).waitFor();
    // Clinic time first, the visitor's own zone beside it (10:00 in Berlin is 04:00 or 05:00 in New York).
    expect(await page.getByText(/with yours \(America\/New_York\)/).count()).toBe(1);
    await chooseSlot(page, "10:00", "Pat Browser");
    expect(await page.getByRole("button", { name: /^10:00/ }).textContent()).toMatch(/^10:00 \(0[45]:00 your time\)$/);
    await page.getByRole("button", { name: /^Book 10:00/ }).click();
    await page.getByText(/^Booked: Deep Tissue Massage with Anna Berg/).waitFor();
    await page.getByTestId("my-appointment").filter({ hasText: "Deep Tissue Massage" }).waitFor();
    // The booked time leaves the free times (once the refreshed list arrives).
    await page.getByRole("button", { name: /^10:00/ }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: /^10:30/ }).waitFor();
    await page.screenshot({ path: `${shots}booking.png`, fullPage: true });

    const desk = await pageAs(staff, `/desk/${clinicId}?date=${day}`);
    const cell = desk.locator('[data-cell="Anna Berg 10:00"]');
    await cell.getByText("Pat Browser, Deep Tissue Massage").waitFor();
    await desk.locator('[data-cell="Anna Berg 12:00"]').getByText("Lunch").waitFor();
    // 08:00 is inside the clinic's hours but before Anna's: the desk says why.
    await desk.getByRole("button", { name: "Why is Anna Berg at 08:00 not bookable?" }).click();
    await desk
      .getByTestId("why")
      .getByText(/^08:00: /)
      .waitFor();
    const why = (await desk.getByTestId("why").textContent()) ?? "";
    console.log(`desk, why not 08:00: ${why}`);
    expect(why).not.toContain("is bookable");
    await desk.screenshot({ path: `${shots}desk.png`, fullPage: true });

    await desk.getByRole("button", { name: "Cancel Pat Browser at 10:00" }).click();
    await cell.getByRole("button", { name: "Book Anna Berg at 10:00" }).waitFor();
    // A walk-in in the freed cell.
    await cell.getByRole("button", { name: "Book Anna Berg at 10:00" }).click();
    await desk.getByLabel("Patient name").fill("Walk In");
    await desk.getByRole("button", { name: "Book walk-in" }).click();
    await cell.getByText("Walk In, Deep Tissue Massage").waitFor();
  });

  it("gives one of two patients racing for one slot the booking, and the other a 'just taken' and fresh times", async () => {
    const racers = await Promise.all([createUser(t.handle.db), createUser(t.handle.db)]);
    const pages = await Promise.all(racers.map((racer) => pageAs(racer, `/book/${clinicId}`)));
    for (const [i, page] of pages.entries()) await chooseSlot(page, "14:00", `Racer ${String(i)}`);
    await Promise.all(pages.map((page) => page.getByRole("button", { name: /^Book 14:00/ }).click()));
    const outcomes = await Promise.all(
      pages.map(async (page) => {
        const settled = page.locator(".confirmation, .problem");
        await settled.first().waitFor();
        return (await settled.first().textContent()) ?? "";
      }),
    );
    expect(outcomes.filter((o) => o.startsWith("Booked:"))).toHaveLength(1);
    expect(outcomes.filter((o) => o.includes("just taken"))).toHaveLength(1);
    const loser = pages[outcomes.findIndex((o) => o.includes("just taken"))];
    if (!loser) throw new Error("no loser");
    // The loser's list is refreshed: 14:00 goes (the old list shows until the new one arrives),
    // 14:30 stays.
    await loser.getByRole("button", { name: /^14:00/ }).waitFor({ state: "detached" });
    await loser.getByRole("button", { name: /^14:30/ }).waitFor();
    await loser.screenshot({ path: `${shots}race-just-taken.png`, fullPage: true });
  });
});

/** Berlin's UTC offset on a date at noon, in ms (for building the lunch closure). */
function berlinOffsetMs(date: string): number {
  const noon = new Date(`${date}T12:00:00Z`);
  const shown = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(noon);
  return (Number(shown) - 12) * 3_600_000;
}
