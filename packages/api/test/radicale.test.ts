// The Radicale helper (a real CalDAV server for the calendars' tests), and the tsdav calls the
// CalDAV sync is built on, run against it through the calendars' guarded fetch.
import {
  DAVClient,
  createDAVClient,
  deleteObject,
  fetchCalendarObjects,
  getBasicAuthHeaders,
  propfind,
  syncCollection,
  updateObject,
} from "tsdav";
import type { DAVResponse } from "tsdav";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../src/modules/calendars/fetch.ts";
// Straight from the helper's file: it needs no database, so this test does not load the app.
import { type Radicale, startRadicale } from "../testing/radicale.ts";

let server: Radicale;
beforeAll(async () => {
  server = await startRadicale();
});
afterAll(async () => {
  await server.stop();
});

function event(uid: string, start: string, end: string, extra = ""): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//clinic-scheduling//tests//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20250101T000000Z",
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `SUMMARY:${uid}`,
    ...(extra ? [extra] : []),
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

const uidsOf = (items: { ics: string }[]) => items.map((item) => /^UID:(.*)$/m.exec(item.ics)?.[1]?.trim());

describe("startRadicale", () => {
  it("creates a calendar, and puts, lists and deletes its events", async () => {
    const calendarUrl = await server.createCalendar("practice");
    expect(calendarUrl).toBe(`${server.baseUrl}/${server.username}/practice/`);
    expect(await server.listEvents(calendarUrl)).toEqual([]);

    await server.putEvent(calendarUrl, "visit-1", event("visit-1", "20300110T090000Z", "20300110T100000Z"));
    await server.putEvent(calendarUrl, "visit-2", event("visit-2", "20300111T090000Z", "20300111T100000Z"));
    const both = await server.listEvents(calendarUrl);
    expect(both.map((e) => e.href)).toEqual([
      `/${server.username}/practice/visit-1.ics`,
      `/${server.username}/practice/visit-2.ics`,
    ]);
    expect(uidsOf(both)).toEqual(["visit-1", "visit-2"]);
    expect(both[0]?.ics).toContain("DTSTART:20300110T090000Z");

    // A PUT to the same uid replaces the event.
    await server.putEvent(calendarUrl, "visit-2", event("visit-2", "20300112T090000Z", "20300112T100000Z"));
    await server.deleteEvent(calendarUrl, "visit-1");
    const left = await server.listEvents(calendarUrl);
    expect(uidsOf(left)).toEqual(["visit-2"]);
    expect(left[0]?.ics).toContain("DTSTART:20300112T090000Z");
  });

  it("answers 401 to a wrong password and to no password", async () => {
    const calendarUrl = await server.createCalendar("locked");
    const wrong = await fetch(calendarUrl, {
      method: "PROPFIND",
      headers: { depth: "0", authorization: `Basic ${Buffer.from(`${server.username}:wrong`).toString("base64")}` },
    });
    expect(wrong.status).toBe(401);
    const anonymous = await fetch(calendarUrl, { method: "PROPFIND", headers: { depth: "0" } });
    expect(anonymous.status).toBe(401);
  });

  it("runs servers side by side, each with its own port, user file and storage, until stopped", async () => {
    const other = await startRadicale();
    try {
      expect(other.baseUrl).not.toBe(server.baseUrl);
      expect(other.password).not.toBe(server.password);
      const mine = await server.createCalendar("shared-name");
      const theirs = await other.createCalendar("shared-name");
      await other.putEvent(theirs, "only-there", event("only-there", "20300110T090000Z", "20300110T100000Z"));
      expect(await server.listEvents(mine)).toEqual([]);
      expect(uidsOf(await other.listEvents(theirs))).toEqual(["only-there"]);
    } finally {
      await other.stop();
    }
    await expect(fetch(`${other.baseUrl}/`, { method: "OPTIONS" })).rejects.toThrow();
  });
});

