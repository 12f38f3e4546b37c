// Patient data in the pages (CONTRACT §21) in a real browser against a real server: a clinic admin
// opens "Patient data" on the desk, downloads what the clinic holds about a patient as JSON (X1) and
// as a FHIR R4 Bundle, is told at the field when the identifier is missing or refused, erases the
// patient after a confirmation that names what erasure does (refused without a reason and the "I
// understand"), sees the pseudonym and the counts, and the desk behind the dialog then shows the
// pseudonym on the patient's past visit; STAFF have no "Patient data"; a signed-in patient
// downloads their own data from "My appointments" (X3). axe-core: no WCAG 2.x A/AA violation on
// the dialog in each state.
import { mkdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, useBrowserPages } from "./browser.ts";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  callerFor,
  codeOf,
  createClinic,
  createUser,
  type TestUser,
} from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { addDays } from "../src/deskDay.ts";
import { dateIn, instantAt } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
const today = dateIn(new Date(), timeZone);
/** Petra's past visit (completed) is yesterday at 10:00; her next one, and Mia's, the day after tomorrow. */
const yesterday = addDays(today, -1);
const later = addDays(today, 2);
const petraPhone = "+4915712345678";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
/** The ids of a list of objects in a parsed document (`[]` when it is not one). */
const idsOf = (list: unknown): unknown[] =>
  Array.isArray(list) ? list.map((x) => (isRecord(x) ? x.id : undefined)) : [];

