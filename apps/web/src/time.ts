// Clinic wall-clock time in the browser, with the platform's Intl (no time-zone data shipped).

const parts = (instant: Date, timeZone: string) => {
  const out: Record<string, string> = {};
  for (const p of new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(instant)) {
    out[p.type] = p.value;
  }
  return out;
};

/** "14:30" in `timeZone`. */
export function timeIn(instant: Date, timeZone: string): string {
  const p = parts(instant, timeZone);
  return `${p.hour ?? "00"}:${p.minute ?? "00"}`;
}

/** "YYYY-MM-DD" of an instant in `timeZone`. */
export function dateIn(instant: Date, timeZone: string): string {
  const p = parts(instant, timeZone);
  return `${p.year ?? ""}-${p.month ?? ""}-${p.day ?? ""}`;
}

/** Minutes since local midnight of an instant in `timeZone`. */
export function minutesIn(instant: Date, timeZone: string): number {
  const p = parts(instant, timeZone);
  return Number(p.hour) * 60 + Number(p.minute);
}

/** The instant at which `timeZone`'s wall clock reads `date` + `minutes` (the earlier one in a fold). */
export function instantAt(date: string, minutes: number, timeZone: string): Date {
  const [y = 1970, m = 1, d = 1] = date.split("-").map(Number);
  const wall = Date.UTC(y, m - 1, d, Math.floor(minutes / 60), minutes % 60);
  let guess = wall;
  for (let i = 0; i < 3; i++) {
    const shown = parts(new Date(guess), timeZone);
    const shownWall = Date.UTC(
      Number(shown.year),
      Number(shown.month) - 1,
      Number(shown.day),
      Number(shown.hour),
      Number(shown.minute),
    );
    guess += wall - shownWall;
  }
  return new Date(guess);
}

/** ISO weekday 1 (Monday) … 7 of a local date. */
export function weekdayOf(date: string): number {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

/** "HH:MM" → minutes. */
export const minutesOf = (hhmm: string) => {
  const [h = 0, m = 0] = hhmm.split(":").map(Number);
  return h * 60 + m;
};

export const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** The visitor's own zone, e.g. "America/New_York". */
export const visitorZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A long, readable date: "Tuesday, 16 March 2027". */
export function longDate(date: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
  }).format(new Date(`${date}T12:00:00Z`));
}