describe("tsdav against Radicale through guardedFetch", () => {
  const fetch = guardedFetch({ allowPrivate: true, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 });
  const january = { start: "2030-01-01T00:00:00.000Z", end: "2030-02-01T00:00:00.000Z" };
  let calendarUrl: string;

  beforeAll(async () => {
    calendarUrl = await server.createCalendar("tsdav");
    await server.putEvent(calendarUrl, "in-range", event("in-range", "20300110T090000Z", "20300110T100000Z"));
    await server.putEvent(calendarUrl, "later", event("later", "20310110T090000Z", "20310110T100000Z"));
    // Starts before the range, recurs into it: the server's time-range filter expands it.
    await server.putEvent(
      calendarUrl,
      "weekly",
      event("weekly", "20291201T080000Z", "20291201T083000Z", "RRULE:FREQ=WEEKLY"),
    );
  });

  const credentials = () => ({ username: server.username, password: server.password });
  const authorization = () => getBasicAuthHeaders(credentials());
  /** The sync-token and getctag of the collection, as the CalDAV sync reads them. */
  async function collectionState(): Promise<{ syncToken: unknown; ctag: unknown; answer: DAVResponse | undefined }> {
    const [answer] = await propfind({
      url: calendarUrl,
      props: { "d:sync-token": {}, "cs:getctag": {} },
      depth: "0",
      headers: authorization(),
      fetch,
    });
    const props: Record<string, unknown> = answer?.props ?? {};
    return { syncToken: props.syncToken, ctag: props.getctag, answer };
  }

  it("logs in with createDAVClient and with DAVClient (Basic, caldav), and finds the calendar with fetchCalendars", async () => {
    const client = await createDAVClient({
      serverUrl: server.baseUrl,
      credentials: credentials(),
      authMethod: "Basic",
      defaultAccountType: "caldav",
      fetch,
    });
    const calendars = await client.fetchCalendars();
    const calendar = calendars.find((c) => c.url === calendarUrl);
    expect(calendar).toMatchObject({ displayName: "tsdav", components: ["VEVENT"] });
    // Radicale's ctag is a quoted hash; its sync-token a URL (RFC 6578).
    expect(calendar?.ctag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(calendar?.syncToken).toMatch(/^http:\/\/radicale\.org\/ns\/sync\/[0-9a-f]{64}$/);
    expect(calendar?.reports).toEqual(expect.arrayContaining(["syncCollection", "calendarQuery", "calendarMultiget"]));

    const davClient = new DAVClient({
      serverUrl: server.baseUrl,
      credentials: credentials(),
      authMethod: "Basic",
      defaultAccountType: "caldav",
      fetch,
    });
    await davClient.login();
    expect(davClient.account).toMatchObject({
      rootUrl: `${server.baseUrl}/`,
      principalUrl: `${server.baseUrl}/${server.username}/`,
      homeUrl: `${server.baseUrl}/${server.username}/`,
    });
  });

  it("reads the events of a time range with fetchCalendarObjects (client and raw function)", async () => {
    const client = await createDAVClient({
      serverUrl: server.baseUrl,
      credentials: credentials(),
      authMethod: "Basic",
      defaultAccountType: "caldav",
      fetch,
    });
    const calendar = (await client.fetchCalendars()).find((c) => c.url === calendarUrl);
    if (!calendar) throw new Error("calendar not found");
    const objects = await client.fetchCalendarObjects({ calendar, timeRange: january });
    expect(objects.map((o) => o.url).sort()).toEqual([`${calendarUrl}in-range.ics`, `${calendarUrl}weekly.ics`]);
    for (const object of objects) {
      const data: unknown = object.data;
      expect(data).toMatch(/^BEGIN:VCALENDAR/);
      expect(object.etag).toMatch(/^"[0-9a-f]{64}"$/);
    }

    // The raw function, as the sync calls it: only the calendar's URL, the headers and the fetch.
    const raw = await fetchCalendarObjects({
      calendar: { url: calendarUrl },
      timeRange: january,
      headers: authorization(),
      fetch,
    });
    expect(raw.map((o) => o.url).sort()).toEqual([`${calendarUrl}in-range.ics`, `${calendarUrl}weekly.ics`]);
  });

  it("sees a change in the sync-token and getctag (propfind), and what changed (syncCollection)", async () => {
    const before = await collectionState();
    expect(before.answer?.status).toBe(207);
    expect(before.syncToken).toMatch(/^http:\/\/radicale\.org\/ns\/sync\//);
    expect(before.ctag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await collectionState()).toMatchObject({ syncToken: before.syncToken, ctag: before.ctag });

    await server.putEvent(calendarUrl, "new", event("new", "20300120T090000Z", "20300120T100000Z"));
    const after = await collectionState();
    expect(after.syncToken).not.toBe(before.syncToken);
    expect(after.ctag).not.toBe(before.ctag);

    const changes = await syncCollection({
      url: calendarUrl,
      props: { "d:getetag": {} },
      syncLevel: 1,
      syncToken: typeof before.syncToken === "string" ? before.syncToken : "",
      headers: authorization(),
      fetch,
    });
    expect(changes.map((c) => c.href)).toEqual([`/${server.username}/tsdav/new.ics`]);
    await server.deleteEvent(calendarUrl, "new");
  });

  it("writes back with updateObject and removes with deleteObject (If-Match on the etag)", async () => {
    const url = `${calendarUrl}appointment-1.ics`;
    const created = await updateObject({
      url,
      data: event("appointment-1", "20300115T090000Z", "20300115T100000Z"),
      headers: { "content-type": "text/calendar; charset=utf-8", ...authorization() },
      fetch,
    });
    expect(created.status).toBe(201);
    const etag = created.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(uidsOf(await server.listEvents(calendarUrl))).toContain("appointment-1");

    const stale = await deleteObject({ url, etag: '"not-the-etag"', headers: authorization(), fetch });
    expect(stale.status).toBe(412);
    const removed = await deleteObject({ url, etag: etag ?? "", headers: authorization(), fetch });
    expect(removed.status).toBe(200);
    expect(uidsOf(await server.listEvents(calendarUrl))).not.toContain("appointment-1");
  });

  it("reports a wrong password: createDAVClient rejects, propfind answers 401, fetchCalendarObjects throws", async () => {
    const wrong = { username: server.username, password: "wrong" };
    await expect(
      createDAVClient({
        serverUrl: server.baseUrl,
        credentials: wrong,
        authMethod: "Basic",
        defaultAccountType: "caldav",
        fetch,
      }),
    ).rejects.toThrow(/Invalid credentials.*401/);
    const [answer] = await propfind({
      url: calendarUrl,
      props: { "d:sync-token": {} },
      depth: "0",
      headers: getBasicAuthHeaders(wrong),
      fetch,
    });
    expect(answer).toMatchObject({ ok: false, status: 401 });
    await expect(
      fetchCalendarObjects({
        calendar: { url: calendarUrl },
        timeRange: january,
        headers: getBasicAuthHeaders(wrong),
        fetch,
      }),
    ).rejects.toThrow(/401/);
  });

  it("goes through guardedFetch's rules: a loopback server is refused without allowPrivate", async () => {
    const strict = guardedFetch({ allowPrivate: false, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 });
    await expect(
      createDAVClient({
        serverUrl: server.baseUrl.replace("http:", "https:"),
        credentials: credentials(),
        authMethod: "Basic",
        defaultAccountType: "caldav",
        fetch: strict,
      }),
    ).rejects.toThrow(/internal address/);
  });
});
