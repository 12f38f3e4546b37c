// Providers' own calendars on the front desk (CONTRACT §18) in a real browser against a real server
// whose own workers sync the calendars: a clinic admin opens a provider's calendars from the
// column header, is told under the field why a URL is refused, adds an ICS calendar served by a
// local HTTP server (first unreadable, so the status says so with its error), syncs it now and sees
// it turn "Synced"; the day view shows the event's time as "busy (calendar)", not bookable; STAFF
// may look but finds no controls, a provider manages their own calendars only; removing the
// calendar frees the time again. axe-core: no A/AA violation.
import { mkdir } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, useBrowserPages } from "./browser.ts";
import { addHours, addMember, addProvider, addService, createClinic, type TestUser } from "@clinic/api/testing";
import { calendars } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { instantAt } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
/** Tomorrow in the clinic's zone: every weekday is open, so any date works. */
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

/** An instant in iCalendar's UTC form: 20261125T130000Z. */
const icsTime = (instant: Date) =>
  instant
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
/** Anna's private appointment, 14:00–15:00 clinic time on `day`: its title must never reach the desk. */
const annasCalendar = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//clinic web test//EN",
  "BEGIN:VEVENT",
  `UID:web-test-${crypto.randomUUID()}`,
  "DTSTAMP:20260101T000000Z",
  `DTSTART:${icsTime(instantAt(day, 14 * 60, timeZone))}`,
  `DTEND:${icsTime(instantAt(day, 15 * 60, timeZone))}`,
  "SUMMARY:Dentist (private)",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

/** The calendar server: unreadable (503) until the test says otherwise. */
let calendarReady = false;
const calendarServer: Server = createServer((request, response) => {
  if (!calendarReady) {
    response.writeHead(503, { "content-type": "text/plain" });
    response.end("not yet");
    return;
  }
  response.writeHead(200, { "content-type": "text/calendar; charset=utf-8" });
  response.end(annasCalendar);
});
await new Promise<void>((resolve) => calendarServer.listen(0, "127.0.0.1", resolve));
const calendarUrl = `http://127.0.0.1:${String((calendarServer.address() as AddressInfo).port)}/anna.ics`;
afterAll(async () => {
  calendarServer.closeAllConnections();
  await new Promise((resolve) => calendarServer.close(resolve));
});

