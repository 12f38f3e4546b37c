// The reports page (CONTRACT §20) in a real browser against a real server: a clinic admin reaches it
// from the desk, sees utilization by provider and week and the no-show rate by week as charts, each
// with a table that holds the API's own figures for the seeded appointments (RP1), changes the
// range (the page asks again; a reversed or too long range is explained at the field), downloads
// RP1 and RP2 as CSV, and STAFF are told that reports are for clinic administrators (no link on
// their desk). axe-core: no WCAG 2.x A/AA violation.
import { mkdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, useBrowserPages } from "./browser.ts";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  callerFor,
  createClinic,
  type TestUser,
} from "@clinic/api/testing";
import { useTestApp } from "@clinic/server/test-helpers";
import { addDays } from "../src/deskDay.ts";
import { defaultRange, percent, weekLabel, weeksOf } from "../src/reports.ts";
import { dateIn, instantAt } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
/** The range the page opens on: the last eight full weeks in the clinic's zone. */
const range = defaultRange(dateIn(new Date(), timeZone));
const weeks = weeksOf(range.from, range.to);
/** The sixth and seventh of those weeks (Mondays): where the seeded appointments lie. */
const weekA = addDays(range.from, 35);
const weekB = addDays(range.from, 42);
/** The header row of RP1's CSV: the row's fields in the contract's order (§20). */
const utilizationHeader =
  "key,label,available_minutes,booked_minutes,utilization,appointments,completed,no_show,canceled,canceled_late,no_show_rate,median_lead_time_hours";
const noUtilization = "—no available time";
const noRate = "—no completed or missed appointments";

