import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import { client, errorCodeOf, messageOf } from "./api.ts";
import { CalendarsDialog } from "./CalendarsDialog.tsx";
import { DeskSearch } from "./DeskSearch.tsx";
import { PatientDataDialog } from "./PatientDataDialog.tsx";
import { AnswersList } from "./QuestionsFields.tsx";
import { useSetupAccess } from "./setup/access.ts";
import {
  type Block,
  addDays,
  busyTimes,
  clinicPeriods,
  columnBlocks,
  deskDay,
  resourceNames,
  seatsTaken,
} from "./deskDay.ts";
import { strings } from "./i18n.ts";
import { type KnownStatus, actionsFor, changeWords, freesItsTime, lookOf, statusLooks } from "./status.ts";
import { dateIn, hhmm, instantAt, longDate, minutesIn, minutesOf, timeIn, weekdayOf } from "./time.ts";

type Appointment = RouterOutputs["appointments"]["list"]["appointments"][number];
type ProviderDetail = RouterOutputs["providers"]["get"];

const rowStep = 30;
/** The desk's words for series, group sessions and calendars (the desk is English). */
const words = strings.en;
const tipId = "desk-tip";
/** Every status that takes up time: the grid shows held ones too (B2 lists holds only when asked). */
const gridStatuses = "held,pending,booked,arrived,completed,no_show";
/** Changes the desk offers to take back at once, and the status that takes each back (§13's transitions). */
const undoOf: Partial<Record<KnownStatus, KnownStatus>> = { arrived: "booked" };

/** The desk's words for a refused status change (T1). */
function statusProblem(error: unknown): string {
  const code = errorCodeOf(error);
  if (code === "STALE_UPDATED_AT")
    return "Someone else changed this appointment a moment ago. The grid now shows its current state: check it and click again if still needed.";
  if (code === "INVALID_TRANSITION")
    return "That change is not possible now: the appointment's status has moved on, or it is outside the time allowed (check-in opens 24 hours before the start; a no-show can be marked once the start has passed).";
  return messageOf(error);
}

/** The clinic's current minute, refreshed every 30 seconds (moves the now-line). */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(new Date());
    }, 30_000);
    return () => {
      clearInterval(timer);
    };
  }, []);
  return now;
}

/** The tooltip of a quiet cell: why it cannot be booked, asked of V2 when the cell is hovered or focused. */
function WhyTip(props: { clinicId: string; serviceId: string; providerId: string; start: Date }) {
  const why = useQuery({
    queryKey: ["desk-why", props.clinicId, props.serviceId, props.providerId, props.start.toISOString()],
    queryFn: () =>
      client.availability.explain.query({
        clinic_id: props.clinicId,
        service_id: props.serviceId,
        provider_id: props.providerId,
        start: props.start,
      }),
    staleTime: 30_000,
  });
  const reasons = why.data?.providers.flatMap((p) => p.reasons.map((r) => r.detail)) ?? [];
  return (
    <span role="tooltip" id={tipId} className="tip">
      {why.isPending
        ? "Checking why…"
        : why.isError
          ? messageOf(why.error)
          : reasons.length > 0
            ? reasons.join("; ")
            : "Bookable now: the grid is being refreshed."}
    </span>
  );
}

/**
 * The patient's answers to the service's questions (§19: STAFF may read them), folded on the card:
 * its summary is one of the cell's tab stops like the card's buttons.
 */
function AnswersDisclosure(props: { answers: Appointment["answers"]; patient: string; tabIndex: number }) {
  return (
    <details className="appt-answers" data-testid="appt-answers">
      <summary tabIndex={props.tabIndex} aria-label={`Answers of ${props.patient || "the patient"}`}>
        Answers
      </summary>
      <AnswersList answers={props.answers} bare />
    </details>
  );
}

/** The key under which the grid remembers its one tab stop: column and first row of a block. */
const cellKey = (col: number, row: number) => `${String(col)}:${String(row)}`;

