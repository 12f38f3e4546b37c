import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useId, useState } from "react";
import { client, messageOf } from "./api.ts";
import { addDays } from "./deskDay.ts";
import { lookOf } from "./status.ts";
import { dateIn, instantAt, longDate, timeIn } from "./time.ts";

type Appointment = RouterOutputs["appointments"]["list"]["appointments"][number];

/** How far ahead "upcoming" reaches, and how many results one search shows. */
const aheadDays = 90;
const shown = 50;

/**
 * The search box over the shown day's and upcoming appointments, by patient name or phone: B2's
 * `patient` filter does the matching in the database (accents, case and a typo aside; 3+ digits
 * of the phone), so any range is searched whole (docs/web.md).
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
  const search = useQuery({
    queryKey: ["desk-search", props.clinicId, props.fromDate, trimmed],
    queryFn: async () => {
      const answer = await client.appointments.list.query({
        clinic_id: props.clinicId,
        from,
        to,
        patient: trimmed,
        status: "pending,booked,arrived,completed,no_show,canceled",
        limit: shown,
      });
      return { appointments: answer.appointments, more: answer.next_cursor !== null };
    },
    enabled: trimmed.length >= 2,
    staleTime: 15_000,
  });
  const found = trimmed.length >= 2 ? (search.data?.appointments ?? []) : [];

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
          : search.isPending
            ? "Searching…"
            : search.isError
              ? messageOf(search.error)
              : `${String(found.length)} appointment${found.length === 1 ? "" : "s"} found${
                  search.data.more ? ` (the first ${String(shown)}: type more of the name to narrow it)` : ""
                }.`}
      </p>
      {found.length > 0 && (
        <ul className="search-results" aria-label="Appointments found">
          {found.map((a) => {
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
