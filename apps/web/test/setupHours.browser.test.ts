// Work hours set up in a real browser (Debian's Chromium through playwright-core) against a real
// server on this run's database (CONTRACT §23, docs/web.md "Work hours"): split shifts, an overlap
// and a closing time before the opening at their period; two browsers editing the same period
// (the second is told, with the current hours, and keeps what it typed); deleting every clinic
// period of a weekday closes that day for every provider; a provider's own closure removes their
// times for its period only; STAFF reads. Each journey checked through the API (V1) and on the
// booking page. axe A/AA on the page in each state.
import { fileURLToPath } from "node:url";
import { type Locator, type Page } from "playwright-core";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, screenshot, useBrowserPages } from "./browser.ts";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  callerFor,
  createClinic,
  testSecret,
  type TestUser,
} from "@clinic/api/testing";
import { clinicMembers, clinics } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { longDateIn, strings } from "../src/i18n.ts";
import { longDate, weekdayOf } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
const dateAfter = (days: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + days * 86_400_000));
const day = dateAfter(1);
const nextDay = dateAfter(2);
const weekday = weekdayOf(day);
const dayName = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][weekday] ?? "";

describe.skipIf(!chromiumPath)("the work-hours setup page in Chromium", () => {
  // The development sign-in offers the users a test adds here (it reads the list at each sign-in).
  const devUsers: { label: string; sub: string; email: string; next: string }[] = [];
  const t = useTestApp({ web: { distDir: dist, devSignIn: { secret: testSecret, users: devUsers } } });
  const pages = useBrowserPages(t);

  /**
   * An online-booking clinic in Berlin open 08:00–18:00 every day; Anna (09:00–17:00, "Physio -
   * Anna Berg", 60 minutes) and Ben (10:00–16:00, "Massage - Ben Kluge", 60 minutes), both STAFF;
   * a clinic admin and a STAFF member who is no provider.
   */
  async function setUpClinic(name: string) {
    const db = t.handle.db;
    const clinicId = await createClinic(db, { timezone: timeZone, name });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const ben = await addProvider(db, clinicId, "Ben Kluge");
    await addHours(db, clinicId, ben.id, all, "10:00", "16:00");
    const physio = await addService(db, clinicId, { name: "Physio - Anna Berg", durationMin: 60, providerId: anna.id });
    const massage = await addService(db, clinicId, {
      name: "Massage - Ben Kluge",
      durationMin: 60,
      providerId: ben.id,
    });
    const admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    return { clinicId, anna, ben, physio, massage, admin, api: callerFor(db, admin), staff };
  }

  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path);
  }

  /** The slot starts V1 offers on a date ("09:00"), clinic time. */
  async function slotTimes(c: Awaited<ReturnType<typeof setUpClinic>>, serviceId: string, date = day) {
    const answer = await c.api.availability.get({ clinic_id: c.clinicId, service_id: serviceId, from: date, to: date });
    return answer.slots.map((s) => s.start_local.slice(11, 16));
  }

  /** The times the booking page offers for a service on `day` (empty when it says there are none). */
  async function bookingTimes(page: Page, clinicId: string, service: RegExp): Promise<string[]> {
    await page.goto(`${pages.base}/book/${clinicId}`);
    await page.getByRole("radio", { name: service }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    const list = page.getByRole("list", { name: strings.en.freeTimesOn(longDateIn("en", day)) });
    const none = page.getByText(strings.en.noTimesOn(longDateIn("en", day)));
    await list.or(none).waitFor();
    if (await none.isVisible()) return [];
    return (await list.locator("button.slot").allTextContents()).map((text) => text.slice(0, 5));
  }

  const periodForm = (page: Page, label: string): Locator =>
    page.getByTestId("period").filter({ has: page.getByRole("group", { name: label, exact: true }) });
  const addForm = (page: Page): Locator =>
    page.getByTestId("add-period").filter({ has: page.getByRole("group", { name: `New period on ${dayName}` }) });
  const clinicPeriods = async (c: Awaited<ReturnType<typeof setUpClinic>>) =>
    (await c.api.workHours.listClinic({ clinic_id: c.clinicId, weekday })).work_hours.map(
      (h) => `${h.opens_at}-${h.closes_at}`,
    );
  const focusedLabel = (page: Page) =>
    page.evaluate(() => {
      const active = document.activeElement;
      return active?.id ? document.querySelector(`label[for="${active.id}"]`)?.textContent : undefined;
    });

  it("makes a split shift, and an overlap or a closing before the opening is said at its period", async () => {
    const c = await setUpClinic("Praxis Split");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/hours`);
    await page.getByRole("heading", { name: "Praxis Split: Work hours" }).waitFor();
    await page.getByRole("heading", { name: "The clinic's week" }).waitFor();
    expect(await page.getByRole("link", { name: "Work hours" }).getAttribute("aria-current")).toBe("page");
    expect(await axeViolations(page, "setup, work hours")).toEqual([]);

    // The morning: 08:00–12:00; then an afternoon period 13:00–18:00.
    const first = periodForm(page, `${dayName}, period 1`);
    await first.getByLabel("Closes").fill("12:00");
    await first.getByRole("button", { name: `Save ${dayName}, period 1` }).click();
    await page
      .getByTestId("hours-notice")
      .filter({ hasText: `Saved: ${dayName} 08:00–12:00.` })
      .waitFor();
    const add = addForm(page);
    await add.getByLabel("Opens").fill("13:00");
    await add.getByLabel("Closes").fill("18:00");
    await add.getByLabel("Closes").press("Enter");
    await periodForm(page, `${dayName}, period 2`).waitFor();
    expect(await periodForm(page, `${dayName}, period 2`).getByLabel("Opens").inputValue()).toBe("13:00");
    expect(await clinicPeriods(c)).toEqual(["08:00-12:00", "13:00-18:00"]);

    // Anna (09:00–17:00) is offered in both periods, not over lunch.
    expect(await slotTimes(c, c.physio)).toEqual(["09:00", "10:00", "11:00", "13:00", "14:00", "15:00", "16:00"]);
    const patient = await pageAs(c.staff, `/book/${c.clinicId}`);
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual([
      "09:00",
      "10:00",
      "11:00",
      "13:00",
      "14:00",
      "15:00",
      "16:00",
    ]);

    // A new period that overlaps: said at the new period, nothing created; the focus is on its opening.
    await add.getByLabel("Opens").fill("11:00");
    await add.getByLabel("Closes").fill("14:00");
    await add.getByRole("button", { name: `Add the new period on ${dayName.toLowerCase()}` }).click();
    const addError = add.getByTestId("field-error-period");
    await addError.waitFor();
    expect(await addError.textContent()).toMatch(/^Overlaps another period: overlap detected, period 11:00-14:00/);
    expect(await focusedLabel(page)).toBe("Opens");
    expect(await add.getByRole("group").getAttribute("aria-invalid")).toBe("true");
    expect(await clinicPeriods(c)).toEqual(["08:00-12:00", "13:00-18:00"]);

    // Editing period 2 into period 1: said at period 2 (not at period 1).
    const second = periodForm(page, `${dayName}, period 2`);
    await second.getByLabel("Opens").fill("11:30");
    await second.getByRole("button", { name: `Save ${dayName}, period 2` }).click();
    await second.getByTestId("field-error-period").waitFor();
    expect(await second.getByTestId("field-error-period").textContent()).toContain(
      "overlap detected, period 11:30-18:00 overlaps with existing period 08:00-12:00",
    );
    expect(await first.getByTestId("field-error-period").count()).toBe(0);

    // Closing before opening: at period 1's closing time.
    await first.getByLabel("Closes").fill("07:00");
    await first.getByRole("button", { name: `Save ${dayName}, period 1` }).click();
    const closesError = first.getByTestId("field-error-closes_at");
    await closesError.waitFor();
    expect(await closesError.textContent()).toContain("must be later than opens_at");
    expect(await focusedLabel(page)).toBe("Closes");
    expect(await first.getByLabel("Closes").getAttribute("aria-invalid")).toBe("true");
    expect(await clinicPeriods(c)).toEqual(["08:00-12:00", "13:00-18:00"]);
    await screenshot(page, "setup-hours-refused", { docs: true });
    expect(await axeViolations(page, "setup, work hours, refusals at their periods")).toEqual([]);
  });

  it("tells the second of two browsers editing one period, shows the current hours and keeps what it typed", async () => {
    const c = await setUpClinic("Praxis Twice");
    const path = `/desk/${c.clinicId}/setup/hours`;
    const first = await pageAs(c.admin, path);
    const second = await pageAs(c.admin, path);
    const label = `${dayName}, period 1`;
    for (const page of [first, second]) await periodForm(page, label).waitFor();

    // The second person starts typing; the first saves a change meanwhile.
    await periodForm(second, label).getByLabel("Closes").fill("16:00");
    await periodForm(first, label).getByLabel("Closes").fill("17:00");
    await periodForm(first, label)
      .getByRole("button", { name: `Save ${label}` })
      .click();
    await first
      .getByTestId("hours-notice")
      .filter({ hasText: `Saved: ${dayName} 08:00–17:00.` })
      .waitFor();

    await periodForm(second, label)
      .getByRole("button", { name: `Save ${label}` })
      .click();
    const stale = periodForm(second, label).getByTestId("stale");
    await stale.waitFor();
    expect(await stale.getByRole("alert").textContent()).toBe(
      "Someone else changed this period meanwhile: it is now 08:00–17:00. What you typed is still here (08:00–16:00): save again to replace their hours with yours, or use theirs.",
    );
    expect(await second.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    expect(await periodForm(second, label).getByLabel("Closes").inputValue()).toBe("16:00");
    expect(await clinicPeriods(c)).toEqual(["08:00-17:00"]);
    await screenshot(second, "setup-hours-stale", { docs: true });
    expect(await axeViolations(second, "setup, work hours, changed meanwhile")).toEqual([]);

    // Saving again, knowing theirs, replaces it.
    await periodForm(second, label)
      .getByRole("button", { name: `Save ${label}` })
      .click();
    await second
      .getByTestId("hours-notice")
      .filter({ hasText: `Saved: ${dayName} 08:00–16:00.` })
      .waitFor();
    expect(await stale.count()).toBe(0);
    expect(await clinicPeriods(c)).toEqual(["08:00-16:00"]);
  });

  it("shows a refusal the page did not foresee (a role taken away meanwhile) at the period", async () => {
    const c = await setUpClinic("Praxis Demoted");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/hours`);
    const label = `${dayName}, period 1`;
    await periodForm(page, label).waitFor();
    await t.handle.db
      .update(clinicMembers)
      .set({ clinicRole: "STAFF" })
      .where(and(eq(clinicMembers.clinicId, c.clinicId), eq(clinicMembers.userId, c.admin.id)));
    await periodForm(page, label).getByLabel("Closes").fill("17:00");
    await periodForm(page, label)
      .getByRole("button", { name: `Save ${label}` })
      .click();
    const alert = periodForm(page, label).getByTestId("form-alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Your account may not do this here: /);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("form-alert");
    expect(await periodForm(page, label).getByLabel("Closes").inputValue()).toBe("17:00");
    expect(await clinicPeriods(c)).toEqual(["08:00-18:00"]);
  });

  it("deleting every clinic period of a weekday closes that day for every provider", async () => {
    const c = await setUpClinic("Praxis Closed");
    expect(await slotTimes(c, c.massage)).toEqual(["10:00", "11:00", "12:00", "13:00", "14:00", "15:00"]);
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/hours`);
    const label = `${dayName}, period 1`;
    await periodForm(page, label)
      .getByRole("button", { name: `Delete ${label}` })
      .click();
    await page
      .getByTestId("hours-notice")
      .filter({ hasText: `Deleted: ${dayName} 08:00–18:00.` })
      .waitFor();
    const dayHeading = page.getByRole("heading", { name: `${dayName} — closed` });
    await dayHeading.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`${dayName} — closed`);
    expect(await clinicPeriods(c)).toEqual([]);

    expect(await slotTimes(c, c.physio)).toEqual([]);
    expect(await slotTimes(c, c.massage)).toEqual([]);
    // The next day keeps its hours.
    expect(await slotTimes(c, c.massage, nextDay)).toEqual(["10:00", "11:00", "12:00", "13:00", "14:00", "15:00"]);
    const patient = await pageAs(c.staff, `/book/${c.clinicId}`);
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual([]);
    expect(await bookingTimes(patient, c.clinicId, /^Massage - Ben Kluge/)).toEqual([]);

    // A date of other hours opens that one date again: the morning only (Anna from 09:00).
    const form = page.getByRole("group", { name: "Other hours on a date" });
    await form.getByLabel("Date").fill(day);
    await form.getByLabel("Hours that day").fill("11:00-09:00");
    await form.getByRole("button", { name: "Save the date's hours" }).click();
    const refused = form.getByTestId("field-error-periods");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("must be later than opens_at");
    await form.getByLabel("Hours that day").fill("08:00–11:00, 12:00 to 13:00");
    await form.getByRole("button", { name: "Save the date's hours" }).click();
    await page.getByTestId("override").filter({ hasText: "08:00–11:00, 12:00–13:00" }).waitFor();
    expect(await slotTimes(c, c.physio)).toEqual(["09:00", "10:00", "12:00"]);
    expect(await slotTimes(c, c.massage)).toEqual(["10:00", "12:00"]);
    expect(await axeViolations(page, "setup, work hours, a date of other hours")).toEqual([]);
    // Removed, the week applies again: that day stays closed (no clinic period).
    await page.getByRole("button", { name: `Remove the hours of ${longDate(day)}` }).click();
    await page
      .getByTestId("hours-notice")
      .filter({ hasText: `Removed the hours of ${longDate(day)}: the weekly hours apply again.` })
      .waitFor();
    await page.getByTestId("overrides").getByText("None from today on.").waitFor();
    expect((await c.api.dateOverrides.listClinic({ clinic_id: c.clinicId })).date_overrides).toEqual([]);
    expect(await slotTimes(c, c.physio)).toEqual([]);
  });

  it("a provider closes their own hours for a while, and only those times go; STAFF reads", async () => {
    const c = await setUpClinic("Praxis Leave");
    const anna = await pageAs(c.anna, `/desk/${c.clinicId}/setup/hours?of=${c.anna.id}`);
    await anna.getByRole("heading", { name: "Anna Berg's week" }).waitFor();
    // Her own: the forms are there.
    await periodForm(anna, `${dayName}, period 1`).waitFor();
    // Her own week: a shorter day, saved through W7 as hers.
    const otherDay = weekdayOf(dateAfter(3));
    const otherName =
      ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][otherDay] ?? "";
    const own = periodForm(anna, `${otherName}, period 1`);
    await own.getByLabel("Closes").fill("12:00");
    await own.getByRole("button", { name: `Save ${otherName}, period 1` }).click();
    await anna
      .getByTestId("hours-notice")
      .filter({ hasText: `Saved: ${otherName} 09:00–12:00.` })
      .waitFor();
    const annaWeek = await c.api.workHours.listProvider({
      clinic_id: c.clinicId,
      provider_id: c.anna.id,
      weekday: otherDay,
    });
    expect(annaWeek.work_hours.map((h) => `${h.opens_at}-${h.closes_at}`)).toEqual(["09:00-12:00"]);

    const form = anna.getByRole("group", { name: "New closure" });
    const from = form.getByRole("group", { name: "From" });
    await from.getByLabel("Date").fill(day);
    await from.getByLabel("Time").fill("10:00");
    const until = form.getByRole("group", { name: "Until" });
    await until.getByLabel("Date").fill(day);
    await until.getByLabel("Time").fill("12:00");
    await form.getByLabel("Reason (optional)").fill("Dentist");
    await form.getByRole("button", { name: "Add the closure" }).click();
    const closure = anna.getByTestId("closure");
    await closure.waitFor();
    expect(await closure.textContent()).toContain("10:00 to");
    expect(await closure.textContent()).toContain("12:00");
    expect(await closure.textContent()).toContain("(Dentist)");
    const [stored] = (await c.api.closures.listProvider({ clinic_id: c.clinicId, provider_id: c.anna.id })).closures;
    expect(stored?.starts_at.toISOString()).toBe(new Date(`${day}T10:00:00${berlinOffset(day)}`).toISOString());
    await screenshot(anna, "setup-hours-provider", { docs: true });
    expect(await axeViolations(anna, "setup, work hours, a provider's own")).toEqual([]);

    // Her 10:00 and 11:00 go on that day only; Ben keeps his.
    expect(await slotTimes(c, c.physio)).toEqual(["09:00", "12:00", "13:00", "14:00", "15:00", "16:00"]);
    expect(await slotTimes(c, c.physio, nextDay)).toEqual([
      "09:00",
      "10:00",
      "11:00",
      "12:00",
      "13:00",
      "14:00",
      "15:00",
      "16:00",
    ]);
    expect(await slotTimes(c, c.massage)).toEqual(["10:00", "11:00", "12:00", "13:00", "14:00", "15:00"]);
    const patient = await pageAs(c.staff, `/book/${c.clinicId}`);
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual([
      "09:00",
      "12:00",
      "13:00",
      "14:00",
      "15:00",
      "16:00",
    ]);

    // Ben's hours are not hers to change: read, with no form.
    await anna.getByLabel("Whose hours").selectOption({ label: "Ben Kluge" });
    await anna.getByRole("heading", { name: "Ben Kluge's week" }).waitFor();
    await anna
      .getByTestId(`day-${String(weekday)}`)
      .filter({ hasText: "10:00–16:00" })
      .waitFor();
    expect(await anna.getByTestId("period").count()).toBe(0);
    expect(await anna.getByRole("button", { name: "Add the closure" }).count()).toBe(0);
    await anna.getByText("Only a clinic administrator or the provider themself can change them.").waitFor();

    // STAFF reads the clinic's week and Anna's closure, without a control.
    const staff = await pageAs(c.staff, `/desk/${c.clinicId}/setup/hours`);
    await staff.getByRole("heading", { name: "The clinic's week" }).waitFor();
    expect(await staff.getByTestId(`day-${String(weekday)}`).textContent()).toBe("08:00–18:00");
    await staff.getByText("Only a clinic administrator can change them.").waitFor();
    expect(await staff.getByRole("button").count()).toBe(0);
    await staff.getByLabel("Whose hours").selectOption({ label: "Anna Berg" });
    await staff.getByTestId("closure").filter({ hasText: "Dentist" }).waitFor();
    expect(await staff.getByRole("button").count()).toBe(0);
    expect(await axeViolations(staff, "setup, work hours, STAFF reads")).toEqual([]);
  });
  it("a provider with a custom role keeps their own hours and closures, and is offered nobody else's", async () => {
    const c = await setUpClinic("Praxis Custom");
    const pia = await addMember(t.handle.db, c.clinicId, {
      role: "Physiotherapist",
      isProvider: true,
      fullName: "Pia Custom",
    });
    await addHours(t.handle.db, c.clinicId, pia.id, all, "09:00", "13:00");
    devUsers.push({
      label: "Pia Custom (physiotherapist)",
      sub: pia.id,
      email: pia.email,
      next: `/desk/${c.clinicId}`,
    });
    const page = await pages.page();

    // Signed in through the development sign-in, she lands on the desk, which links her own hours.
    await page.goto(`${pages.base}/dev/sign-in`);
    await page.getByRole("button", { name: "Pia Custom (physiotherapist)" }).click();
    await page.waitForURL(`${pages.base}/desk/${c.clinicId}`);
    const link = page.getByRole("link", { name: "Your work hours and closures" });
    await link.waitFor();
    expect(await axeViolations(page, "the desk, to a custom-role provider")).toEqual([]);
    await link.click();
    await page.waitForURL(`${pages.base}/desk/${c.clinicId}/setup/hours`);
    await page.getByRole("heading", { name: "Your week" }).waitFor();
    // Only her own: no choice of whose hours, no other area, no clinic's week.
    const nav = page.getByRole("navigation", { name: "Clinic setup" });
    expect(await nav.getByRole("link").allTextContents()).toEqual(["Front desk", "Work hours"]);
    expect(await page.getByLabel("Whose hours").count()).toBe(0);
    expect(await page.getByRole("heading", { name: "The clinic's week" }).count()).toBe(0);
    await periodForm(page, `${dayName}, period 1`).waitFor();
    expect(await periodForm(page, `${dayName}, period 1`).getByLabel("Closes").inputValue()).toBe("13:00");
    expect(await axeViolations(page, "setup, work hours, a custom-role provider's own")).toEqual([]);

    // An afternoon period on the day, saved as hers (W5) and confirmed by the API.
    const add = addForm(page);
    await add.getByLabel("Opens").fill("14:00");
    await add.getByLabel("Closes").fill("16:00");
    await add.getByRole("button", { name: `Add the new period on ${dayName.toLowerCase()}` }).click();
    await periodForm(page, `${dayName}, period 2`).waitFor();
    const week = await c.api.workHours.listProvider({ clinic_id: c.clinicId, provider_id: pia.id, weekday });
    expect(week.work_hours.map((h) => `${h.opens_at}-${h.closes_at}`)).toEqual(["09:00-13:00", "14:00-16:00"]);

    // A closure of hers (K4), confirmed by the API in the clinic's zone.
    const form = page.getByRole("group", { name: "New closure" });
    await form.getByRole("group", { name: "From" }).getByLabel("Date").fill(day);
    await form.getByRole("group", { name: "From" }).getByLabel("Time").fill("09:00");
    await form.getByRole("group", { name: "Until" }).getByLabel("Date").fill(day);
    await form.getByRole("group", { name: "Until" }).getByLabel("Time").fill("11:00");
    await form.getByLabel("Reason (optional)").fill("Training");
    await form.getByRole("button", { name: "Add the closure" }).click();
    await page.getByTestId("closure").filter({ hasText: "(Training)" }).waitFor();
    const [closure] = (await c.api.closures.listProvider({ clinic_id: c.clinicId, provider_id: pia.id })).closures;
    expect(closure?.starts_at.toISOString()).toBe(new Date(`${day}T09:00:00${berlinOffset(day)}`).toISOString());
    expect(closure?.ends_at.toISOString()).toBe(new Date(`${day}T11:00:00${berlinOffset(day)}`).toISOString());
    expect(closure?.reason).toBe("Training");
    await screenshot(page, "setup-hours-own", { docs: true });
    expect(await axeViolations(page, "setup, work hours, a custom-role provider's closure")).toEqual([]);
    // And removed again (K6), as hers.
    await page
      .getByTestId("closure")
      .getByRole("button", { name: /^Remove the closure / })
      .click();
    await page.getByTestId("hours-notice").filter({ hasText: "Closure removed." }).waitFor();
    await page.getByTestId("closures").getByText("None from today on.").waitFor();
    expect((await c.api.closures.listProvider({ clinic_id: c.clinicId, provider_id: pia.id })).closures).toEqual([]);

    // Another provider's address still shows her own week; the clinic's and Anna's stay untouched.
    await page.goto(`${pages.base}/desk/${c.clinicId}/setup/hours?of=${c.anna.id}`);
    await page.getByRole("heading", { name: "Your week" }).waitFor();
    expect(await page.getByRole("heading", { name: "Anna Berg's week" }).count()).toBe(0);
    expect(await clinicPeriods(c)).toEqual(["08:00-18:00"]);
    // The other areas are not offered: the page says so and links her hours.
    await page.goto(`${pages.base}/desk/${c.clinicId}/setup/services`);
    const refused = page.getByTestId("setup-refused");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("Services is for the clinic's staff and clinic administrators");
    expect(await page.getByRole("button").count()).toBe(0);
    expect(await axeViolations(page, "setup, services, refused to a custom-role provider")).toEqual([]);
    // /desk/{id}/setup opens her hours under their own address.
    await page.goto(`${pages.base}/desk/${c.clinicId}/setup`);
    await page.waitForURL(`${pages.base}/desk/${c.clinicId}/setup/hours`);
    await page.getByRole("heading", { name: "Your week" }).waitFor();
  });
});

/** Berlin's UTC offset on a date at 10:00 ("+01:00" in winter, "+02:00" in summer). */
function berlinOffset(date: string): string {
  const name = new Intl.DateTimeFormat("en-GB", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${date}T09:00:00Z`))
    .find((p) => p.type === "timeZoneName")?.value;
  const offset = name?.replace("GMT", "") ?? "";
  return offset === "" ? "Z" : offset;
}
