// Patient text → the day(s) and time of day they want, in the clinic's zone, and the words left
// over for the service search. Pure: `now` and the zone are arguments, the system zone is never
// consulted (chrono-node gets the clinic's offset as its reference).
import * as chrono from "chrono-node";
import { addDays, dateOf, daysBetween, isoWeekday, offsetMinutesAt, todayIn } from "./localTime.ts";
import { fold, wordsOf } from "./words.ts";

export type PartOfDayName = "morning" | "afternoon" | "evening";

/** A part of the day as wall-clock minutes `[fromMin, toMin)`. */
export interface PartOfDay {
  name: PartOfDayName;
  fromMin: number;
  toMin: number;
}

/** What "morning", "afternoon" and "evening" mean for booking (evening overlaps the afternoon on purpose). */
export const partsOfDay: Readonly<Record<PartOfDayName, PartOfDay>> = {
  morning: { name: "morning", fromMin: 6 * 60, toMin: 12 * 60 },
  afternoon: { name: "afternoon", fromMin: 12 * 60, toMin: 18 * 60 },
  evening: { name: "evening", fromMin: 17 * 60, toMin: 21 * 60 },
};

/** The wanted time: an inclusive range of clinic dates, and what within it is preferred. */
export interface WantedTime {
  /** First date to search (`YYYY-MM-DD`, clinic time). */
  from: string;
  /** Last date to search, inclusive. */
  to: string;
  /** Dates the text named; empty when it named none (then every date of the range is as good). */
  preferredDates: string[];
  partOfDay: PartOfDay | undefined;
  /** A clock time the text named, in minutes after midnight. */
  timeOfDay: number | undefined;
  /** True when the text named no date, so the range is the next 7 days from today. */
  defaultRange: boolean;
}

export interface ParsedRequest {
  wanted: WantedTime;
  /** The text without its date/time phrases and filler words: what to search services with. */
  serviceQuery: string;
  /** A person named after "with"/"by" ("with Anna" → "Anna"); maybe a provider. */
  providerMention: string | undefined;
}

/** The API answers at most 62 dates per availability query. */
export const maxRangeDates = 62;
/** Without a date in the text: today and the 6 days after it. */
export const defaultRangeDates = 7;

// Words that carry no meaning for the service search (the API's fuzzy search scores every word).
const fillerWords = new Set(
  // Contractions split at the apostrophe ("i'd" → "i", "d"), so their pieces are listed too.
  (
    "a an the i d m s ll ve me my we us our you your please pls want wanna would like love need needs get have " +
    "book booking books schedule reserve make appointment appointments appt session slot time could can may " +
    "for with by at on in of to from around about some any or and also just one new there is are be it " +
    "morning afternoon evening tonight noon am pm asap soon possible earliest next this coming day days week weekend " +
    "dr doctor mr mrs ms bei mit"
  ).split(" "),
);

const partOfDayPattern = /\b(morning|afternoon|evening|tonight)\b/i;

function partOfDayIn(text: string): PartOfDay | undefined {
  const word = partOfDayPattern.exec(text)?.[1]?.toLowerCase();
  if (word === undefined) return undefined;
  return word === "tonight" ? partsOfDay.evening : partsOfDay[word as PartOfDayName];
}

function dateOfComponents(c: chrono.ParsedComponents, today: string): string {
  return dateOf(
    c.get("year") ?? Number(today.slice(0, 4)),
    c.get("month") ?? Number(today.slice(5, 7)),
    c.get("day") ?? Number(today.slice(8, 10)),
  );
}

function namesADate(c: chrono.ParsedComponents): boolean {
  return c.isCertain("day") || c.isCertain("weekday") || c.isCertain("month");
}

function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let d = from; daysBetween(d, to) >= 0 && dates.length < maxRangeDates; d = addDays(d, 1)) dates.push(d);
  return dates;
}

