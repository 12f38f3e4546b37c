// Plain unit tests (no browser): how busy time from providers' own calendars (§18) splits a desk
// column, the times the desk says of it, and its words in both locales.
import { describe, expect, it } from "vitest";
import { type Block, busyTimes, columnBlocks } from "../src/deskDay.ts";
import { strings } from "../src/i18n.ts";
import { instantAt } from "../src/time.ts";

const timeZone = "Europe/Berlin";
const date = "2027-03-15";
const at = (hhmm: string) => {
  const [h = 0, m = 0] = hhmm.split(":").map(Number);
  return instantAt(date, h * 60 + m, timeZone);
};
// Rows 09:00 … 12:30, every half hour.
const rows = [9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5].map((h) => h * 60);
const busy = (from: string, to: string, stale = false) => ({ starts_at: at(from), ends_at: at(to), stale });

type Appointment = { start: Date; end: Date };
function column(input: {
  busy: ReturnType<typeof busy>[];
  appointments?: Appointment[];
  closures?: { starts_at: Date; ends_at: Date; reason: string | null }[];
}): Block<Appointment>[] {
  return columnBlocks<Appointment>({
    date,
    timeZone,
    rows,
    rowStep: 30,
    appointments: input.appointments ?? [],
    providerClosures: input.closures ?? [],
    clinicClosures: [],
    busy: input.busy,
    // V1 offers every start: busy time must win all the same (it is never offered for a walk-in).
    freeStarts: new Set(rows),
    working: () => true,
  });
}
const shape = (blocks: Block<Appointment>[]) =>
  blocks.map((b) => `${b.kind}${b.kind === "external" && b.stale ? "(stale)" : ""}@${String(b.row)}+${String(b.span)}`);

describe("busy time in a desk column", () => {
  it("is one block over the rows it touches, never a free cell", () => {
    const blocks = column({ busy: [busy("10:00", "11:00")] });
    expect(shape(blocks)).toEqual([
      "free@0+1",
      "free@1+1",
      "external@2+2",
      "free@4+1",
      "free@5+1",
      "free@6+1",
      "free@7+1",
    ]);
    const block = blocks[2];
    expect(block?.kind === "external" ? busyTimes(block.periods, date, timeZone) : "").toBe("10:00–11:00");
  });

  it("takes a row it touches only in part, and joins neighbouring events into one block with their times", () => {
    const blocks = column({ busy: [busy("10:15", "10:40"), busy("10:50", "11:10")] });
    expect(shape(blocks).slice(2, 3)).toEqual(["external@2+3"]);
    const block = blocks[2];
    expect(block?.kind === "external" ? busyTimes(block.periods, date, timeZone) : "").toBe("10:15–10:40, 10:50–11:10");
  });

  it("gives way to appointments and closures, which split it", () => {
    const blocks = column({
      busy: [busy("09:00", "12:00")],
      appointments: [{ start: at("10:00"), end: at("10:30") }],
      closures: [{ starts_at: at("11:00"), ends_at: at("11:30"), reason: "Lunch" }],
    });
    expect(shape(blocks)).toEqual([
      "external@0+2",
      "appointments@2+1",
      "external@3+1",
      "closed@4+1",
      "external@5+1",
      "free@6+1",
      "free@7+1",
    ]);
  });

  it("marks a stale calendar's time (it spans all time) apart from synced busy time", () => {
    const blocks = column({
      busy: [busy("10:00", "10:30"), { starts_at: new Date(-8.64e15), ends_at: new Date(8.64e15), stale: true }],
      appointments: [{ start: at("12:00"), end: at("12:30") }],
    });
    expect(shape(blocks)).toEqual(["external(stale)@0+6", "appointments@6+1", "external(stale)@7+1"]);
  });

  it("says times across midnight as the day's edges", () => {
    expect(
      busyTimes([{ starts_at: instantAt("2027-03-14", 22 * 60, timeZone), ends_at: at("02:00") }], date, timeZone),
    ).toBe("00:00–02:00");
    expect(
      busyTimes([{ starts_at: at("22:00"), ends_at: instantAt("2027-03-16", 120, timeZone) }], date, timeZone),
    ).toBe("22:00–24:00");
  });
});

describe("the words for calendars", () => {
  it("has each in English and German", () => {
    expect([strings.en.busyCalendar, strings.de.busyCalendar]).toEqual(["busy (calendar)", "belegt (Kalender)"]);
    expect([strings.en.calendarStale, strings.de.calendarStale]).toEqual([
      "calendar not synced — no bookings",
      "Kalender nicht abgeglichen — keine Buchungen",
    ]);
    expect(strings.en.calendarsOf("Anna Berg")).toBe("Calendars of Anna Berg");
    expect(strings.de.calendarsOf("Anna Berg")).toBe("Kalender von Anna Berg");
    for (const locale of ["en", "de"] as const) {
      for (const status of ["pending", "ok", "error", "stale"] as const)
        expect(strings[locale].calendarStatuses[status]).not.toBe("");
    }
  });
});