describe.skipIf(!chromiumPath)("providers' own calendars on the front desk in Chromium", () => {
  const t = useTestApp(
    {
      web: { distDir: dist },
      // The workers sync the calendars (K1 and K4 make a sync due at once).
      workers: true,
      config: {
        allowedOrigins: [],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
        jobPollIntervalMs: 200,
        // The calendar lives on this machine: private addresses allowed, as in development (§10).
        webhooks: { allowPrivate: true, retryDelaysS: [5, 30] },
        calendars: { key: undefined, syncIntervalS: 300, staleAfterS: 3600 },
      },
    },
    // Its workers sync its calendars only: not another test file's (a shared database on PostgreSQL).
    { ownDatabase: "clinic_web_calendars" },
  );
  const pages = useBrowserPages(t);
  let clinicId = "";
  let admin: TestUser;
  let staff: TestUser;
  let anna: TestUser;

  beforeAll(async () => {
    const db = t.handle.db;
    clinicId = await createClinic(db, { timezone: timeZone, name: "Praxis Kalender" });
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const ben = await addProvider(db, clinicId, "Ben Koch");
    await addHours(db, clinicId, ben.id, all, "09:00", "17:00");
    // Any of the clinic's providers gives it (no provider of its own).
    await addService(db, clinicId, { name: "Check-up", durationMin: 30 });
    admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    await mkdir(shots, { recursive: true });
  });

  /** A phone-size desk of a user in New York (the clinic is in Berlin), signed in by cookie, on `day`. */
  function deskAs(user: TestUser): Promise<Page> {
    return pages.page(user, `/desk/${clinicId}?date=${day}`);
  }

  /** The focused element's accessible name as the test reads it: aria-label, else its text. */
  const focused = (page: Page) =>
    page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent);

  it("adds an ICS calendar, syncs it, shows its busy time as not bookable, and removes it", async () => {
    const desk = await deskAs(admin);
    const cell = (time: string) => desk.locator(`[data-cell="Anna Berg ${time}"]`);
    await desk.getByRole("button", { name: "Book Anna Berg at 14:00" }).waitFor();

    // The column header opens Anna's calendars: a modal dialog, focus on its heading.
    await desk.getByRole("button", { name: "Calendars of Anna Berg" }).click();
    const dialog = desk.getByRole("dialog", { name: "Calendars of Anna Berg" });
    await dialog.getByText("No calendars connected.").waitFor();
    await dialog.getByRole("heading", { name: "Add a calendar" }).waitFor();
    expect(await focused(desk)).toBe("Calendars of Anna Berg");
    // An ICS calendar takes no credentials and cannot be written to: those fields are CalDAV's only.
    expect(await dialog.getByLabel("Password").count()).toBe(0);
    await dialog.getByLabel("Kind").selectOption("caldav");
    expect(await dialog.getByLabel("Password").getAttribute("type")).toBe("password");
    await dialog.getByLabel("User name").waitFor();
    await dialog.getByLabel(/Write this provider's appointments/).waitFor();
    expect(await axeViolations(desk, "desk, calendars dialog (CalDAV form)")).toEqual([]);
    await dialog.getByLabel("Kind").selectOption("ics");
    expect(await dialog.getByLabel("Password").count()).toBe(0);
    expect(await dialog.getByLabel(/Write this provider's appointments/).count()).toBe(0);

    // A URL the API refuses: the reason sits under the field, tied to it, and the field has the focus.
    const url = dialog.getByLabel("URL");
    await url.fill("ftp://calendar.example/anna.ics");
    await dialog.getByRole("button", { name: "Add calendar" }).click();
    await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await url.getAttribute("aria-describedby")) ?? "";
    const errorId = describedBy.split(" ").find((id) => id.endsWith("-url-error")) ?? "";
    expect(await desk.locator(`[id="${errorId}"]`).textContent()).toMatch(/^URL must be an http\(s\) URL/);
    expect(await url.evaluate((input) => input === document.activeElement)).toBe(true);
    await dialog.getByTestId("calendar-form-error").getByText("Please check the marked entries.").waitFor();
    await desk.screenshot({ path: `${shots}desk-calendars-error.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, calendars dialog, a refused URL")).toEqual([]);

    // The calendar's server cannot answer yet: the first sync (at once, by the workers) says so.
    await url.fill(calendarUrl);
    await dialog.getByLabel("Name (optional)").fill("Anna private");
    await dialog.getByRole("button", { name: "Add calendar" }).click();
    await dialog
      .getByTestId("calendars-notice")
      .getByText("Added Anna private: its first sync is under way.")
      .waitFor();
    const item = dialog.getByTestId("calendar").filter({ hasText: "Anna private" });
    const status = item.getByTestId("calendar-status");
    await expect.poll(() => status.getAttribute("data-status"), { timeout: 20_000 }).toBe("error");
    const failed = (await status.textContent()) ?? "";
    console.log(`calendar status after a failed sync: ${failed}`);
    expect(failed).toMatch(/^! Could not be read: \S/);
    expect(await item.textContent()).toContain(calendarUrl);
    expect(await item.textContent()).toContain("ICS link (read only)");
    expect(await item.getByTestId("calendar-busy-count").textContent()).toBe("0");
    // The password is never answered; the row keeps only the URL as shown.
    const [row] = await t.handle.db.select().from(calendars).where(eq(calendars.clinicId, clinicId));
    expect(row?.shownUrl).toBe(calendarUrl);

    // Now the server answers: "Sync now" makes it Synced, with its busy time counted.
    calendarReady = true;
    await item.getByRole("button", { name: "Sync now: Anna private" }).click();
    await expect.poll(() => status.getAttribute("data-status"), { timeout: 20_000 }).toBe("ok");
    await expect.poll(() => item.getByTestId("calendar-busy-count").textContent()).toBe("1");
    await expect.poll(() => status.textContent()).toBe("✓ Synced");
    // Last sync in the clinic's zone (the page runs in New York).
    expect(await item.textContent()).toMatch(/Last sync\d{1,2} \w{3} \d{4}, \d\d:\d\d \(Europe\/Berlin\)/);
    await desk.screenshot({ path: `${shots}desk-calendars.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, calendars dialog, synced")).toEqual([]);

    // Escape closes the dialog and gives the focus back to the header's button.
    await desk.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await focused(desk)).toBe("Calendars of Anna Berg");

    // The day view: 14:00–15:00 is "busy (calendar)", one block of two rows, no details, not bookable.
    const busy = cell("14:00");
    await busy.getByRole("button", { name: "busy (calendar): Anna Berg, 14:00–15:00" }).waitFor();
    expect(await busy.getAttribute("rowspan")).toBe("2");
    expect(await busy.textContent()).toBe("busy (calendar)");
    expect(await desk.getByText(/Dentist/).count()).toBe(0);
    expect(await desk.getByRole("button", { name: "Book Anna Berg at 14:00" }).count()).toBe(0);
    expect(await desk.getByRole("button", { name: "Book Anna Berg at 14:30" }).count()).toBe(0);
    await desk.getByRole("button", { name: "Book Anna Berg at 13:30" }).waitFor();
    await desk.getByRole("button", { name: "Book Anna Berg at 15:00" }).waitFor();
    // Ben's calendar is his own: his 14:00 is free.
    await desk.getByRole("button", { name: "Book Ben Koch at 14:00" }).waitFor();
    await busy.getByRole("button").click();
    expect(await desk.getByTestId("why").textContent()).toBe(
      "Anna Berg, 14:00–15:00: busy in their own calendar (the desk sees the times only).",
    );
    await desk.screenshot({ path: `${shots}desk-calendar-busy.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, busy time from a calendar")).toEqual([]);

    // STAFF see the busy time and the calendars, but no control to change them.
    const staffDesk = await deskAs(staff);
    await staffDesk
      .locator('[data-cell="Anna Berg 14:00"]')
      .getByRole("button", { name: /^busy \(calendar\)/ })
      .waitFor();
    await staffDesk.getByRole("button", { name: "Calendars of Anna Berg" }).click();
    const staffDialog = staffDesk.getByRole("dialog", { name: "Calendars of Anna Berg" });
    await staffDialog.getByText(/^You can see these calendars; only a clinic admin or Anna Berg can/).waitFor();
    await staffDialog.getByTestId("calendar").filter({ hasText: "Anna private" }).getByText("Synced").waitFor();
    expect(await staffDialog.getByRole("button", { name: /^(Sync now|Remove)/ }).count()).toBe(0);
    expect(await staffDialog.getByRole("heading", { name: "Add a calendar" }).count()).toBe(0);
    expect(await axeViolations(staffDesk, "desk, calendars dialog, read only")).toEqual([]);
    await staffDialog.getByRole("button", { name: "Close" }).click();
    await staffDialog.waitFor({ state: "detached" });

    // A provider manages their own calendars, and only looks at a colleague's.
    const annaDesk = await deskAs(anna);
    await annaDesk.getByRole("button", { name: "Calendars of Anna Berg" }).click();
    const own = annaDesk.getByRole("dialog", { name: "Calendars of Anna Berg" });
    await own.getByRole("button", { name: "Sync now: Anna private" }).waitFor();
    await own.getByRole("heading", { name: "Add a calendar" }).waitFor();
    await own.getByRole("button", { name: "Close" }).click();
    await own.waitFor({ state: "detached" });
    await annaDesk.getByRole("button", { name: "Calendars of Ben Koch" }).click();
    const colleague = annaDesk.getByRole("dialog", { name: "Calendars of Ben Koch" });
    await colleague.getByText(/^You can see these calendars/).waitFor();
    expect(await colleague.getByRole("heading", { name: "Add a calendar" }).count()).toBe(0);

    // Remove asks first (focus on "Keep it"); once removed, 14:00 is bookable again.
    await desk.getByRole("button", { name: "Calendars of Anna Berg" }).click();
    await dialog.getByRole("button", { name: "Remove Anna private" }).click();
    await dialog.getByText("Remove Anna private? Its busy time stops blocking Anna Berg at once.").waitFor();
    expect(await focused(desk)).toBe("Keep it");
    await desk.keyboard.press("Enter");
    await expect.poll(() => focused(desk)).toBe("Remove Anna private");
    await dialog.getByRole("button", { name: "Remove Anna private" }).click();
    await dialog.getByRole("button", { name: "Yes, remove" }).click();
    await dialog.getByTestId("calendars-notice").getByText("Removed Anna private.").waitFor();
    await dialog.getByText("No calendars connected.").waitFor();
    expect(await focused(desk)).toBe("Calendars of Anna Berg");
    expect(await t.handle.db.select().from(calendars).where(eq(calendars.clinicId, clinicId))).toEqual([]);
    await dialog.getByRole("button", { name: "Close" }).click();
    await desk.getByRole("button", { name: "Book Anna Berg at 14:00" }).waitFor();
    expect(await cell("14:00").getAttribute("data-busy")).toBeNull();
  });
});