/** The front-desk day view `/desk/{clinic_id}` (docs/web.md). */
export function DeskPage({ clinicId }: { clinicId: string }) {
  const queryClient = useQueryClient();
  const now = useNow();
  const clinic = useQuery({
    queryKey: ["desk-clinic", clinicId],
    queryFn: () => client.clinics.get.query({ clinic_id: clinicId }),
  });
  const timeZone = clinic.data?.timezone ?? "UTC";
  const today = dateIn(now, timeZone);
  // What the clinic's next two weeks look like, to open on the right day (docs/web.md).
  const opening = useQuery({
    queryKey: ["desk-opening", clinicId, today],
    queryFn: async () => {
      const [hours, overrides, closures] = await Promise.all([
        client.workHours.listClinic.query({ clinic_id: clinicId }),
        client.dateOverrides.listClinic.query({ clinic_id: clinicId, from: today, to: addDays(today, 14) }),
        client.closures.listClinic.query({
          clinic_id: clinicId,
          from: instantAt(today, 0, timeZone),
          to: instantAt(addDays(today, 15), 0, timeZone),
        }),
      ]);
      return { hours: hours.work_hours, overrides: overrides.date_overrides, closures: closures.closures };
    },
    enabled: clinic.isSuccess,
  });
  // The day shown: `?date=YYYY-MM-DD`, else the one picked here, else the desk's current day.
  const [pickedDate, setDate] = useState(() => new URLSearchParams(window.location.search).get("date") ?? "");
  const current = opening.data ? deskDay(now, timeZone, opening.data) : undefined;
  const date = pickedDate || current?.date || "";
  const [serviceId, setServiceId] = useState("");
  const [walkIn, setWalkIn] = useState<{ providerId: string; providerName: string; start: Date } | undefined>();
  const [patient, setPatient] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const [undo, setUndo] = useState<{ appointment: Appointment; to: KnownStatus } | undefined>();
  const [why, setWhy] = useState<string | undefined>();
  const [active, setActive] = useState<string | undefined>();
  const [tip, setTip] = useState<{ key: string; providerId: string; start: Date } | undefined>();
  const [showAppointment, setShowAppointment] = useState<string | undefined>();
  const [calendarsOf, setCalendarsOf] = useState<{ user_id: string; full_name: string } | undefined>();
  const [patientData, setPatientData] = useState(false);
  const hoverTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const table = useRef<HTMLTableElement>(null);

  // Whether the caller may see the reports (CLINIC_ADMIN): RP1 answers for a day, or refuses (docs/web.md).
  const mayReport = useQuery({
    queryKey: ["desk-may-report", clinicId],
    queryFn: () => client.reports.utilization.query({ clinic_id: clinicId, from: today, to: today, group_by: "month" }),
    enabled: clinic.isSuccess,
    staleTime: Infinity,
  });
  // Whether the caller may open the clinic's setup (STAFF reads it, CLINIC_ADMIN changes it): asked like the reports.
  // A provider with a custom role is linked to their own work hours and closures (§3).
  const setupAccess = useSetupAccess(clinicId, clinic.isSuccess);
  const maySetUp = setupAccess.data === "admin" || setupAccess.data === "staff";
  const ownHours = setupAccess.data === "provider";
  const services = useQuery({
    queryKey: ["desk-services", clinicId],
    queryFn: () => client.services.list.query({ clinic_id: clinicId, limit: 500 }),
  });
  const service = serviceId || services.data?.services[0]?.id || "";
  const providers = useQuery({
    queryKey: ["desk-providers", clinicId],
    queryFn: () => client.providers.list.query({ clinic_id: clinicId, status: ["approved"], limit: 500 }),
  });
  const details = useQueries({
    queries: (providers.data?.providers ?? []).map((p) => ({
      queryKey: ["desk-provider", clinicId, p.user_id],
      queryFn: () => client.providers.get.query({ clinic_id: clinicId, user_id: p.user_id }),
    })),
  });
  const dayStart = instantAt(date || today, 0, timeZone);
  const dayEnd = instantAt(addDays(date || today, 1), 0, timeZone);
  // Each provider's busy time from their own calendars (§18): times only, drawn as "busy (calendar)".
  const busy = useQueries({
    queries: (providers.data?.providers ?? []).map((p) => ({
      queryKey: ["desk-busy", clinicId, p.user_id, date],
      queryFn: () =>
        client.calendars.busy.query({ clinic_id: clinicId, user_id: p.user_id, from: dayStart, to: dayEnd }),
      enabled: clinic.isSuccess && date !== "",
    })),
  });
  const appointments = useQuery({
    queryKey: ["desk-appointments", clinicId, date],
    queryFn: () =>
      client.appointments.list.query({
        clinic_id: clinicId,
        from: dayStart,
        to: dayEnd,
        status: gridStatuses,
        limit: 500,
      }),
    enabled: clinic.isSuccess && date !== "",
  });
  const clinicClosures = useQuery({
    queryKey: ["desk-clinic-closures", clinicId, date],
    queryFn: () => client.closures.listClinic.query({ clinic_id: clinicId, from: dayStart, to: dayEnd }),
    enabled: clinic.isSuccess && date !== "",
  });
  const slots = useQuery({
    queryKey: ["desk-slots", clinicId, service, date],
    queryFn: () => client.availability.get.query({ clinic_id: clinicId, service_id: service, from: date, to: date }),
    enabled: clinic.isSuccess && service !== "" && date !== "",
  });
  const refresh = () =>
    queryClient.invalidateQueries({
      predicate: (q) =>
        ["desk-appointments", "desk-slots", "desk-search", "desk-why", "desk-busy"].includes(String(q.queryKey[0])),
    });
  // A calendar added, synced or removed: its busy time, and so the free cells and their reasons, change.
  const calendarsChanged = useCallback(() => {
    void queryClient.invalidateQueries({
      predicate: (q) => ["desk-busy", "desk-slots", "desk-why"].includes(String(q.queryKey[0])),
    });
  }, [queryClient]);
  const book = useMutation({
    mutationFn: (input: { providerId: string; start: Date }) =>
      client.appointments.book.mutate({
        clinic_id: clinicId,
        service_id: service,
        provider_id: input.providerId,
        start: input.start,
        patient: { name: patient },
      }),
    onSuccess: async (a) => {
      setMessage(`Booked ${a.patient.name} with ${a.provider_name} at ${timeIn(a.start, timeZone)}.`);
      setWalkIn(undefined);
      setPatient("");
      await refresh();
    },
    onError: async (error) => {
      setMessage(messageOf(error));
      await refresh();
    },
  });
  const cancel = useMutation({
    mutationFn: (id: string) => client.appointments.cancel.mutate({ clinic_id: clinicId, id }),
    onSuccess: async (a) => {
      setMessage(`Canceled ${a.patient.name} at ${timeIn(a.start, timeZone)}.`);
      await refresh();
    },
    onError: (error) => {
      setMessage(messageOf(error));
    },
  });
  const release = useMutation({
    mutationFn: (id: string) => client.appointments.releaseHold.mutate({ clinic_id: clinicId, id }),
    onSuccess: async () => {
      setMessage("The hold is released: its time is free again.");
      await refresh();
    },
    onError: (error) => {
      setMessage(messageOf(error));
    },
  });
  const changeStatus = useMutation({
    mutationFn: (input: { appointment: Appointment; to: KnownStatus }) =>
      client.appointments.setStatus.mutate({
        clinic_id: clinicId,
        id: input.appointment.id,
        status: input.to,
        if_match: input.appointment.updated_at,
      }),
    onSuccess: async (a, input) => {
      const back = undoOf[input.to];
      setMessage(`${a.patient.name} at ${timeIn(a.start, timeZone)}: ${changeWords[input.to]}.`);
      setUndo(back && input.appointment.status === back ? { appointment: a, to: back } : undefined);
      await refresh();
    },
    onError: async (error) => {
      setMessage(statusProblem(error));
      setUndo(undefined);
      await refresh();
    },
  });
  const explain = async (providerId: string, start: Date) => {
    setWhy("Checking…");
    try {
      const answer = await client.availability.explain.query({
        clinic_id: clinicId,
        service_id: service,
        provider_id: providerId,
        start,
      });
      const reasons = answer.providers.flatMap((p) => p.reasons.map((r) => r.detail));
      setWhy(
        reasons.length > 0
          ? `${timeIn(start, timeZone)}: ${reasons.join("; ")}`
          : `${timeIn(start, timeZone)} is bookable.`,
      );
    } catch (error) {
      setWhy(messageOf(error));
    }
  };

  // An appointment chosen in the search: once its day is drawn, focus it and bring it into view.
  useEffect(() => {
    if (!showAppointment) return;
    const card = table.current?.querySelector<HTMLElement>(`[data-appointment="${showAppointment}"]`);
    if (!card) return;
    const cell = card.closest<HTMLElement>("td[data-col]");
    if (cell) setActive(cellKey(Number(cell.dataset.col), Number(cell.dataset.row)));
    card.scrollIntoView({ block: "center", inline: "center" });
    card.querySelector("button")?.focus();
    setShowAppointment(undefined);
  });

  if (clinic.isPending) return <p role="status">Loading…</p>;
  if (clinic.isError) return <p role="alert">{messageOf(clinic.error)}</p>;
  const ownHoursLink = (
    <a href={`/desk/${encodeURIComponent(clinicId)}/setup/hours`} data-testid="setup-link">
      Your work hours and closures
    </a>
  );
  if (!date) {
    if (!opening.isError) return <p role="status">Loading…</p>;
    // The desk is STAFF's (the clinic's hours refuse anyone else); a provider with a custom role
    // still keeps their own hours and closures (§3), so the refusal links them there.
    return (
      <main className="page desk">
        <h1>{clinic.data.name}: front desk</h1>
        <p role="alert">{messageOf(opening.error)}</p>
        {ownHours && (
          <nav aria-label="Clinic administration" className="desk-nav">
            {ownHoursLink}
          </nav>
        )}
      </main>
    );
  }
  const loaded = details.flatMap((d) => (d.data ? [d.data] : []));
  const freeStarts = new Map<string, Set<number>>();
  // Seats left in a group session's free slot (§14), by provider and start minute.
  const seatsLeftAt = new Map<string, { start: Date; remaining: number }>();
  for (const slot of slots.data?.slots ?? []) {
    for (const id of slot.provider_ids) {
      const set = freeStarts.get(id) ?? new Set<number>();
      set.add(minutesIn(slot.start, timeZone));
      freeStarts.set(id, set);
      if (slot.remaining !== undefined)
        seatsLeftAt.set(`${id}|${String(minutesIn(slot.start, timeZone))}`, {
          start: slot.start,
          remaining: slot.remaining,
        });
    }
  }
  const capacityOf = new Map((services.data?.services ?? []).map((s) => [s.id, s.capacity]));
  const taking = (appointments.data?.appointments ?? []).filter((a) => !freesItsTime(a.status));
  // Rows: every half hour from the earliest opening to the latest closing (the clinic's and the
  // providers'), widened to every appointment of the day; 08:00–18:00 when nothing is known.
  const weekday = weekdayOf(date);
  const bounds = [
    ...(opening.data ? clinicPeriods(date, opening.data.hours, opening.data.overrides) : []),
    ...loaded.flatMap((p) =>
      p.work_hours
        .filter((h) => h.weekday === weekday)
        .map((h) => ({ opens: minutesOf(h.opens_at), closes: minutesOf(h.closes_at) })),
    ),
    ...taking.map((a) => ({
      opens: a.start < dayStart ? 0 : minutesIn(a.start, timeZone),
      closes: a.end >= dayEnd ? 24 * 60 : Math.max(minutesIn(a.end, timeZone), minutesIn(a.start, timeZone) + 1),
    })),
  ];
  const first = bounds.length > 0 ? Math.min(...bounds.map((b) => b.opens)) : 8 * 60;
  const last = bounds.length > 0 ? Math.max(...bounds.map((b) => b.closes)) : 18 * 60;
  const rows: number[] = [];
  for (let m = Math.floor(first / rowStep) * rowStep; m < last; m += rowStep) rows.push(m);

  const busyOf = new Map(
    (providers.data?.providers ?? []).map((p, i) => [p.user_id, busy[i]?.data?.busy ?? []] as const),
  );
  const columns = loaded.map((p) =>
    columnBlocks({
      date,
      timeZone,
      rows,
      rowStep,
      appointments: taking.filter((a) => a.provider_id === p.user_id),
      providerClosures: p.closures,
      clinicClosures: clinicClosures.data?.closures ?? [],
      busy: busyOf.get(p.user_id) ?? [],
      freeStarts: freeStarts.get(p.user_id),
      working: (minute) =>
        p.work_hours.some(
          (h) => h.weekday === weekday && minutesOf(h.opens_at) <= minute && minute < minutesOf(h.closes_at),
        ),
    }),
  );
  // The grid's one tab stop: the remembered cell when it still exists, else the first one.
  const keys = new Set(columns.flatMap((blocks, col) => blocks.map((b) => cellKey(col, b.row))));
  const tabStop = active && keys.has(active) ? active : cellKey(0, 0);

  // The now-line: on today only, at the current minute (pinned to the grid's top or bottom outside it).
  const nowMinute = minutesIn(now, timeZone);
  const isToday = date === today;
  let nowRow = -1;
  let nowOffset = 0;
  if (isToday && rows.length > 0) {
    const found = rows.findIndex((m) => m <= nowMinute && nowMinute < m + rowStep);
    if (found >= 0) {
      nowRow = found;
      nowOffset = ((nowMinute - (rows[found] ?? 0)) / rowStep) * 100;
    } else if (nowMinute < (rows[0] ?? 0)) {
      nowRow = 0;
    } else {
      nowRow = rows.length - 1;
      nowOffset = 100;
    }
  }

  /** Moves the grid's focus with the arrow keys, Home and End (one tab stop for the whole grid). */
  const onGridKey = (e: KeyboardEvent<HTMLTableElement>) => {
    if (!(e.target instanceof HTMLElement)) return;
    const from = e.target.closest<HTMLElement>("td[data-col]");
    if (!from) return;
    const col = Number(from.dataset.col);
    const row = Number(from.dataset.row);
    const span = Number(from.dataset.span);
    const target = {
      ArrowDown: { col, row: row + span },
      ArrowUp: { col, row: row - 1 },
      ArrowRight: { col: col + 1, row },
      ArrowLeft: { col: col - 1, row },
      Home: { col: 0, row },
      End: { col: loaded.length - 1, row },
    }[e.key];
    if (!target) return;
    e.preventDefault();
    const cells = table.current?.querySelectorAll<HTMLElement>(`td[data-col="${String(target.col)}"]`) ?? [];
    const to = [...cells].find((c) => {
      const start = Number(c.dataset.row);
      return start <= target.row && target.row < start + Number(c.dataset.span);
    });
    if (!to) return;
    setActive(cellKey(target.col, Number(to.dataset.row)));
    to.querySelector("button")?.focus();
  };

  const renderBlock = (p: ProviderDetail, col: number, block: Block<Appointment>) => {
    const key = cellKey(col, block.row);
    const tabIndex = key === tabStop ? 0 : -1;
    const minute = rows[block.row] ?? 0;
    const label = `${p.full_name} ${hhmm(minute)}`;
    const position = {
      "data-col": col,
      "data-row": block.row,
      "data-span": block.span,
      "data-cell": label,
      rowSpan: block.span,
      onFocus: () => {
        setActive(key);
      },
    };
    if (block.kind === "appointments") {
      // A group session of the walk-in service with seats left in this block: a seat can be booked.
      const seatOffers = rows
        .slice(block.row, block.row + block.span)
        .flatMap((m) => seatsLeftAt.get(`${p.user_id}|${String(m)}`) ?? []);
      return (
        <td key={p.user_id} className="appointments" {...position}>
          {block.appointments.map((a) => {
            const look = lookOf(a.status);
            const at = timeIn(a.start, timeZone);
            // The rooms and equipment it holds (§14), under the patient's name.
            const held = resourceNames(a.resources);
            const heldLabel = words.room(a.resources.length);
            return (
              <div key={a.id} className={`appt ${look.className}`} data-appointment={a.id} data-status={a.status}>
                <span className="badge">
                  <span aria-hidden="true">{look.symbol}</span> {look.label}
                </span>
                {a.series_id && (
                  <span className="series-badge" title={words.seriesTitle(a.series_id)} data-series={a.series_id}>
                    {words.series}
                  </span>
                )}
                <span className="appt-main">
                  <strong>
                    {at}–{timeIn(a.end, timeZone)}
                  </strong>{" "}
                  <span>
                    {a.patient.name || "a caller, still booking"}, {a.service_name}
                    {a.held_until ? ` (kept until ${timeIn(a.held_until, timeZone)})` : ""}
                  </span>
                  {held && (
                    <span className="appt-resources" data-testid="appt-resources" title={`${heldLabel}: ${held}`}>
                      <span className="visually-hidden">{heldLabel}: </span>
                      {held}
                    </span>
                  )}
                  {(capacityOf.get(a.service_id) ?? 1) > 1 && (
                    <span className="seats" data-testid="seats-taken">
                      {" "}
                      {words.seatsTaken(seatsTaken(taking, a), capacityOf.get(a.service_id) ?? 1)}
                    </span>
                  )}
                </span>
                {a.answers.length > 0 && (
                  <AnswersDisclosure answers={a.answers} patient={a.patient.name} tabIndex={tabIndex} />
                )}
                <span className="appt-actions">
                  {actionsFor(a, now).map((action) => (
                    <button
                      key={action.to}
                      type="button"
                      tabIndex={tabIndex}
                      aria-label={`${action.label} ${a.patient.name} at ${at}`}
                      disabled={changeStatus.isPending}
                      onClick={() => {
                        changeStatus.mutate({ appointment: a, to: action.to });
                      }}
                    >
                      {action.label}
                    </button>
                  ))}
                  {(a.status === "booked" || a.status === "arrived") && (
                    <button
                      type="button"
                      className="secondary"
                      tabIndex={tabIndex}
                      aria-label={`Cancel ${a.patient.name} at ${at}`}
                      disabled={cancel.isPending}
                      onClick={() => {
                        cancel.mutate(a.id);
                      }}
                    >
                      Cancel
                    </button>
                  )}
                  {a.status === "held" && (
                    <button
                      type="button"
                      className="secondary"
                      tabIndex={tabIndex}
                      aria-label={`Release the hold at ${at}`}
                      disabled={release.isPending}
                      onClick={() => {
                        release.mutate(a.id);
                      }}
                    >
                      Release the hold
                    </button>
                  )}
                </span>
              </div>
            );
          })}
          {seatOffers.map((offer) => (
            <div key={offer.start.toISOString()} className="seat-offer">
              <button
                type="button"
                tabIndex={tabIndex}
                aria-label={words.bookSeatAt(p.full_name, timeIn(offer.start, timeZone))}
                onClick={() => {
                  setWalkIn({ providerId: p.user_id, providerName: p.full_name, start: offer.start });
                }}
              >
                {words.bookSeat}
              </button>{" "}
              <small className="seats">{words.seatsLeft(offer.remaining)}</small>
            </div>
          ))}
        </td>
      );
    }
    if (block.kind === "closed") {
      return (
        <td key={p.user_id} className={`closed ${block.scope}`} {...position}>
          <button
            type="button"
            className="closure"
            tabIndex={tabIndex}
            onClick={() => {
              setWhy(`${p.full_name}, from ${hhmm(minute)}: ${block.label}`);
            }}
          >
            {block.label}
          </button>
        </td>
      );
    }
    if (block.kind === "external") {
      // Busy in the provider's own calendar: the times and nothing else; never offered for a walk-in.
      const label = block.stale ? words.calendarStale : words.busyCalendar;
      const times = busyTimes(block.periods, date, timeZone);
      return (
        <td
          key={p.user_id}
          className={block.stale ? "external stale" : "external"}
          data-busy={block.stale ? "stale" : "calendar"}
          {...position}
        >
          <button
            type="button"
            className="external-busy"
            tabIndex={tabIndex}
            aria-label={words.busyCellName(label, p.full_name, block.stale ? hhmm(minute) : times)}
            onClick={() => {
              setWhy(block.stale ? words.staleWhy(p.full_name) : words.busyWhy(p.full_name, times));
            }}
          >
            {label}
          </button>
        </td>
      );
    }
    if (block.kind === "free") {
      const seats = seatsLeftAt.get(`${p.user_id}|${String(minute)}`);
      return (
        <td key={p.user_id} className="free" {...position}>
          <button
            type="button"
            tabIndex={tabIndex}
            aria-label={`Book ${p.full_name} at ${hhmm(minute)}`}
            onClick={() => {
              setWalkIn({ providerId: p.user_id, providerName: p.full_name, start: block.start });
            }}
          >
            Book
          </button>
          {seats && <small className="seats">{words.seatsLeft(seats.remaining)}</small>}
        </td>
      );
    }
    // A quiet cell: shaded, no text; the reason shows on hover or focus, and a click pins it.
    const showTip = () => {
      setTip({ key, providerId: p.user_id, start: block.start });
    };
    const hideTip = () => {
      clearTimeout(hoverTimer.current);
      setTip((t) => (t?.key === key ? undefined : t));
    };
    const tipped = tip?.key === key;
    return (
      <td
        key={p.user_id}
        className={block.working ? "quiet busy" : "quiet off"}
        {...position}
        onMouseEnter={() => {
          clearTimeout(hoverTimer.current);
          hoverTimer.current = setTimeout(showTip, 250);
        }}
        onMouseLeave={hideTip}
      >
        <button
          type="button"
          className="why-button"
          tabIndex={tabIndex}
          aria-label={`Why is ${p.full_name} at ${hhmm(minute)} not bookable?`}
          {...(tipped ? { "aria-describedby": tipId } : {})}
          onFocus={showTip}
          onBlur={hideTip}
          onKeyDown={(e) => {
            if (e.key === "Escape") hideTip();
          }}
          onClick={() => void explain(p.user_id, block.start)}
        />
        {tipped && service && (
          <WhyTip clinicId={clinicId} serviceId={service} providerId={p.user_id} start={block.start} />
        )}
      </td>
    );
  };

  const moveDay = (days: number) => {
    setDate(addDays(date, days));
    setTip(undefined);
  };

  return (
    <main className="page desk">
      <h1>{clinic.data.name}: front desk</h1>
      {(mayReport.isSuccess || maySetUp || ownHours) && (
        <nav aria-label="Clinic administration" className="desk-nav">
          {maySetUp && (
            <>
              <a href={`/desk/${encodeURIComponent(clinicId)}/setup/services`} data-testid="setup-link">
                Clinic setup: services, providers, hours, clinic
              </a>{" "}
            </>
          )}
          {ownHours && <>{ownHoursLink} </>}
          {mayReport.isSuccess && (
            <>
              <a href={`/desk/${encodeURIComponent(clinicId)}/reports`}>Reports: utilization and no-shows</a>{" "}
              <button
                type="button"
                className="secondary header-button"
                id="patient-data-open"
                aria-haspopup="dialog"
                onClick={() => {
                  setPatientData(true);
                }}
              >
                Patient data
              </button>
            </>
          )}
        </nav>
      )}
      {patientData && (
        <PatientDataDialog
          clinicId={clinicId}
          clinicName={clinic.data.name}
          onErased={() => void refresh()}
          onClose={() => {
            setPatientData(false);
            document.getElementById("patient-data-open")?.focus();
          }}
        />
      )}
      <div className="toolbar">
        <div className="day-nav" role="group" aria-label="Choose the day">
          <button
            type="button"
            className="secondary"
            aria-label="Previous day"
            onClick={() => {
              moveDay(-1);
            }}
          >
            ◀
          </button>
          <label>
            Day{" "}
            <input
              type="date"
              value={date}
              onChange={(e) => {
                if (e.target.value) setDate(e.target.value);
              }}
            />
          </label>
          <button
            type="button"
            className="secondary"
            aria-label="Next day"
            onClick={() => {
              moveDay(1);
            }}
          >
            ▶
          </button>
          <button
            type="button"
            className="secondary"
            disabled={isToday}
            onClick={() => {
              setDate(today);
            }}
          >
            Today
          </button>
        </div>
        <label>
          Service for walk-ins{" "}
          <select
            value={service}
            onChange={(e) => {
              setServiceId(e.target.value);
            }}
          >
            {services.data?.services.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.duration_min} min)
              </option>
            ))}
          </select>
        </label>
        <DeskSearch
          clinicId={clinicId}
          timeZone={timeZone}
          fromDate={date < today ? date : today}
          onShow={(a) => {
            setDate(dateIn(a.start, timeZone));
            setShowAppointment(a.id);
          }}
        />
      </div>
      <p className="hint" data-testid="day-line">
        {longDate(date)}, clinic time ({timeZone}){isToday ? `; now ${hhmm(nowMinute)}` : ""}
      </p>
      {!pickedDate && current && current.reason !== "today" && (
        <p className="notice" data-testid="next-open-day">
          {current.reason === "after-hours"
            ? "The clinic has closed for today"
            : current.reason === "closed-today"
              ? "The clinic is closed today"
              : "The clinic has no opening hours in the next two weeks"}
          {current.reason === "nothing-open"
            ? "."
            : `, so the desk shows the next open day, ${longDate(current.date)}.`}{" "}
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDate(current.today);
            }}
          >
            Show today
          </button>
        </p>
      )}
      {message && (
        <p role="status" data-testid="desk-message">
          {message}
          {undo && (
            <>
              {" "}
              <button
                type="button"
                className="secondary"
                disabled={changeStatus.isPending}
                onClick={() => {
                  changeStatus.mutate(undo);
                }}
              >
                Undo
              </button>
            </>
          )}
        </p>
      )}
      {why && (
        <p role="status" className="why" data-testid="why">
          {why}
        </p>
      )}
      {walkIn && (
        <form
          className="walk-in"
          onSubmit={(e) => {
            e.preventDefault();
            book.mutate({ providerId: walkIn.providerId, start: walkIn.start });
          }}
        >
          <p>
            Walk-in with {walkIn.providerName} at {timeIn(walkIn.start, timeZone)}
          </p>
          <label>
            Patient name{" "}
            <input
              required
              autoFocus
              value={patient}
              onChange={(e) => {
                setPatient(e.target.value);
              }}
            />
          </label>
          <button type="submit" disabled={book.isPending}>
            Book walk-in
          </button>{" "}
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setWalkIn(undefined);
            }}
          >
            Close
          </button>
        </form>
      )}
      <ul className="legend" aria-label="Key">
        {Object.entries(statusLooks).map(([status, look]) => (
          <li key={status} className={`appt status-${status}`}>
            <span aria-hidden="true">{look.symbol}</span> {look.label}
          </li>
        ))}
        <li className="legend-series">
          <span className="series-badge">{words.series}</span> {words.legendSeries}
        </li>
        <li className="legend-free">Book: a free time, for a walk-in</li>
        <li className="legend-quiet">Shaded: not bookable (hover or focus for the reason)</li>
        <li className="legend-closed">Hatched: closed</li>
        <li className="legend-external">
          {words.busyCalendar}: {words.legendBusy}
        </li>
      </ul>
      <p id="grid-help" className="hint">
        In the grid, the arrow keys move between cells, Home and End to the first and last provider; Tab reaches a
        cell&apos;s buttons.
      </p>
      {calendarsOf && (
        <CalendarsDialog
          clinicId={clinicId}
          provider={calendarsOf}
          timeZone={timeZone}
          onChanged={calendarsChanged}
          onClose={() => {
            const opener = document.getElementById(`calendars-${calendarsOf.user_id}`);
            setCalendarsOf(undefined);
            opener?.focus();
          }}
        />
      )}
      <div className="grid-scroll">
        <table className="day" ref={table} onKeyDown={onGridKey} aria-describedby="grid-help">
          <caption>Appointments and free times per provider</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {loaded.map((p) => (
                <th scope="col" key={p.user_id}>
                  <span className="provider-name">{p.full_name}</span>{" "}
                  <button
                    type="button"
                    className="secondary header-button"
                    id={`calendars-${p.user_id}`}
                    aria-label={words.calendarsOf(p.full_name)}
                    onClick={() => {
                      setCalendarsOf({ user_id: p.user_id, full_name: p.full_name });
                    }}
                  >
                    {words.calendars}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((minute, r) => (
              <tr key={minute} className={r === nowRow ? "now-row" : undefined}>
                <th scope="row">
                  {hhmm(minute)}
                  {r === nowRow && (
                    <span className="now-line" data-testid="now-line" style={{ top: `${String(nowOffset)}%` }}>
                      <span className="now-label">now {hhmm(nowMinute)}</span>
                    </span>
                  )}
                </th>
                {loaded.map((p, col) => {
                  const block = columns[col]?.find((b) => b.row === r);
                  return block ? renderBlock(p, col, block) : null;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}
