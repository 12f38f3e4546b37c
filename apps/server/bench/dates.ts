// Date helpers of the benches: local dates as YYYY-MM-DD, and a clinic's wall-clock time as an instant.
export const day = 86_400_000;
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * day).toISOString().slice(0, 10);

const formatters = new Map<string, Intl.DateTimeFormat>();
/** The zone's offset from UTC (ms) at instant `t`. */
function offsetMs(t: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(t)))
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  const asUtc = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return asUtc - Math.floor(t / 1000) * 1000;
}

/** The instant of wall-clock `minute` of local `date` in `timeZone`, as ISO 8601 UTC. */
export function zonedInstant(date: string, minute: number, timeZone: string): string {
  const wall = Date.parse(`${date}T00:00:00Z`) + minute * 60_000;
  let t = wall - offsetMs(wall, timeZone);
  const again = wall - offsetMs(t, timeZone);
  if (again !== t) t = again;
  return new Date(t).toISOString();
}