/** The dates one chrono result stands for: a day, a range ("monday to wednesday"), a week or a weekend. */
function datesOfResult(result: chrono.ParsedResult, today: string): string[] {
  const start = dateOfComponents(result.start, today);
  if (/\bwithin\b/i.test(result.text)) return datesBetween(today, start);
  if (/\bweekend\b/i.test(result.text)) {
    const saturday = isoWeekday(start) === 7 ? addDays(start, -1) : addDays(start, 6 - isoWeekday(start));
    return datesBetween(saturday, addDays(saturday, 1));
  }
  if (/\bweek\b/i.test(result.text)) {
    const monday = addDays(start, 1 - isoWeekday(start));
    return datesBetween(monday, addDays(monday, 6));
  }
  if (result.end && namesADate(result.end)) {
    const end = dateOfComponents(result.end, today);
    return daysBetween(start, end) >= 0 ? datesBetween(start, end) : [start];
  }
  return [start];
}

/**
 * A clock time named in the text, in minutes. Clinics work in the daytime, so a bare "at 3" means
 * 15:00 (and "afternoon at 5" 17:00): chrono reads an hour without am/pm as given.
 */
function timeOfDayOf(result: chrono.ParsedResult, partOfDay: PartOfDay | undefined): number | undefined {
  if (!result.start.isCertain("hour")) return undefined;
  let hour = result.start.get("hour") ?? 0;
  const minute = result.start.get("minute") ?? 0;
  if (!result.start.isCertain("meridiem") && hour < 12) {
    if (partOfDay && partOfDay.name !== "morning") hour += 12;
    else if (!partOfDay && hour >= 1 && hour <= 7) hour += 12;
  }
  return hour * 60 + minute;
}

/** The provider named after "with"/"by": up to two words that are not filler. */
function providerMentionIn(text: string): string | undefined {
  const match = /\b(?:with|by|bei|mit)\s+((?:[\p{L}'.-]+\s*){1,4})/iu.exec(text);
  if (!match?.[1]) return undefined;
  const words = match[1].split(/\s+/).filter((w) => w.length > 0 && !fillerWords.has(fold(w).replace(/\.$/, "")));
  return words.length > 0 ? words.slice(0, 2).join(" ") : undefined;
}

/**
 * Reads what a patient wrote: the wanted dates (clinic time), part of day or clock time, the
 * service words and a provider mention. "next Tuesday afternoon" → that Tuesday, 12:00–18:00;
 * no date at all → today … today+6. Ranges are capped at the API's 62 dates and never start
 * before today.
 */
export function parseRequest(text: string, now: Date, timeZone: string): ParsedRequest {
  const today = todayIn(now, timeZone);
  const results = chrono.casual.parse(
    text,
    { instant: now, timezone: offsetMinutesAt(now, timeZone) },
    { forwardDate: true },
  );
  const partOfDay = partOfDayIn(text);

  const named = new Set<string>();
  let timeOfDay: number | undefined;
  for (const result of results) {
    // chrono leaves the day of "this week" uncertain, yet the phrase names dates all the same.
    if (namesADate(result.start) || /\bweek(?:end)?\b/i.test(result.text))
      for (const date of datesOfResult(result, today)) named.add(date);
    timeOfDay ??= timeOfDayOf(result, partOfDay);
  }
  const preferredDates = [...named].filter((d) => daysBetween(today, d) >= 0).sort();
  const first = preferredDates[0];
  const last = preferredDates[preferredDates.length - 1];
  const wanted: WantedTime =
    first !== undefined && last !== undefined
      ? {
          from: first,
          to: daysBetween(first, last) < maxRangeDates ? last : addDays(first, maxRangeDates - 1),
          preferredDates,
          partOfDay,
          timeOfDay,
          defaultRange: false,
        }
      : {
          from: today,
          to: addDays(today, defaultRangeDates - 1),
          preferredDates: [],
          partOfDay,
          timeOfDay,
          defaultRange: true,
        };

  // Blank out the date phrases (keeping offsets) before looking for words and a provider name.
  let rest = text;
  for (const result of results) {
    rest = rest.slice(0, result.index) + " ".repeat(result.text.length) + rest.slice(result.index + result.text.length);
  }
  const serviceQuery = wordsOf(rest)
    .filter((w) => !fillerWords.has(w))
    .join(" ");
  return { wanted, serviceQuery, providerMention: providerMentionIn(rest) };
}

/** Removes the provider mention's words from a service query ("deep tissue anna" → "deep tissue"). */
export function withoutMention(serviceQuery: string, mention: string): string {
  const drop = new Set(wordsOf(mention));
  return serviceQuery
    .split(" ")
    .filter((w) => w.length > 0 && !drop.has(w))
    .join(" ");
}
