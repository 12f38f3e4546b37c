import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useId, useState } from "react";
import { client, messageOf } from "./api.ts";
import { addDays } from "./deskDay.ts";
import { matches } from "./search.ts";
import { lookOf } from "./status.ts";
import { dateIn, instantAt, longDate, timeIn } from "./time.ts";

type Appointment = RouterOutputs["appointments"]["list"]["appointments"][number];

/** How far ahead "upcoming" reaches, and how many pages of B2 one search may read. */
const aheadDays = 90;
const maxPages = 4;

const digits = (text: string) => text.replace(/\D/g, "");

/** Whether an appointment's patient matches the query: by name (forgiving) or by phone digits. */
export function patientMatches(a: Appointment, query: string): boolean {
  const wanted = digits(query);
  if (wanted.length >= 3 && digits(a.patient.phone_e164 ?? "").includes(wanted)) return true;
  return /\p{L}/u.test(query) && matches(a.patient.name, query);
}

/**
 * The search box over the shown day's and upcoming appointments, by patient name or phone. B2
 * has no patient filter, so the page reads the range by start (keyset pages, at most
 * `maxPages` × 500) and matches here; docs/web.md says why and what a server-side filter would add.
 */
export function DeskSearch(props: {
  clinicId: string;
  timeZone: string;
  /** The earliest date searched: the shown day or today, whichever is earlier. */
  fromDate: string;
  onShow: (appointment: Appointment) => void;
}) {
  const [query, setQuery] = useState("");
  const resultsId = useId();
  const trimmed = query.trim();
  const from = instantAt(props.fromDate, 0, props.timeZone);
  const to = instantAt(addDays(props.fromDate, aheadDays), 0, props.timeZone);
  const pool = useQuery({
    queryKey: ["desk-search", props.clinicId, props.fromDate],
    queryFn: async () => {
      const all: Appointment[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxPages; page++) {
        const answer = await client.appointments.list.query({
          clinic_id: props.clinicId,
          from,
          to,
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        all.push(...answer.appointments);
        if (!answer.next_cursor) return { appointments: all, complete: true };
        cursor = answer.next_cursor;
      }
      return { appointments: all, complete: false };
    },
    enabled: trimmed.length >= 2,
    staleTime: 15_000,
  });
  const found = trimmed.length >= 2 ? (pool.data?.appointments ?? []).filter((a) => patientMatches(a, trimmed)) : [];

  return (
    <section className="desk-search" role="search" aria-label="Find an appointment">
      <label>
        Find an appointment{" "}
        <input
          type="search"
          value={query}
          placeholder="patient name or phone"
          aria-describedby={`${resultsId}-summary`}
          onChange={(e) => {
            setQuery(e.target.value);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") setQuery("");
          }}
        />
      </label>
      <p id={`${resultsId}-summary`} className="hint" role="status">
        {trimmed.length < 2
          ? `Searches ${longDate(props.fromDate)} and the ${String(aheadDays)} days after it.`
          : pool.isPending
            ? "Searching…"
            : pool.isError
              ? messageOf(pool.error)
              : `${String(found.length)} appointment${found.length === 1 ? "" : "s"} found${
                  !pool.data.complete ? " (the first 2,000 of the range were searched)" : ""
                }.`}
      </p>
      {found.length > 0 && (
        <ul className="search-results" aria-label="Appointments found">
          {found.slice(0, 50).map((a) => {
            const look = lookOf(a.status);
            const date = dateIn(a.start, props.timeZone);
            return (
              <li key={a.id} data-testid="search-result">
                <button
                  type="button"
                  className={`result ${look.className}`}
                  onClick={() => {
                    props.onShow(a);
                  }}
                >
                  <span className="when">
                    {longDate(date)}, {timeIn(a.start, props.timeZone)}
                  </span>{" "}
                  <strong>{a.patient.name}</strong>
                  {a.patient.phone_e164 ? ` (${a.patient.phone_e164})` : ""}, {a.service_name} with {a.provider_name}{" "}
                  <span className="badge">
                    <span aria-hidden="true">{look.symbol}</span> {look.label}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
