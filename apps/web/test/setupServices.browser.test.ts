// The clinic's services set up in a real browser (Debian's Chromium through playwright-core)
// against a real server on this run's database (CONTRACT §23, docs/web.md "Clinic setup"): a
// clinic administrator reaches the setup from the desk, creates services on the page (a refusal
// shown at its field), and the booking page then offers exactly the times the contract computes
// from the provider's hours within the clinic's (a 30- and a 60-minute service of one provider
// differ); the naming convention is suggested; a provider change shows in the service's history
// (and A1); the questions editor's questions are asked on the booking page and their answers shown
// on the desk; STAFF reads without controls; other roles are told the setup is not for them. axe
// A/AA on every page and dialog. Screenshots go to apps/web/test-results/ (and docs/img/ with
// `npm run docs:screenshots`).
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, screenshot, useBrowserPages } from "./browser.ts";
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
import { clinics } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { longDateIn, strings } from "../src/i18n.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
/** Tomorrow in the clinic's zone: every weekday is open, so any date works. */
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

/** Start times (HH:MM) every `step` minutes from `from` while a slot of `duration` fits before `to`. */
function grid(from: string, to: string, step: number, duration = step): string[] {
  const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  const times: string[] = [];
  for (let m = minutes(from); m + duration <= minutes(to); m += step)
    times.push(`${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`);
  return times;
}