describe.skipIf(!chromiumPath)("patient data in the pages, in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);
  let clinicId = "";
  let admin: TestUser;
  let staff: TestUser;
  let petra: TestUser;
  let mia: TestUser;
  let petraPast = "";
  let petraNext = "";
  let ottoNext = "";
  let miaNext = "";

  beforeAll(async () => {
    const db = t.handle.db;
    clinicId = await createClinic(db, { timezone: timeZone, name: "Praxis Daten" });
    await db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, clinicId));
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "08:00", "18:00");
    const consultation = await addService(db, clinicId, { name: "Consultation", durationMin: 30 });
    admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    petra = await createUser(db);
    mia = await createUser(db);

    const bookAt = async (
      date: string,
      minutes: number,
      patient: { name: string; email: string; phone_e164?: string },
      userId: string | undefined,
      now?: () => Date,
    ) => {
      const booked = await callerFor(db, staff, now ? { now } : {}).appointments.book({
        clinic_id: clinicId,
        service_id: consultation,
        provider_id: anna.id,
        start: instantAt(date, minutes, timeZone),
        patient,
        ...(userId ? { patient_user_id: userId } : {}),
      });
      return booked.id;
    };
    // Petra's visit yesterday, booked three days before and completed at the desk (the API's clock pinned).
    const pastStart = instantAt(yesterday, 10 * 60, timeZone);
    const at = (offsetMin: number) => () => new Date(pastStart.getTime() + offsetMin * 60_000);
    const petraPatient = { name: "Petra Vogel", email: petra.email, phone_e164: petraPhone };
    petraPast = await bookAt(yesterday, 10 * 60, petraPatient, petra.id, at(-3 * 24 * 60));
    const desk = callerFor(db, staff, { now: at(10) });
    await desk.appointments.setStatus({ clinic_id: clinicId, id: petraPast, status: "arrived" });
    await desk.appointments.setStatus({ clinic_id: clinicId, id: petraPast, status: "completed" });
    petraNext = await bookAt(later, 11 * 60, petraPatient, petra.id);
    ottoNext = await bookAt(later, 9 * 60, { name: "Otto Other", email: "otto@test.example" }, undefined);
    miaNext = await bookAt(later, 14 * 60, { name: "Mia Mine", email: mia.email }, mia.id);

    await mkdir(shots, { recursive: true });
  });

  /** A desktop page of a user in New York (the clinic is in Berlin), signed in by cookie. */
  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  }

  /** Clicks the button named `name` and reads the file it saves: its suggested name and parsed JSON. */
  async function save(page: Page, name: string): Promise<{ name: string; json: unknown }> {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    const text = await readFile(await download.path(), "utf8");
    return { name: download.suggestedFilename(), json: JSON.parse(text) as unknown };
  }

  /** The accessible name or text of the focused element. */
  const focused = (page: Page) =>
    page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent);

  /** The admin's desk on yesterday, with the dialog opened from "Patient data". */
  async function openDialog(): Promise<Page> {
    const page = await pageAs(admin, `/desk/${clinicId}?date=${yesterday}`);
    await page.getByRole("heading", { name: "Praxis Daten: front desk" }).waitFor();
    await page.getByRole("button", { name: "Patient data" }).click();
    await page.getByRole("dialog", { name: "Patient data" }).waitFor();
    return page;
  }

  it("downloads what the clinic holds about a patient, as JSON and as a FHIR Bundle, and names a wrong identifier at its field", async () => {
    const page = await openDialog();
    const dialog = page.getByRole("dialog", { name: "Patient data" });
    // Focus moves in the next frame: polled, not read once.
    await expect.poll(() => focused(page)).toBe("Patient data");
    await page.screenshot({ path: `${shots}patient-data.png`, fullPage: true });
    expect(await axeViolations(page, "patient data dialog")).toEqual([]);

    // No identifier: said at the field, which takes the focus; nothing is asked.
    await dialog.getByRole("button", { name: "Download export (JSON)" }).click();
    const value = dialog.getByLabel("The patient's e-mail address");
    await dialog.getByTestId("patient-value-error").getByText("Enter the patient's e-mail address first.").waitFor();
    expect(await value.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => value.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await axeViolations(page, "patient data dialog, no identifier")).toEqual([]);

    // By e-mail (any letter case): the JSON export holds both of Petra's appointments, not Otto's.
    await value.fill(petra.email.toUpperCase());
    const json = await save(page, "Download export (JSON)");
    expect(json.name).toMatch(/^patient-export_\d{4}-\d\d-\d\d\.json$/);
    expect(json.name).not.toContain(petra.email);
    if (!isRecord(json.json)) throw new Error("the export is not an object");
    expect(json.json.clinic).toMatchObject({ id: clinicId, name: "Praxis Daten" });
    const ids = idsOf(json.json.appointments);
    expect(ids).toEqual(expect.arrayContaining([petraPast, petraNext]));
    expect(ids).not.toContain(ottoNext);
    expect(json.json.patient).toMatchObject({ names: ["Petra Vogel"], phones: [petraPhone] });
    await dialog.getByTestId("patient-data-notice").getByText(`Downloaded ${json.name} (JSON).`).waitFor();

    // By phone, as FHIR: a collection Bundle with her Patient and her Appointments.
    await dialog.getByRole("radio", { name: "Phone number" }).check();
    const phone = dialog.getByLabel("The patient's phone number");
    await phone.fill("12345");
    await dialog.getByRole("button", { name: "Download export (FHIR)" }).click();
    // A refused phone number (400 naming phone_e164) is said at the field.
    await dialog.getByTestId("patient-value-error").waitFor();
    expect(await dialog.getByTestId("patient-value-error").textContent()).toMatch(/^The phone number /);
    expect(await phone.getAttribute("aria-invalid")).toBe("true");
    expect(await axeViolations(page, "patient data dialog, a refused phone number")).toEqual([]);
    await phone.fill(petraPhone);
    const fhir = await save(page, "Download export (FHIR)");
    expect(fhir.name).toMatch(/^patient-export_\d{4}-\d\d-\d\d\.fhir\.json$/);
    if (!isRecord(fhir.json)) throw new Error("the FHIR export is not an object");
    expect(fhir.json).toMatchObject({ resourceType: "Bundle", type: "collection" });
    const entries = Array.isArray(fhir.json.entry) ? fhir.json.entry : [];
    const types = entries.map((e) => (isRecord(e) && isRecord(e.resource) ? e.resource.resourceType : undefined));
    expect(types).toContain("Patient");
    expect(types.filter((type) => type === "Appointment").length).toBeGreaterThanOrEqual(2);
    await dialog.getByTestId("patient-data-notice").getByText(`Downloaded ${fhir.name} (FHIR R4 Bundle).`).waitFor();

    // Escape closes the dialog and gives the focus back to "Patient data".
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    // Focus moves in the next frame: polled, not read once.
    await expect.poll(() => focused(page)).toBe("Patient data");
  });

  it("erases a patient only after a confirmation with a reason, and shows the pseudonym on the desk", async () => {
    const page = await openDialog();
    const dialog = page.getByRole("dialog", { name: "Patient data" });
    const cell = page.locator('[data-cell="Anna Berg 10:00"]');
    await cell.getByText("Petra Vogel, Consultation").waitFor();
    const erasures: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("patientData.erase")) erasures.push(request.url());
    });

    await dialog.getByLabel("The patient's e-mail address").fill(petra.email);
    await dialog.getByRole("button", { name: "Erase…" }).click();
    // The confirmation names who, where, and what erasure does; its heading has the focus.
    const confirmation = dialog.getByTestId("erase-confirmation");
    const question = `Erase the patient with the e-mail address ${petra.email} from Praxis Daten?`;
    await confirmation.getByRole("heading", { name: question }).waitFor();
    // Focus moves in the next frame: polled, not read once.
    await expect.poll(() => focused(page)).toBe(question);
    const text = (await confirmation.textContent()) ?? "";
    for (const words of [
      "cancels their future appointments at this clinic, without sending them a message",
      "replaces their name by a pseudonym (erased-…) and removes their e-mail address, phone number, notes and answers from every appointment, message, waitlist entry, event and webhook delivery of this clinic",
      "keeps the times, services, providers, statuses and report figures",
      "stops the links in their e-mails from working",
      "does not touch what other clinics hold about them",
      "It cannot be undone.",
    ]) {
      expect(text).toContain(words);
    }
    // The form is described by those consequences (read with it).
    expect(await confirmation.getAttribute("aria-describedby")).toBeTruthy();
    await page.screenshot({ path: `${shots}patient-data-erase-confirm.png`, fullPage: true });
    expect(await axeViolations(page, "patient data dialog, erase confirmation")).toEqual([]);

    // Without a reason: refused at the field (focus there), nothing sent.
    const erase = confirmation.getByRole("button", { name: "Erase this patient" });
    await erase.click();
    const reason = confirmation.getByLabel("Reason for the erasure (kept in the audit trail)");
    await confirmation.getByTestId("reason-error").waitFor();
    expect(await reason.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => reason.evaluate((input) => input === document.activeElement)).toBe(true);
    // With a reason but without "I understand": refused at the box.
    await reason.fill("The patient asked for erasure by letter.");
    await erase.click();
    const understood = confirmation.getByRole("checkbox", { name: "I understand that this cannot be undone" });
    await confirmation.getByTestId("understood-error").waitFor();
    expect(await understood.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => understood.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await axeViolations(page, "patient data dialog, erase refused")).toEqual([]);
    expect(erasures).toEqual([]);
    expect(await cell.getByText("Petra Vogel, Consultation").count()).toBe(1);

    // "Keep the data" goes back, focus on "Erase…"; the second time, with both, it erases.
    await confirmation.getByRole("button", { name: "Keep the data" }).click();
    await confirmation.waitFor({ state: "detached" });
    // Focus moves in the next frame: polled, not read once.
    await expect.poll(() => focused(page)).toBe("Erase…");
    await dialog.getByRole("button", { name: "Erase…" }).click();
    await reason.fill("The patient asked for erasure by letter.");
    await understood.check();
    await erase.click();

    const result = dialog.getByTestId("erase-result");
    await result.waitFor();
    const pseudonym = (await result.getByTestId("erase-pseudonym").textContent()) ?? "";
    expect(pseudonym).toMatch(/^erased-[0-9a-f]{8}$/);
    // Focus moves in the next frame: polled, not read once.
    await expect
      .poll(() => focused(page))
      .toBe(`Erased: the patient with the e-mail address ${petra.email} is now ${pseudonym} at Praxis Daten.`);
    const count = async (name: string) => Number(await result.locator(`[data-count="${name}"]`).textContent());
    expect(await count("appointments")).toBeGreaterThanOrEqual(2);
    expect(await result.locator("dt").allTextContents()).toEqual([
      "Appointments",
      "Messages",
      "Waitlist entries",
      "Events",
      "Webhook deliveries",
      "Audit entries",
    ]);
    expect(erasures).toHaveLength(1);
    await page.screenshot({ path: `${shots}patient-data-erased.png`, fullPage: true });
    expect(await axeViolations(page, "patient data dialog, erased")).toEqual([]);

    // The desk behind it now shows the pseudonym on her past visit; her future one is canceled; Otto's is untouched.
    await page.keyboard.press("Escape");
    await cell.getByText(`${pseudonym}, Consultation`).waitFor();
    expect(await page.getByText("Petra Vogel").count()).toBe(0);
    const api = callerFor(t.handle.db, admin);
    const next = await api.appointments.get({ clinic_id: clinicId, id: petraNext });
    expect(next).toMatchObject({ status: "canceled", patient: { name: pseudonym } });
    const otto = await api.appointments.get({ clinic_id: clinicId, id: ottoNext });
    expect(otto).toMatchObject({ status: "booked", patient: { name: "Otto Other" } });
  });

  it("shows STAFF no 'Patient data' on the desk", async () => {
    const probed = (page: Page) => page.waitForResponse((response) => response.url().includes("reports.utilization"));
    // The machine's own time zone here, not New York's.
    const context = await pages.context(staff, { timezoneId: undefined, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const answer = probed(page);
    await page.goto(`${pages.base}/desk/${clinicId}`);
    await page.getByRole("heading", { name: "Praxis Daten: front desk" }).waitFor();
    // The desk asked whether the caller is an administrator (RP1 for a day) and was refused.
    expect(await (await answer).text()).toContain('"domain_code":"FORBIDDEN"');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await page.getByRole("button", { name: "Patient data" }).count()).toBe(0);
    // …and the API refuses STAFF the erasure too (X2 is CLINIC_ADMIN's).
    const refused = callerFor(t.handle.db, staff).patientData.erase({
      clinic_id: clinicId,
      email: mia.email,
      reason: "try",
    });
    expect(await codeOf(refused)).toBe("FORBIDDEN");
  });

  it("lets a signed-in patient download their own data from 'My appointments'", async () => {
    const page = await pageAs(mia, `/book/${clinicId}`);
    const mine = page.getByRole("region", { name: "My appointments" });
    await mine.getByTestId("my-appointment").filter({ hasText: "Consultation" }).waitFor();
    const file = await save(page, "Download my data");
    expect(file.name).toMatch(/^my-data_\d{4}-\d\d-\d\d\.json$/);
    if (!isRecord(file.json)) throw new Error("the export is not an object");
    expect(file.json.user).toMatchObject({ id: mia.id, email: mia.email });
    const clinicsOf = Array.isArray(file.json.clinics) ? file.json.clinics.filter(isRecord) : [];
    const here = clinicsOf.find((c) => isRecord(c.clinic) && c.clinic.id === clinicId);
    expect(idsOf(here?.appointments)).toEqual([miaNext]);
    // Nobody else's data: not Petra's, not Otto's.
    expect(JSON.stringify(file.json)).not.toContain("Otto Other");
    await mine
      .getByTestId("my-data-note")
      .getByText(/^Downloaded my-data_/)
      .waitFor();
    await page.screenshot({ path: `${shots}my-data.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, my data downloaded")).toEqual([]);
  });
});