describe.skipIf(!chromiumPath)("the reports page in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);
  let clinicId = "";
  let admin: TestUser;
  let staff: TestUser;

  beforeAll(async () => {
    const db = t.handle.db;
    clinicId = await createClinic(db, { timezone: timeZone, name: "Praxis Bericht" });
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const ben = await addProvider(db, clinicId, "Ben Koch");
    await addHours(db, clinicId, ben.id, [1, 2, 3, 4, 5], "09:00", "13:00");
    const consultation = await addService(db, clinicId, { name: "Consultation", durationMin: 60 });
    admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });

    /** An appointment's life at the desk, each step at its own moment (the API's clock pinned). */
    const visit = async (providerId: string, date: string, minutes: number, outcome: "completed" | "no_show") => {
      const start = instantAt(date, minutes, timeZone);
      const at = (offsetMin: number) => () => new Date(start.getTime() + offsetMin * 60_000);
      const booked = await callerFor(db, staff, { now: at(-3 * 24 * 60) }).appointments.book({
        clinic_id: clinicId,
        service_id: consultation,
        provider_id: providerId,
        start,
        patient: { name: `Patient ${date} ${String(minutes)}` },
      });
      const desk = callerFor(db, staff, { now: at(30) });
      if (outcome === "completed") {
        await desk.appointments.setStatus({ clinic_id: clinicId, id: booked.id, status: "arrived" });
      }
      await desk.appointments.setStatus({ clinic_id: clinicId, id: booked.id, status: outcome });
    };
    // Week A: one completed, one missed (50 %). Week B: two completed, one missed (33.3 %).
    await visit(anna.id, addDays(weekA, 1), 10 * 60, "completed");
    await visit(anna.id, addDays(weekA, 2), 10 * 60, "no_show");
    await visit(anna.id, addDays(weekB, 1), 10 * 60, "completed");
    await visit(anna.id, addDays(weekB, 3), 14 * 60, "completed");
    await visit(ben.id, addDays(weekB, 3), 11 * 60, "no_show");

    await mkdir(shots, { recursive: true });
  });

  /** A page of a user in New York (the clinic is in Berlin), signed in by cookie; `wide` is a desktop. */
  function pageAs(user: TestUser, wide = false): Promise<Page> {
    return pages.page(user, undefined, {
      acceptDownloads: true,
      ...(wide ? { viewport: { width: 1280, height: 900 } } : {}),
    });
  }

  /** A table's body as `{ week: { column: text } }`: rows by `data-week`, columns by `data-line` or the header's text. */
  const tableOf = (page: Page, testId: string) =>
    page.getByTestId(testId).evaluate((table) => {
      const heads = [...table.querySelectorAll("thead th")].map(
        (th) => th.getAttribute("data-line") ?? th.textContent.trim(),
      );
      const out: Record<string, Record<string, string>> = {};
      for (const tr of table.querySelectorAll("tbody tr")) {
        const cells: Record<string, string> = {};
        [...tr.children].forEach((cell, i) => {
          cells[cell.getAttribute("data-line") ?? heads[i] ?? String(i)] = cell.textContent.trim();
        });
        out[tr.getAttribute("data-week") ?? ""] = cells;
      }
      return out;
    });

  /** True when the canvas has something drawn on it (its pixels differ from a blank one of its size). */
  const drawn = (page: Page, testId: string) =>
    page.getByTestId(testId).evaluate((canvas: HTMLCanvasElement) => {
      const blank = document.createElement("canvas");
      blank.width = canvas.width;
      blank.height = canvas.height;
      return canvas.width > 0 && canvas.height > 0 && canvas.toDataURL() !== blank.toDataURL();
    });

  /** The utilization table as the API's RP1 answers make it: a row per week and one for the whole range, a column per provider and one for the clinic. */
  async function expectedUtilization(from: string, to: string) {
    const api = callerFor(t.handle.db, admin);
    const columns = weeksOf(from, to);
    const spansYears = from.slice(0, 4) !== to.slice(0, 4);
    const text = (u: number | null | undefined) => percent(u ?? null) ?? noUtilization;
    const { rows: providers } = await api.reports.utilization({ clinic_id: clinicId, from, to, group_by: "provider" });
    const { rows: clinicWeeks } = await api.reports.utilization({ clinic_id: clinicId, from, to, group_by: "week" });
    const weekly = new Map<string, { key: string; utilization: number | null }[]>();
    for (const p of providers) {
      const answer = await api.reports.utilization({
        clinic_id: clinicId,
        from,
        to,
        group_by: "week",
        provider_id: p.key,
      });
      weekly.set(p.key, answer.rows);
    }
    const figure = (rows: readonly { key: string; utilization: number | null }[] | undefined, week: string) =>
      text(rows?.find((r) => r.key === week)?.utilization);
    const out: Record<string, Record<string, string>> = {};
    for (const week of columns) {
      out[week] = {
        "Week of": weekLabel(week, spansYears),
        ...Object.fromEntries(providers.map((p) => [p.key, figure(weekly.get(p.key), week)])),
        all: figure(clinicWeeks, week),
      };
    }
    const available = clinicWeeks.reduce((sum, r) => sum + r.available_minutes, 0);
    const booked = clinicWeeks.reduce((sum, r) => sum + r.booked_minutes, 0);
    out.total = {
      "Week of": "Whole range",
      ...Object.fromEntries(providers.map((p) => [p.key, text(p.utilization)])),
      all: text(booked / available),
    };
    return { table: out, providers, clinicWeeks };
  }

  it("shows utilization by provider and week and the no-show rate as charts, each with a table of the API's figures", async () => {
    // The desk of a clinic admin links to the reports.
    const desk = await pageAs(admin, true);
    await desk.goto(`${pages.base}/desk/${clinicId}`);
    const link = desk.getByRole("link", { name: "Reports: utilization and no-shows" });
    await link.click();
    await desk.waitForURL(`${pages.base}/desk/${clinicId}/reports`);
    const page = desk;
    await page.getByRole("heading", { name: "Praxis Bericht: reports" }).waitFor();
    await page.getByTestId("utilization-table").waitFor();

    // The range: the last eight full weeks in the clinic's zone, in two labelled date fields.
    expect(await page.getByLabel("First day").inputValue()).toBe(range.from);
    expect(await page.getByLabel("Last day").inputValue()).toBe(range.to);
    expect(await page.getByTestId("range-line").textContent()).toContain("clinic time (Europe/Berlin)");

    // Both charts are drawn, each an image named after the table beside it.
    expect(await drawn(page, "utilization-chart")).toBe(true);
    expect(await drawn(page, "no-show-chart")).toBe(true);
    expect(await page.getByRole("img", { name: /^Line chart of utilization per week/ }).count()).toBe(1);
    expect(await page.getByRole("img", { name: /^Bar chart of the no-show rate per week/ }).count()).toBe(1);

    // The utilization table holds RP1's figures: each provider per week and in all, and the clinic's.
    const expected = await expectedUtilization(range.from, range.to);
    console.log(`utilization (API): ${JSON.stringify(expected.table)}`);
    const shown = await tableOf(page, "utilization-table");
    expect(shown).toEqual(expected.table);
    expect(Object.keys(shown)).toEqual([...weeks, "total"]);
    expect(expected.providers.map((p) => p.label).sort()).toEqual(["Anna Berg", "Ben Koch"]);
    const headings = await page.getByTestId("utilization-table").locator("thead th").allTextContents();
    expect(headings).toEqual(["Week of", ...expected.providers.map((p) => p.label), "All providers"]);
    // Anna's 2 hours in week A are a share of her 56 available hours that week; she worked every week.
    const annaKey = expected.providers.find((p) => p.label === "Anna Berg")?.key ?? "";
    expect(shown[weekA]?.[annaKey]).toBe(percent(120 / (7 * 8 * 60)));
    expect(shown[weeks[0] ?? ""]?.[annaKey]).toBe("0%");
    expect(shown[weekA]?.["Week of"]).toMatch(/^\d{1,2} \w{3,4}$/);

    // The no-show table, week by week, with the whole range; a week with nothing to count says so.
    const noShows = await tableOf(page, "no-show-table");
    expect(noShows[weekA]).toMatchObject({ Completed: "1", "No-shows": "1", "No-show rate": "50%" });
    expect(noShows[weekB]).toMatchObject({ Completed: "2", "No-shows": "1", "No-show rate": "33.3%" });
    expect(noShows[weeks[0] ?? ""]).toMatchObject({ Completed: "0", "No-shows": "0", "No-show rate": noRate });
    expect(noShows.total).toEqual({ "Week of": "Whole range", Completed: "3", "No-shows": "2", "No-show rate": "40%" });
    // …as RP1 gives them.
    for (const row of expected.clinicWeeks) {
      expect(noShows[row.key]?.["No-show rate"]).toBe(percent(row.no_show_rate) ?? noRate);
    }

    await page.screenshot({ path: `${shots}reports.png`, fullPage: true });
    expect(await axeViolations(page, "reports page")).toEqual([]);
    // The hours behind it, opened.
    await page.getByText("The hours behind it, per provider").click();
    await page.getByTestId("provider-totals").waitFor();
    expect(await axeViolations(page, "reports page, hours per provider")).toEqual([]);
  });

  it("asks again for a new range, and explains a reversed or too long one at the field", async () => {
    const page = await pageAs(admin);
    await page.goto(`${pages.base}/desk/${clinicId}/reports`);
    await page.getByTestId("utilization-table").waitFor();
    const from = page.getByLabel("First day");
    const to = page.getByLabel("Last day");
    const show = page.getByRole("button", { name: "Show report" });

    // Reversed: the message is tied to the last day, which gets the focus; nothing is asked.
    await from.fill(weekB);
    await to.fill(weekA);
    await show.click();
    await page
      .getByTestId("range-problem")
      .getByText("The last day is before the first day: choose a later last day.")
      .waitFor();
    expect(await to.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => to.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.screenshot({ path: `${shots}reports-range-problem.png`, fullPage: true });
    expect(await axeViolations(page, "reports page, a reversed range")).toEqual([]);

    // Longer than 366 days.
    await from.fill("2025-01-01");
    await to.fill("2026-01-02");
    await show.click();
    await page
      .getByTestId("range-problem")
      .getByText(/^A report covers at most 366 days; this range has 367\./)
      .waitFor();

    // Week A alone: the page asks RP1 again, and the tables shrink to that week.
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("reports.utilization")) asked.push(request.url());
    });
    await from.fill(weekA);
    await to.fill(addDays(weekA, 6));
    await show.click();
    expect(await page.getByTestId("range-problem").count()).toBe(0);
    await expect.poll(() => page.getByTestId("utilization-table").locator("tbody tr").count()).toBe(2);
    expect(asked.length).toBeGreaterThan(0);
    expect(new URL(page.url()).searchParams.get("from")).toBe(weekA);
    const expected = await expectedUtilization(weekA, addDays(weekA, 6));
    expect(await tableOf(page, "utilization-table")).toEqual(expected.table);
    const noShows = await tableOf(page, "no-show-table");
    expect(Object.keys(noShows)).toEqual([weekA, "total"]);
    expect(noShows.total).toMatchObject({ Completed: "1", "No-shows": "1", "No-show rate": "50%" });
    expect(await drawn(page, "utilization-chart")).toBe(true);

    // The range in the address survives a reload.
    await page.reload();
    await page.getByTestId("utilization-table").waitFor();
    expect(await page.getByLabel("First day").inputValue()).toBe(weekA);
  });

  it("downloads utilization and the appointments as CSV for the range shown", async () => {
    const page = await pageAs(admin);
    await page.goto(`${pages.base}/desk/${clinicId}/reports`);
    await page.getByTestId("utilization-table").waitFor();

    const save = async (name: string) => {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name }).click()]);
      const path = await download.path();
      return { name: download.suggestedFilename(), text: await readFile(path, "utf8") };
    };

    const byWeek = await save("Utilization by week (CSV)");
    expect(byWeek.name).toBe(`utilization-by-week_${range.from}_${range.to}.csv`);
    const weekLines = byWeek.text.split(/\r?\n/).filter((line) => line !== "");
    expect(weekLines[0]).toBe(utilizationHeader);
    expect(weekLines).toHaveLength(1 + weeks.length);
    expect(weekLines[1]?.startsWith(`${weeks[0] ?? ""},`)).toBe(true);
    await page.getByTestId("download-note").getByText(`Downloaded ${byWeek.name}.`).waitFor();

    const byProvider = await save("Utilization by provider (CSV)");
    const providerLines = byProvider.text.split(/\r?\n/).filter((line) => line !== "");
    expect(providerLines[0]).toBe(utilizationHeader);
    expect(
      providerLines
        .slice(1)
        .map((line) => line.split(",")[1])
        .sort(),
    ).toEqual(["Anna Berg", "Ben Koch"]);

    const list = await save("Appointments (CSV)");
    expect(list.name).toBe(`appointments_${range.from}_${range.to}.csv`);
    const listLines = list.text.split(/\r?\n/).filter((line) => line !== "");
    expect(listLines[0]?.startsWith("id,start,end,")).toBe(true);
    expect(listLines).toHaveLength(1 + 5);
    expect(list.text).toContain(`Patient ${addDays(weekA, 2)} 600`);
    expect(await axeViolations(page, "reports page, after a download")).toEqual([]);
  });

  it("tells STAFF that reports are for clinic administrators, and shows them no link on the desk", async () => {
    const desk = await pageAs(staff);
    const probed = desk.waitForResponse((response) => response.url().includes("reports.utilization"));
    await desk.goto(`${pages.base}/desk/${clinicId}`);
    await desk.getByRole("heading", { name: "Praxis Bericht: front desk" }).waitFor();
    // The desk asked whether STAFF may see reports (RP1 for a day) and was refused: no link.
    expect(await (await probed).text()).toContain('"domain_code":"FORBIDDEN"');
    await desk.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await desk.getByRole("link", { name: /^Reports/ }).count()).toBe(0);

    const page = await pageAs(staff);
    await page.goto(`${pages.base}/desk/${clinicId}/reports`);
    await page
      .getByTestId("reports-refused")
      .getByText(/^Reports are for clinic administrators only\./)
      .waitFor();
    expect(await page.getByTestId("utilization-table").count()).toBe(0);
    expect(await page.getByRole("button", { name: /CSV/ }).count()).toBe(0);
    await page.getByRole("link", { name: "Back to the front desk" }).waitFor();
    expect(await axeViolations(page, "reports page, refused")).toEqual([]);
  });
});