describe.skipIf(!chromiumPath)("the services setup page in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);

  /**
   * An online-booking clinic in Berlin open 08:00–18:00 every day; Anna works 09:00–12:00 and
   * 14:00–20:00 (so her afternoon ends with the clinic's), Ben 10:00–16:00; Anna already offers
   * "Massage"; a treatment room; a clinic admin, a STAFF member and a member with a custom role.
   */
  async function setUpClinic(name: string) {
    const db = t.handle.db;
    const clinicId = await createClinic(db, { timezone: timeZone, name });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "12:00");
    await addHours(db, clinicId, anna.id, all, "14:00", "20:00");
    const ben = await addProvider(db, clinicId, "Ben Kluge");
    await addHours(db, clinicId, ben.id, all, "10:00", "16:00");
    await addService(db, clinicId, { name: "Massage", durationMin: 30, providerId: anna.id });
    const admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    const api = callerFor(db, admin);
    await api.resources.create({ clinic_id: clinicId, name: "Room 1", kind: "treatment_room" });
    const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    const custom = await addMember(db, clinicId, { role: "RECEPTION_TRAINEE", fullName: "Tia Trainee" });
    return { clinicId, anna, ben, admin, api, staff, custom };
  }

  /** A phone-size page of a user in New York (the clinic is in Berlin), signed in by cookie. */
  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path);
  }

  /** The times the booking page offers for a service (its radio's name) on `day`, clinic time. */
  async function bookingTimes(page: Page, clinicId: string, service: RegExp): Promise<string[]> {
    await page.goto(`${pages.base}/book/${clinicId}`);
    await page.getByRole("radio", { name: service }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    const list = page.getByRole("list", { name: strings.en.freeTimesOn(longDateIn("en", day)) });
    const none = page.getByText(strings.en.noTimesOn(longDateIn("en", day)));
    await list.or(none).waitFor();
    if (await none.isVisible()) return [];
    const texts = await list.locator("button.slot").allTextContents();
    return texts.map((text) => text.slice(0, 5));
  }

  /** V1's starts for a service on `day`, clinic time: what the API computes. */
  async function apiTimes(api: ReturnType<typeof callerFor>, clinicId: string, serviceId: string) {
    const answer = await api.availability.get({ clinic_id: clinicId, service_id: serviceId, from: day, to: day });
    return answer.slots.map((s) => s.start_local.slice(11, 16));
  }

  /** The control tied to a field's message: its text, that it is marked invalid and describes itself with it. */
  async function fieldError(page: Page, field: string, control: ReturnType<Page["getByLabel"]>) {
    const error = page.getByTestId(`field-error-${field}`);
    await error.waitFor();
    expect(await control.getAttribute("aria-invalid")).toBe("true");
    expect((await control.getAttribute("aria-describedby"))?.split(" ")).toContain(await error.getAttribute("id"));
    return (await error.textContent()) ?? "";
  }

  /** Opens the service editor's "New service" from the list, by keyboard. */
  async function newService(page: Page) {
    const link = page.getByRole("link", { name: "New service" });
    await link.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "New service" }).waitFor();
  }

  it("creates assigned services whose booking-page times are the provider's hours within the clinic's, 30 and 60 minutes apart; a refusal shows at its field", async () => {
    const c = await setUpClinic("Praxis Aufbau");
    const desk = await pageAs(c.admin, `/desk/${c.clinicId}`);
    // The desk links to the setup for a clinic admin; the nav marks the page it is on.
    await desk.getByTestId("setup-link").click();
    await desk.getByRole("heading", { name: "Praxis Aufbau: Services" }).waitFor();
    expect(await desk.getByRole("link", { name: "Services" }).getAttribute("aria-current")).toBe("page");
    await desk.getByTestId("services-table").getByRole("link", { name: "Massage" }).waitFor();
    await screenshot(desk, "setup-services", { docs: true });
    expect(await axeViolations(desk, "setup, services list")).toEqual([]);

    await newService(desk);
    const name = desk.getByLabel("Name", { exact: true });
    await name.fill("Physio");
    const duration = desk.getByLabel("Duration (minutes)");
    await duration.fill("2000");
    await desk.getByLabel("Price").fill("55");
    await desk.getByRole("radio", { name: "One provider" }).check();
    await desk.getByLabel("Provider", { exact: true }).selectOption({ label: "Anna Berg" });
    await desk.getByRole("button", { name: "Create service" }).click();
    // The server's refusal (§2 VALIDATION_FAILED at duration_min) stands under the duration, which takes the focus.
    const refused = await fieldError(desk, "duration_min", duration);
    expect(refused).toMatch(/^Duration \(minutes\): .*1440/);
    expect(await desk.evaluate(() => document.activeElement?.getAttribute("type"))).toBe("number");
    expect(await desk.getByTestId("form-alert").textContent()).toBe("Please check the marked entries.");
    await screenshot(desk, "setup-service-refused", { docs: true });
    expect(await axeViolations(desk, "setup, service form with a refusal")).toEqual([]);
    expect((await c.api.services.list({ clinic_id: c.clinicId })).services.map((s) => s.name)).toEqual(["Massage"]);

    // Typing clears the message; the fixed form creates the service.
    await duration.fill("60");
    expect(await desk.getByTestId("field-error-duration_min").count()).toBe(0);
    await desk.getByRole("button", { name: "Create service" }).click();
    await desk.getByTestId("service-notice").getByText("Created “Physio”.").waitFor();
    await desk.getByRole("heading", { name: "Physio" }).waitFor();
    expect(new URL(desk.url()).searchParams.get("service")).toMatch(/^[0-9a-f-]{36}$/);

    // The API has it as sent, and computes Anna's hours within the clinic's: 09–12 and 14–18.
    const physio = (await c.api.services.list({ clinic_id: c.clinicId })).services.find((s) => s.name === "Physio");
    expect(physio).toMatchObject({ duration_min: 60, price: "55.00", provider_id: c.anna.id, is_active: true });
    if (!physio) throw new Error("no Physio");
    const hourly = [...grid("09:00", "12:00", 60), ...grid("14:00", "18:00", 60)];
    expect(await apiTimes(c.api, c.clinicId, physio.id)).toEqual(hourly);

    // A 30-minute service of the same provider, made on the page as well.
    await desk.getByRole("link", { name: "Back to all services" }).click();
    await newService(desk);
    await desk.getByLabel("Name", { exact: true }).fill("Physio short");
    await desk.getByLabel("Duration (minutes)").fill("30");
    await desk.getByRole("radio", { name: "One provider" }).check();
    await desk.getByLabel("Provider", { exact: true }).selectOption({ label: "Anna Berg" });
    await desk.getByRole("button", { name: "Create service" }).click();
    await desk.getByTestId("service-notice").getByText("Created “Physio short”.").waitFor();
    const halfHourly = [...grid("09:00", "12:00", 30), ...grid("14:00", "18:00", 30)];

    // The booking page offers exactly those times: the 60-minute service on the hour, the
    // 30-minute one every half hour; both stop at the clinic's 18:00, not Anna's 20:00.
    const patient = await pageAs(await createUser(t.handle.db), `/book/${c.clinicId}`);
    const sixty = await bookingTimes(patient, c.clinicId, /^Physio \(60 min, Anna Berg\)/);
    const thirty = await bookingTimes(patient, c.clinicId, /^Physio short \(30 min, Anna Berg\)/);
    expect(sixty).toEqual(hourly);
    expect(thirty).toEqual(halfHourly);
    expect(thirty).not.toEqual(sixty);
    expect(thirty).toContain("09:30");
    expect(sixty).not.toContain("09:30");
    expect(sixty.at(-1)).toBe("17:00");
    expect(thirty.at(-1)).toBe("17:30");
  });

  it("suggests the naming convention when a second provider offers the same, and keeps the change in the service's history", async () => {
    const c = await setUpClinic("Praxis Namen");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/services?service=new`);
    await page.getByRole("heading", { name: "New service" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("massage");
    await page.getByRole("radio", { name: "One provider" }).check();
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: "Ben Kluge" });
    const suggestion = page.getByTestId("name-suggestion");
    await suggestion.getByText(/Other services offer “massage” too/).waitFor();
    expect(await suggestion.textContent()).toContain("“Massage” could become “Massage - Anna Berg”");
    await screenshot(page, "setup-service-naming", { docs: true });
    expect(await axeViolations(page, "setup, new service with the naming suggestion")).toEqual([]);
    await suggestion.getByRole("button", { name: "Use “massage - Ben Kluge”" }).click();
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("massage - Ben Kluge");
    await page.getByRole("button", { name: "Create service" }).click();
    await page.getByTestId("service-notice").getByText("Created “massage - Ben Kluge”.").waitFor();

    // Anna's massage: found by a misspelt search (S7), its provider changed to Ben on its page.
    await page.getByRole("link", { name: "Back to all services" }).click();
    const search = page.getByRole("searchbox", { name: "Find a service" });
    await search.fill("masage ana");
    await page.getByTestId("services-count").getByText(/match/).waitFor();
    const rows = page.getByTestId("services-table").getByRole("row");
    await expect.poll(() => rows.nth(1).getByRole("rowheader").textContent()).toBe("Massage");
    await rows.nth(1).getByRole("link", { name: "Massage" }).click();
    await page.getByRole("heading", { name: "Massage" }).waitFor();
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: "Ben Kluge" });
    // Ben offers a massage already, under the conventional name: said, and no second one offered.
    await page
      .getByTestId("name-taken")
      .getByText(/^“massage - Ben Kluge” is already this provider's service/)
      .waitFor();
    expect(await page.getByRole("button", { name: /^Use “/ }).count()).toBe(0);
    await page.getByLabel("Duration (minutes)").fill("45");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByTestId("service-notice").getByText("Saved “Massage”.").waitFor();

    // The history says who moved it, from whom to whom (and what else changed); so does A1.
    const history = page.getByTestId("service-history");
    const change = history.getByTestId("provider-change").filter({ hasText: "provider from" });
    await change.waitFor();
    expect(await change.textContent()).toBe("; provider from Anna Berg to Ben Kluge");
    const latest = history.getByTestId("history-entry").first();
    expect(await latest.textContent()).toContain(c.admin.email);
    expect(await latest.textContent()).toContain("Changed: duration (minutes)");
    await screenshot(page, "setup-service-history", { docs: true });
    expect(await axeViolations(page, "setup, service with its history")).toEqual([]);
    const massage = (await c.api.services.list({ clinic_id: c.clinicId })).services.find((s) => s.name === "Massage");
    if (!massage) throw new Error("no Massage");
    const trail = await c.api.audit.list({ clinic_id: c.clinicId, resource_type: "service", resource_id: massage.id });
    expect(trail.entries[0]?.user_email).toBe(c.admin.email);
    expect(trail.entries[0]?.details).toMatchObject({
      changed_fields: expect.arrayContaining(["duration_min", "provider_id"]) as unknown,
      old_provider_id: c.anna.id,
      new_provider_id: c.ben.id,
      provider_name: "Ben Kluge",
    });
    // The booking page follows: Ben's 10:00–16:00 in 45-minute steps.
    const patient = await pageAs(await createUser(t.handle.db), `/book/${c.clinicId}`);
    expect(await bookingTimes(patient, c.clinicId, /^Massage \(45 min, Ben Kluge\)/)).toEqual(
      grid("10:00", "16:00", 45),
    );
  });

  it("edits questions by keyboard, refuses a bad key at its field, and the booking page asks them; the desk shows the answers", async () => {
    const c = await setUpClinic("Praxis Fragen Setup");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/services`);
    await page.getByTestId("services-table").getByRole("link", { name: "Massage" }).click();
    await page.getByRole("heading", { name: "Massage" }).waitFor();
    const add = page.getByRole("button", { name: "Add a question" });

    // A question is added by keyboard: the focus lands in its wording; the key follows the wording.
    await add.focus();
    await page.keyboard.press("Enter");
    await page.keyboard.type("Reason for your visit");
    const q1 = page.getByTestId("question-draft").nth(0);
    expect(await q1.getByLabel("Question 1: key").inputValue()).toBe("reason_for_your_visit");
    await q1.getByLabel("Question 1: required").check();

    await add.click();
    const q2 = page.getByTestId("question-draft").nth(1);
    await q2.getByLabel("Question 2: wording").fill("Insurance");
    await q2.getByLabel("Question 2: answer type").selectOption("choice");
    await q2.getByLabel("Question 2: options, one a line").fill("Public\nPrivate\nSelf-pay");
    await q2.getByLabel("Question 2: required").check();

    await add.click();
    const q3 = page.getByTestId("question-draft").nth(2);
    await q3.getByLabel("Question 3: wording").fill("I agree that the clinic keeps my answers");
    await q3.getByLabel("Question 3: key").fill("Consent!");
    await q3.getByLabel("Question 3: answer type").selectOption("boolean");
    await q3.getByLabel(/^Question 3: required — a consent/).check();

    await add.click();
    const q4 = page.getByTestId("question-draft").nth(3);
    await q4.getByLabel("Question 4: wording").fill("Date of birth");
    await q4.getByLabel("Question 4: answer type").selectOption("date");
    // Moved up by keyboard, it stays focused on its button; then back down.
    const up = q4.getByRole("button", { name: "Move up: “Date of birth”" });
    await up.focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Move up: “Date of birth”",
    );
    expect(await page.getByTestId("question-draft").nth(2).getByLabel("Question 3: wording").inputValue()).toBe(
      "Date of birth",
    );
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.getByTestId("question-draft").nth(3).getByLabel("Question 4: wording").inputValue()).toBe(
      "Date of birth",
    );
    await screenshot(page, "setup-service-questions", { docs: true });
    expect(await axeViolations(page, "setup, questions editor")).toEqual([]);

    // The server refuses the key "Consent!" (§19's pattern): under that key, which takes the focus.
    await page.getByRole("button", { name: "Save changes" }).click();
    const key3 = q3.getByLabel("Question 3: key");
    expect(await fieldError(page, "questions.2.key", key3)).toMatch(/^Question 3, key: must be a lower-case letter/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await key3.getAttribute("id"));
    expect(await axeViolations(page, "setup, questions editor with a refused key")).toEqual([]);
    await key3.fill("consent");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByTestId("service-notice").getByText("Saved “Massage”.").waitFor();
    const massage = (await c.api.services.list({ clinic_id: c.clinicId })).services.find((s) => s.name === "Massage");
    if (!massage) throw new Error("no Massage");
    expect(massage.questions).toEqual([
      { key: "reason_for_your_visit", label: "Reason for your visit", type: "text", required: true, max_length: 200 },
      {
        key: "insurance",
        label: "Insurance",
        type: "choice",
        required: true,
        options: ["Public", "Private", "Self-pay"],
      },
      { key: "consent", label: "I agree that the clinic keeps my answers", type: "boolean", required: true },
      { key: "date_of_birth", label: "Date of birth", type: "date", required: false },
    ]);

    // A patient books through the booking page, answering them.
    const patient = await pageAs(await createUser(t.handle.db), `/book/${c.clinicId}`);
    await patient.getByRole("radio", { name: /^Massage \(30 min, Anna Berg\)/ }).check();
    await patient.getByLabel("Date", { exact: true }).fill(day);
    await patient.getByRole("button", { name: /^10:00/ }).click();
    await patient
      .getByTestId("hold")
      .getByText(/^We keep 10:00 /)
      .waitFor();
    await patient.getByLabel("Name", { exact: true }).fill("Quinn Patient");
    const questions = patient.getByTestId("questions");
    await questions.getByRole("textbox", { name: "Reason for your visit (required)" }).fill("Stiff neck");
    await questions.getByRole("radio", { name: "Private" }).check();
    await questions.getByRole("checkbox", { name: /^I agree that the clinic keeps my answers/ }).check();
    await questions.getByLabel("Date of birth").fill("1980-02-03");
    await patient.getByRole("button", { name: /^Book 10:00/ }).click();
    await patient.getByText(/^Booked: Massage with Anna Berg/).waitFor();

    // The desk shows the answers on the card; the API has them as given.
    const desk = await pageAs(c.admin, `/desk/${c.clinicId}?date=${day}`);
    const card = desk.locator('[data-cell="Anna Berg 10:00"]').locator(".appt");
    await card.getByText("Quinn Patient, Massage").waitFor();
    await card.getByText("Answers", { exact: true }).click();
    const answers = card.getByTestId("answers");
    await answers.waitFor();
    expect(await answers.locator("dt").allTextContents()).toEqual([
      "Reason for your visit",
      "Insurance",
      "I agree that the clinic keeps my answers",
      "Date of birth",
    ]);
    expect(await answers.locator("dd").allTextContents()).toEqual(["Stiff neck", "Private", "yes", "1980-02-03"]);
    await screenshot(desk, "desk-answers", { docs: true });
    expect(await axeViolations(desk, "desk, a card's answers")).toEqual([]);
    const booked = await c.api.appointments.list({ clinic_id: c.clinicId, service_id: massage.id });
    expect(booked.appointments[0]?.answers.map((a) => [a.key, a.value])).toEqual([
      ["reason_for_your_visit", "Stiff neck"],
      ["insurance", "Private"],
      ["consent", true],
      ["date_of_birth", "1980-02-03"],
    ]);
  });

  it("shows STAFF the services read-only, deletes with a confirmation, and tells other roles the setup is not theirs", async () => {
    const c = await setUpClinic("Praxis Lesen");
    const staff = await pageAs(c.staff, `/desk/${c.clinicId}`);
    await staff.getByTestId("setup-link").click();
    await staff.getByRole("heading", { name: "Praxis Lesen: Services" }).waitFor();
    await staff.getByTestId("services-table").waitFor();
    expect(await staff.getByRole("link", { name: "New service" }).count()).toBe(0);
    await staff.getByRole("link", { name: "Massage" }).click();
    await staff.getByTestId("service-facts").waitFor();
    expect(await staff.getByTestId("read-only").textContent()).toContain("only a clinic administrator can change it");
    expect(await staff.getByRole("button", { name: /Save|Delete/ }).count()).toBe(0);
    expect(await staff.locator("form").count()).toBe(0);
    expect(await staff.getByTestId("service-history").count()).toBe(0);
    await screenshot(staff, "setup-service-staff");
    expect(await axeViolations(staff, "setup, a service read by STAFF")).toEqual([]);

    // A custom role: no desk link to it, and the page says the setup is for staff and administrators.
    const trainee = await pageAs(c.custom, `/desk/${c.clinicId}/setup/services`);
    await trainee.getByTestId("setup-refused").waitFor();
    expect(await trainee.getByTestId("services-table").count()).toBe(0);
    expect(await axeViolations(trainee, "setup, refused")).toEqual([]);

    // An area that is not there (yet) says so, under the same nav.
    const admin = await pageAs(c.admin, `/desk/${c.clinicId}/setup/rooms`);
    await admin
      .getByTestId("setup-unavailable")
      .getByText(/not yet available/)
      .waitFor();
    expect(await axeViolations(admin, "setup, unknown area")).toEqual([]);

    // Delete asks first (the focus on "Keep it"); Escape keeps it; "Yes, delete it" deletes it.
    await admin.goto(`${pages.base}/desk/${c.clinicId}/setup/services`);
    await admin.getByRole("link", { name: "Massage" }).click();
    await admin.getByRole("button", { name: "Delete service…" }).click();
    const dialog = admin.getByTestId("confirm-dialog");
    await dialog.getByRole("heading", { name: "Delete “Massage”?" }).waitFor();
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe("Keep it");
    expect(await axeViolations(admin, "setup, delete confirmation")).toEqual([]);
    await admin.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe("Delete service…");
    await admin.getByRole("button", { name: "Delete service…" }).click();
    await dialog.getByRole("button", { name: "Yes, delete it" }).click();
    await admin
      .getByTestId("services-notice")
      .getByText(/^Deleted “Massage”/)
      .waitFor();
    expect((await c.api.services.list({ clinic_id: c.clinicId, include_inactive: true })).services).toEqual([]);
  });
});
