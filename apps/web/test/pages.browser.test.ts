// The reference pages in a real browser (Debian's Chromium through playwright-core) against a real
// server on this run's database: a patient books end to end, the front desk sees and cancels it,
// a cell that cannot be booked says why (on hover, focus or click), the search finds it, the desk
// opens on the clinic's next open day after closing, with a now-line on today, and two patients
// racing for one slot get one confirmation and one "just taken". Every page passes axe-core's
// WCAG 2.x A and AA rules. Screenshots go to apps/web/test-results/.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, useBrowserPages } from "./browser.ts";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  callerFor,
  createClinic,
  createUser,
  type TestUser,
} from "@clinic/api/testing";
import { appointments, clinics, closures, services } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { addDays } from "../src/deskDay.ts";
import { dateIn, instantAt, timeIn } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
/** Tomorrow in the clinic's zone: every weekday is open, so any date works. */
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

describe.skipIf(!chromiumPath)("the booking page and the front desk in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);
  let clinicId = "";
  let staff: TestUser;

  beforeAll(async () => {
    const db = t.handle.db;
    clinicId = await createClinic(db, { timezone: timeZone, name: "Praxis Browser" });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    const all = [1, 2, 3, 4, 5, 6, 7];
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const massage = await addService(db, clinicId, {
      name: "Deep Tissue Massage",
      durationMin: 30,
      providerId: anna.id,
    });
    await addService(db, clinicId, { name: "Physiotherapy Assessment", durationMin: 30, providerId: anna.id });
    // The massage needs a treatment room (§14): the clinic has one, closed 15:00–15:30 for cleaning.
    const admin = callerFor(db, await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" }));
    const room = await admin.resources.create({ clinic_id: clinicId, name: "Room 1", kind: "treatment_room" });
    await admin.services.update({ clinic_id: clinicId, id: massage, required_resource_kinds: ["treatment_room"] });
    await admin.resources.createClosure({
      clinic_id: clinicId,
      id: room.id,
      starts_at: instantAt(day, 15 * 60, timeZone),
      ends_at: instantAt(day, 15 * 60 + 30, timeZone),
      reason: "Cleaning",
    });
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
    await mkdir(shots, { recursive: true });
  });

  /** A phone-size page of a user in New York (the clinic is in Berlin), signed in by cookie. */
  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path);
  }

  /** Chooses the service (through the forgiving search), the date and a time, and fills the name. */
  async function chooseSlot(page: Page, time: string, name: string, phone?: string) {
    await page.getByLabel("Search services").fill("deep tisue");
    await page.getByRole("radio", { name: /Deep Tissue Massage/ }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    await page.getByRole("button", { name: new RegExp(`^${time}`) }).click();
    await page
      .getByTestId("hold")
      .getByText(new RegExp(`^We keep ${time} `))
      .waitFor();
    await page.getByLabel("Name").fill(name);
    if (phone) await page.getByLabel(/^Phone/).fill(phone);
  }

  /** How many appointments of a clinic are held right now. */
  async function heldCount(clinic: string): Promise<number> {
    const rows = await t.handle.db
      .select({ id: appointments.id })
      .from(appointments)
      .where(and(eq(appointments.clinicId, clinic), eq(appointments.status, "held")));
    return rows.length;
  }

  /** The accessible name of the focused element. */
  const focused = (page: Page) =>
    page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent);

  it("lets a patient book and see it; the desk shows it, explains a quiet cell, finds it, and cancel frees the cell", async () => {
    const patient = await createUser(t.handle.db);
    const page = await pageAs(patient, `/book/${clinicId}`);
    await page.getByRole("heading", { name: "Book at Praxis Browser" }).waitFor();
    // Clinic time first, the visitor's own zone beside it (10:00 in Berlin is 04:00 or 05:00 in New York).
    expect(await page.getByText(/with yours \(America\/New_York\)/).count()).toBe(1);
    // Picking 10:30 holds it; going back releases the hold (its time is free again at once).
    await page.getByLabel("Search services").fill("deep tisue");
    await page.getByRole("radio", { name: /Deep Tissue Massage/ }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    await page.getByRole("button", { name: /^10:30/ }).click();
    await page
      .getByTestId("hold")
      .getByText(/^We keep 10:30 /)
      .waitFor();
    expect(await heldCount(clinicId)).toBe(1);
    await page.getByRole("button", { name: "Choose another time" }).click();
    await expect.poll(() => heldCount(clinicId)).toBe(0);
    await chooseSlot(page, "10:00", "Pat Browser", "+4915112345678");
    // The hold says how long the time is kept (the clinic's hold_minutes, 10 by default).
    expect(await page.getByTestId("hold").textContent()).toMatch(/for (10|9) minutes \(until \d\d:\d\d clinic time\)/);
    expect(await heldCount(clinicId)).toBe(1);
    await page.screenshot({ path: `${shots}booking-hold.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, time held")).toEqual([]);
    await page.getByRole("button", { name: /^Book 10:00/ }).click();
    await page.getByText(/^Booked: Deep Tissue Massage with Anna Berg/).waitFor();
    // The hold became the booking (book with hold_id): nothing is left held.
    expect(await heldCount(clinicId)).toBe(0);
    await page.getByTestId("my-appointment").filter({ hasText: "Deep Tissue Massage" }).waitFor();
    // The booked time leaves the free times (once the refreshed list arrives).
    await page.getByRole("button", { name: /^10:00/ }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: /^10:30/ }).waitFor();
    await page.screenshot({ path: `${shots}booking.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, booked")).toEqual([]);
    // Moving one of "my appointments" offers the month view of its provider's free days.
    const mine = page.getByTestId("my-appointment").filter({ hasText: "Deep Tissue Massage" });
    await mine.getByRole("button", { name: "Move" }).click();
    await mine.getByTestId("month-view").locator(`[data-date="${day}"].has-times`).waitFor();
    expect(await axeViolations(page, "booking page, moving with the month view")).toEqual([]);

    const desk = await pageAs(staff, `/desk/${clinicId}?date=${day}`);
    const cell = desk.locator('[data-cell="Anna Berg 10:00"]');
    await cell.getByText("Pat Browser, Deep Tissue Massage").waitFor();
    // The room it holds, under the patient's name, labelled for screen readers and in its tooltip.
    const rooms = cell.getByTestId("appt-resources");
    expect(await rooms.textContent()).toBe("Room: Room 1");
    expect(await rooms.getAttribute("title")).toBe("Room: Room 1");
    // The status is a word and a symbol on the card, not only its colour.
    expect(await cell.locator(".appt").getAttribute("data-status")).toBe("booked");
    await cell.locator(".badge").getByText("Booked").waitFor();
    await desk.locator('[data-cell="Anna Berg 12:00"]').getByText("Lunch").waitFor();
    // Cells that cannot be booked are quiet: no "why?" printed anywhere.
    await desk.getByRole("button", { name: "Book Anna Berg at 09:00" }).waitFor();
    expect(await desk.getByText("why?").count()).toBe(0);
    // 08:00 is inside the clinic's hours but before Anna's: hovering shows why, as a tooltip.
    await desk.locator('[data-cell="Anna Berg 08:00"]').hover();
    const tip = desk.getByRole("tooltip");
    await tip.getByText(/\w/).first().waitFor();
    await expect.poll(() => tip.textContent()).not.toContain("Checking");
    console.log(`desk, tooltip of 08:00: ${(await tip.textContent()) ?? ""}`);
    await desk.screenshot({ path: `${shots}desk-tooltip.png`, fullPage: true });
    await desk.mouse.move(0, 0);
    await tip.waitFor({ state: "detached" });
    // Focus shows it too, tied to the cell by aria-describedby; a click pins the reason.
    const why08 = desk.getByRole("button", { name: "Why is Anna Berg at 08:00 not bookable?" });
    await why08.focus();
    await expect.poll(() => why08.getAttribute("aria-describedby")).toBe("desk-tip");
    await desk.getByRole("tooltip").waitFor();
    await why08.click();
    await desk
      .getByTestId("why")
      .getByText(/^08:00: /)
      .waitFor();
    const why = (await desk.getByTestId("why").textContent()) ?? "";
    console.log(`desk, why not 08:00: ${why}`);
    expect(why).not.toContain("is bookable");
    // The keyboard: one tab stop in the grid, arrows move between cells, into the free 09:00.
    expect(await desk.locator("table.day button[tabindex='0']").count()).toBe(1);
    await desk.keyboard.press("ArrowDown");
    expect(await focused(desk)).toBe("Why is Anna Berg at 08:30 not bookable?");
    await desk.keyboard.press("ArrowDown");
    expect(await focused(desk)).toBe("Book Anna Berg at 09:00");
    await desk.keyboard.press("ArrowUp");
    expect(await focused(desk)).toBe("Why is Anna Berg at 08:30 not bookable?");
    // 15:00 is in Anna's hours, but the only treatment room is closed then (RESOURCE_UNAVAILABLE).
    await desk.getByRole("button", { name: "Why is Anna Berg at 15:00 not bookable?" }).click();
    await desk
      .getByTestId("why")
      .getByText(/^15:00: no treatment_room is free/)
      .waitFor();
    await desk.screenshot({ path: `${shots}desk.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, day with a booking")).toEqual([]);

    // The search finds the appointment by name or phone from another day, and shows its day.
    await desk.getByRole("button", { name: "Previous day" }).click();
    const search = desk.getByRole("searchbox", { name: /Find an appointment/ });
    await search.fill("pat brow");
    await desk.getByTestId("search-result").filter({ hasText: "Pat Browser" }).waitFor();
    await search.fill("1511234");
    const found = desk.getByTestId("search-result").filter({ hasText: "Pat Browser" });
    await found.waitFor();
    expect(await found.textContent()).toContain("+4915112345678");
    await desk.screenshot({ path: `${shots}desk-search.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, search results")).toEqual([]);
    await found.getByRole("button").click();
    await expect.poll(() => desk.getByLabel("Day", { exact: true }).inputValue()).toBe(day);
    // Its card's first button has the focus ("Check in …" within 24 hours of the start, else "Cancel …").
    await expect.poll(() => focused(desk)).toMatch(/^(Check in|Cancel) Pat Browser at 10:00$/);

    await desk.getByRole("button", { name: "Cancel Pat Browser at 10:00" }).click();
    await cell.getByRole("button", { name: "Book Anna Berg at 10:00" }).waitFor();
    // A walk-in in the freed cell.
    await cell.getByRole("button", { name: "Book Anna Berg at 10:00" }).click();
    await desk.getByLabel("Patient name").fill("Walk In");
    await desk.getByRole("button", { name: "Book walk-in" }).click();
    await cell.getByText("Walk In, Deep Tissue Massage").waitFor();
    expect(await cell.getByTestId("appt-resources").textContent()).toBe("Room: Room 1");
    // The canceled one is gone from the grid, and the search still finds it, marked canceled.
    await search.fill("Pat Browser");
    await desk.getByTestId("search-result").filter({ hasText: "Canceled" }).waitFor();
  });

  it("opens after closing on the next open day (past a clinic closure), and today has a now-line", async () => {
    const db = t.handle.db;
    // A zone where it is now between 02:00 and 22:00, so that 00:00–01:00 today is over.
    const zone = zoneInDaytime();
    const shutId = await createClinic(db, { timezone: zone, name: "Praxis Closed Early" });
    const all = [1, 2, 3, 4, 5, 6, 7];
    await addHours(db, shutId, null, all, "08:00", "18:00");
    const ben = await addProvider(db, shutId, "Ben Koch");
    await addHours(db, shutId, ben.id, all, "08:00", "18:00");
    await addService(db, shutId, { name: "Check-up", durationMin: 30, providerId: ben.id });
    const admin = await addMember(db, shutId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    const today = dateIn(new Date(), zone);
    // Today the clinic was open 00:00–01:00 only; tomorrow it is closed all day.
    await callerFor(db, admin).dateOverrides.putClinic({
      clinic_id: shutId,
      date: today,
      periods: [{ opens_at: "00:00", closes_at: "01:00" }],
    });
    await db.insert(closures).values({
      clinicId: shutId,
      scope: "clinic",
      providerId: null,
      startsAt: instantAt(addDays(today, 1), 0, zone),
      endsAt: instantAt(addDays(today, 2), 0, zone),
      reason: "Staff training",
    });
    const deskStaff = await addMember(db, shutId, { role: "STAFF", fullName: "Sam Staff" });

    const desk = await pageAs(deskStaff, `/desk/${shutId}`);
    await desk.getByTestId("next-open-day").waitFor();
    expect(await desk.getByLabel("Day", { exact: true }).inputValue()).toBe(addDays(today, 2));
    expect(await desk.getByTestId("next-open-day").textContent()).toContain("The clinic has closed for today");
    expect(await desk.getByTestId("now-line").count()).toBe(0);
    await desk.getByRole("button", { name: "Book Ben Koch at 08:00" }).waitFor();
    await desk.screenshot({ path: `${shots}desk-next-open-day.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, next open day")).toEqual([]);

    // The clinic closure is drawn across the grid the day before.
    await desk.getByRole("button", { name: "Previous day" }).click();
    await desk.locator('[data-cell="Ben Koch 08:00"]').getByText("Clinic closed: Staff training").waitFor();
    await desk.screenshot({ path: `${shots}desk-clinic-closure.png`, fullPage: true });

    // Today, on request, with the now-line (today's clinic hours are over; the grid still shows the provider's).
    await desk.getByRole("button", { name: "Today", exact: true }).click();
    await expect.poll(() => desk.getByLabel("Day", { exact: true }).inputValue()).toBe(today);
    await desk.getByTestId("now-line").waitFor();
    expect(await desk.getByTestId("now-line").textContent()).toMatch(/^now \d\d:\d\d$/);
    await desk.screenshot({ path: `${shots}desk-today-now-line.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, today with the now-line")).toEqual([]);
  });

  it("checks a patient in and completes the visit, and marks a no-show and takes it back, in one click each", async () => {
    const db = t.handle.db;
    const zone = zoneInDaytime();
    const nowId = await createClinic(db, { timezone: zone, name: "Praxis Now" });
    const all = [1, 2, 3, 4, 5, 6, 7];
    await addHours(db, nowId, null, all, "00:00", "24:00");
    const cara = await addProvider(db, nowId, "Cara Lind");
    await addHours(db, nowId, cara.id, all, "00:00", "24:00");
    const serviceId = await addService(db, nowId, { name: "Long Visit", durationMin: 60, providerId: cara.id });
    await db.update(services).set({ slotStepMin: 30 }).where(eq(services.id, serviceId));
    const deskStaff = await addMember(db, nowId, { role: "STAFF", fullName: "Sam Staff" });
    // One visit that began at the last half hour (so it can be a no-show), one an hour later.
    const halfHour = 30 * 60_000;
    const began = new Date(Math.floor(Date.now() / halfHour) * halfHour);
    const later = new Date(began.getTime() + 2 * halfHour);
    const bookAt = (start: Date, name: string) =>
      callerFor(db, deskStaff, { now: () => new Date(start.getTime() - 3_600_000) }).appointments.book({
        clinic_id: nowId,
        service_id: serviceId,
        provider_id: cara.id,
        start,
        patient: { name },
      });
    await bookAt(began, "Nora Late");
    await bookAt(later, "Carl Checkin");
    const beganAt = timeIn(began, zone);
    const laterAt = timeIn(later, zone);

    const desk = await pageAs(deskStaff, `/desk/${nowId}`);
    await desk.getByTestId("now-line").waitFor();
    // Check in, then completed.
    await desk.getByRole("button", { name: `Check in Carl Checkin at ${laterAt}` }).click();
    const carl = desk.locator(".appt", { hasText: "Carl Checkin" });
    await carl.locator(".badge").getByText("Checked in").waitFor();
    expect(await desk.getByTestId("desk-message").textContent()).toContain("Carl Checkin at");
    await desk.screenshot({ path: `${shots}desk-checked-in.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, checked in")).toEqual([]);
    // Undo takes the check-in back; check in again.
    await desk.getByTestId("desk-message").getByRole("button", { name: "Undo" }).click();
    await carl.locator(".badge").getByText("Booked").waitFor();
    await desk.getByRole("button", { name: `Check in Carl Checkin at ${laterAt}` }).click();
    await carl.locator(".badge").getByText("Checked in").waitFor();
    await desk.getByRole("button", { name: `Completed Carl Checkin at ${laterAt}` }).click();
    await carl.locator(".badge").getByText("Completed").waitFor();
    expect(await carl.getAttribute("data-status")).toBe("completed");

    // No-show, then taken back: the contract's only way back from a no-show is "came late"
    // (checked in), and that check-in is undone, so the visit is booked again.
    const nora = desk.locator(".appt", { hasText: "Nora Late" });
    await desk.getByRole("button", { name: `No-show Nora Late at ${beganAt}` }).click();
    await nora.locator(".badge").getByText("No-show").waitFor();
    await desk.screenshot({ path: `${shots}desk-no-show.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, no-show")).toEqual([]);
    await desk.getByRole("button", { name: `Came late: check in Nora Late at ${beganAt}` }).click();
    await nora.locator(".badge").getByText("Checked in").waitFor();
    await desk.getByRole("button", { name: `Undo check-in Nora Late at ${beganAt}` }).click();
    await nora.locator(".badge").getByText("Booked").waitFor();
    const [row] = await db
      .select()
      .from(appointments)
      .where(and(eq(appointments.clinicId, nowId), eq(appointments.patientName, "Nora Late")));
    expect(row?.statusHistory.map((h) => h.status)).toEqual(["booked", "no_show", "arrived", "booked"]);

    // Two desks, one click each: the second desk's view is stale and says so (If-Match).
    const other = await pageAs(deskStaff, `/desk/${nowId}`);
    await other.getByRole("button", { name: `No-show Nora Late at ${beganAt}` }).waitFor();
    await desk.getByRole("button", { name: `Check in Nora Late at ${beganAt}` }).click();
    await nora.locator(".badge").getByText("Checked in").waitFor();
    await other.getByRole("button", { name: `No-show Nora Late at ${beganAt}` }).click();
    await other
      .getByTestId("desk-message")
      .getByText(/^Someone else changed this appointment/)
      .waitFor();
    await other.locator(".appt", { hasText: "Nora Late" }).locator(".badge").getByText("Checked in").waitFor();
    await other.screenshot({ path: `${shots}desk-stale.png`, fullPage: true });
  });

  it("shows seats left on a group session's times, and marks series occurrences and seats taken on the desk", async () => {
    const db = t.handle.db;
    const groupId = await createClinic(db, { timezone: timeZone, name: "Praxis Groups" });
    await db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, groupId));
    const all = [1, 2, 3, 4, 5, 6, 7];
    await addHours(db, groupId, null, all, "08:00", "18:00");
    const gina = await addProvider(db, groupId, "Gina Roth");
    await addHours(db, groupId, gina.id, all, "09:00", "17:00");
    const pilates = await addService(db, groupId, { name: "Pilates Group", durationMin: 60, providerId: gina.id });
    await db.update(services).set({ capacity: 4 }).where(eq(services.id, pilates));
    const deskStaff = await addMember(db, groupId, { role: "STAFF", fullName: "Sam Staff" });
    const api = callerFor(db, deskStaff);
    // A two-day series at 10:00 (§14 R1) and one more seat in the first day's session.
    const series = await api.series.book({
      clinic_id: groupId,
      service_id: pilates,
      start: instantAt(day, 10 * 60, timeZone),
      rrule: "FREQ=DAILY;COUNT=2",
      patient: { name: "Sally Series" },
    });
    if ("dry_run" in series) throw new Error("a dry run");
    expect(series.occurrences).toHaveLength(2);
    await api.appointments.book({
      clinic_id: groupId,
      service_id: pilates,
      start: instantAt(day, 10 * 60, timeZone),
      patient: { name: "Gus Group" },
    });

    // The booking page: each time of the group session says how many seats are left.
    const patient = await createUser(db);
    const page = await pageAs(patient, `/book/${groupId}`);
    await page.getByLabel("Search services").fill("pilates");
    await page.getByRole("radio", { name: /Pilates Group/ }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    const ten = page.getByRole("button", { name: /^10:00/ });
    await ten.waitFor();
    expect(await ten.getByTestId("seats-left").textContent()).toBe(" · 2 seats left");
    expect(await page.getByRole("button", { name: /^09:00/ }).textContent()).toContain("4 seats left");
    await page.screenshot({ path: `${shots}booking-seats-left.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, a group session's seats")).toEqual([]);

    // The desk: the series occurrence carries a badge with the series id; each card the seats taken.
    const desk = await pageAs(deskStaff, `/desk/${groupId}?date=${day}`);
    const cell = desk.locator('[data-cell="Gina Roth 10:00"]');
    const sally = cell.locator(".appt", { hasText: "Sally Series" });
    await sally.waitFor();
    expect(await sally.locator(".series-badge").textContent()).toBe("Series");
    expect(await sally.locator(".series-badge").getAttribute("title")).toBe(`Part of series ${series.id}`);
    expect(await cell.locator(".appt", { hasText: "Gus Group" }).locator(".series-badge").count()).toBe(0);
    await expect
      .poll(() => cell.getByTestId("seats-taken").allTextContents())
      .toEqual([" 2 of 4 seats taken", " 2 of 4 seats taken"]);
    // A free time of the group session says how many seats it has; a seat of the started one can be booked.
    await desk.locator('[data-cell="Gina Roth 09:00"]').getByText("4 seats left").waitFor();
    await cell.getByText("2 seats left").waitFor();
    await desk.screenshot({ path: `${shots}desk-series-and-seats.png`, fullPage: true });
    expect(await axeViolations(desk, "desk, a series and a group session")).toEqual([]);
    await cell.getByRole("button", { name: "Book a seat with Gina Roth at 10:00" }).click();
    await desk.getByLabel("Patient name").fill("Walk Seat");
    await desk.getByRole("button", { name: "Book walk-in" }).click();
    await cell.getByText("Walk Seat, Pilates Group").waitFor();
    await expect.poll(() => cell.getByTestId("seats-taken").first().textContent()).toBe(" 3 of 4 seats taken");
    await cell.getByText("1 seat left").waitFor();
  });

  it("gives one of two patients racing for one slot the booking, and the other a 'just taken' and fresh times", async () => {
    const racers = await Promise.all([createUser(t.handle.db), createUser(t.handle.db)]);
    const pages = await Promise.all(racers.map((racer) => pageAs(racer, `/book/${clinicId}`)));
    for (const page of pages) {
      await page.getByLabel("Search services").fill("deep tisue");
      await page.getByRole("radio", { name: /Deep Tissue Massage/ }).check();
      await page.getByLabel("Date", { exact: true }).fill(day);
      await page.getByRole("button", { name: /^14:00/ }).waitFor();
    }
    // The race is for the hold: both pick 14:00 at the same moment.
    await Promise.all(pages.map((page) => page.getByRole("button", { name: /^14:00/ }).click()));
    const outcomes = await Promise.all(
      pages.map(async (page) => {
        const settled = page.locator("[data-testid=hold], .problem");
        await settled.first().waitFor();
        return (await settled.first().textContent()) ?? "";
      }),
    );
    expect(outcomes.filter((o) => o.startsWith("We keep 14:00"))).toHaveLength(1);
    expect(outcomes.filter((o) => o.includes("just taken"))).toHaveLength(1);
    const winner = pages[outcomes.findIndex((o) => o.startsWith("We keep"))];
    const loser = pages[outcomes.findIndex((o) => o.includes("just taken"))];
    if (!loser || !winner) throw new Error("no winner or loser");
    await winner.getByLabel("Name").fill("Racer Winner");
    await winner.getByRole("button", { name: /^Book 14:00/ }).click();
    await winner.getByText(/^Booked: Deep Tissue Massage with Anna Berg/).waitFor();
    // The loser's list is refreshed: 14:00 goes (the old list shows until the new one arrives),
    // 14:30 stays.
    await loser.getByRole("button", { name: /^14:00/ }).waitFor({ state: "detached" });
    await loser.getByRole("button", { name: /^14:30/ }).waitFor();
    await loser.screenshot({ path: `${shots}race-just-taken.png`, fullPage: true });
  });
});

/** A zone where it is now between 02:00 and 22:00 (so that today's early hours are over and today has hours left). */
function zoneInDaytime(): string {
  return (
    ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Pacific/Auckland"].find((z) => {
      const hour = Number(
        new Intl.DateTimeFormat("en-GB", { timeZone: z, hour: "2-digit", hourCycle: "h23" }).format(new Date()),
      );
      return hour >= 2 && hour < 22;
    }) ?? "Asia/Tokyo"
  );
}

/** Berlin's UTC offset on a date at noon, in ms (for building the lunch closure). */
function berlinOffsetMs(date: string): number {
  const noon = new Date(`${date}T12:00:00Z`);
  const shown = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(noon);
  return (Number(shown) - 12) * 3_600_000;
}
