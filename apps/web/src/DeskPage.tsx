import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useState } from "react";
import { client, messageOf } from "./api.ts";
import { dateIn, hhmm, instantAt, longDate, minutesIn, minutesOf, weekdayOf } from "./time.ts";

type Appointment = RouterOutputs["appointments"]["list"]["appointments"][number];
type ProviderDetail = RouterOutputs["providers"]["get"];

const rowStep = 30;

/** What a cell of the day grid holds. */
type Cell =
  | { kind: "appointment"; appointment: Appointment; first: boolean }
  | { kind: "free"; start: Date }
  | { kind: "closed"; reason: string }
  | { kind: "other"; start: Date; working: boolean };

function cellOf(
  provider: ProviderDetail,
  minute: number,
  context: { date: string; timeZone: string; appointments: Appointment[]; freeStarts: Map<string, Set<number>> },
): Cell {
  const { date, timeZone } = context;
  const start = instantAt(date, minute, timeZone);
  const end = instantAt(date, minute + rowStep, timeZone);
  const appointment = context.appointments.find(
    (a) => a.provider_id === provider.user_id && a.start < end && a.end > start,
  );
  if (appointment) return { kind: "appointment", appointment, first: minutesIn(appointment.start, timeZone) >= minute };
  const closure = provider.closures.find((c) => c.starts_at < end && c.ends_at > start);
  if (closure) return { kind: "closed", reason: closure.reason ?? "closed" };
  if (context.freeStarts.get(provider.user_id)?.has(minute)) return { kind: "free", start };
  const weekday = weekdayOf(date);
  const working = provider.work_hours.some(
    (h) => h.weekday === weekday && minutesOf(h.opens_at) <= minute && minute < minutesOf(h.closes_at),
  );
  return { kind: "other", start, working };
}

/** The front-desk day view `/desk/{clinic_id}` (docs/web.md). */
export function DeskPage({ clinicId }: { clinicId: string }) {
  const queryClient = useQueryClient();
  const clinic = useQuery({
    queryKey: ["desk-clinic", clinicId],
    queryFn: () => client.clinics.get.query({ clinic_id: clinicId }),
  });
  const timeZone = clinic.data?.timezone ?? "UTC";
  // The day shown: `?date=YYYY-MM-DD`, else today in the clinic's zone.
  const [pickedDate, setDate] = useState(() => new URLSearchParams(window.location.search).get("date") ?? "");
  const date = pickedDate || dateIn(new Date(), timeZone);
  const [serviceId, setServiceId] = useState("");
  const [walkIn, setWalkIn] = useState<{ providerId: string; providerName: string; start: Date } | undefined>();
  const [patient, setPatient] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const [why, setWhy] = useState<string | undefined>();

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
  const dayStart = instantAt(date, 0, timeZone);
  const dayEnd = instantAt(date, 24 * 60, timeZone);
  const appointments = useQuery({
    queryKey: ["desk-appointments", clinicId, date],
    queryFn: () =>
      client.appointments.list.query({ clinic_id: clinicId, from: dayStart, to: dayEnd, status: "booked", limit: 500 }),
    enabled: clinic.isSuccess,
  });
  const slots = useQuery({
    queryKey: ["desk-slots", clinicId, service, date],
    queryFn: () => client.availability.get.query({ clinic_id: clinicId, service_id: service, from: date, to: date }),
    enabled: clinic.isSuccess && service !== "",
  });
  const refresh = () =>
    queryClient.invalidateQueries({
      predicate: (q) => ["desk-appointments", "desk-slots"].includes(String(q.queryKey[0])),
    });
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
      setMessage(`Booked ${a.patient.name} with ${a.provider_name} at ${hhmm(minutesIn(a.start, timeZone))}.`);
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
      setMessage(`Canceled ${a.patient.name} at ${hhmm(minutesIn(a.start, timeZone))}.`);
      await refresh();
    },
    onError: (error) => {
      setMessage(messageOf(error));
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
          ? `${hhmm(minutesIn(start, timeZone))}: ${reasons.join("; ")}`
          : `${hhmm(minutesIn(start, timeZone))} is bookable.`,
      );
    } catch (error) {
      setWhy(messageOf(error));
    }
  };

  if (clinic.isPending) return <p role="status">Loading…</p>;
  if (clinic.isError) return <p role="alert">{messageOf(clinic.error)}</p>;
  const loaded = details.flatMap((d) => (d.data ? [d.data] : []));
  const freeStarts = new Map<string, Set<number>>();
  for (const slot of slots.data?.slots ?? []) {
    for (const id of slot.provider_ids) {
      const set = freeStarts.get(id) ?? new Set<number>();
      set.add(minutesIn(slot.start, timeZone));
      freeStarts.set(id, set);
    }
  }
  // Rows: every half hour from the earliest opening to the latest closing of the weekday.
  const weekday = weekdayOf(date);
  const hours = loaded.flatMap((p) => p.work_hours.filter((h) => h.weekday === weekday));
  const first = Math.min(8 * 60, ...hours.map((h) => minutesOf(h.opens_at)));
  const last = Math.max(18 * 60, ...hours.map((h) => minutesOf(h.closes_at)));
  const rows: number[] = [];
  for (let m = Math.floor(first / rowStep) * rowStep; m < last; m += rowStep) rows.push(m);
  const context = { date, timeZone, appointments: appointments.data?.appointments ?? [], freeStarts };

  return (
    <main className="page desk">
      <h1>{clinic.data.name}: front desk</h1>
      <div className="toolbar">
        <label>
          Day{" "}
          <input
            type="date"
            value={date}
            onChange={(e) => {
              setDate(e.target.value);
            }}
          />
        </label>
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
        <span className="hint">
          {longDate(date)}, clinic time ({timeZone})
        </span>
      </div>
      {message && <p role="status">{message}</p>}
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
            Walk-in with {walkIn.providerName} at {hhmm(minutesIn(walkIn.start, timeZone))}
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
          </button>
          <button
            type="button"
            onClick={() => {
              setWalkIn(undefined);
            }}
          >
            Close
          </button>
        </form>
      )}
      <div className="grid-scroll">
        <table className="day">
          <caption>Appointments and free times per provider</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {loaded.map((p) => (
                <th scope="col" key={p.user_id}>
                  {p.full_name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((minute) => (
              <tr key={minute}>
                <th scope="row">{hhmm(minute)}</th>
                {loaded.map((p) => {
                  const cell = cellOf(p, minute, context);
                  const label = `${p.full_name} ${hhmm(minute)}`;
                  if (cell.kind === "appointment") {
                    return (
                      <td key={p.user_id} className="booked" data-cell={label}>
                        {cell.first ? (
                          <>
                            <span>
                              {cell.appointment.patient.name}, {cell.appointment.service_name}
                            </span>{" "}
                            <button
                              type="button"
                              aria-label={`Cancel ${cell.appointment.patient.name} at ${hhmm(minute)}`}
                              onClick={() => {
                                cancel.mutate(cell.appointment.id);
                              }}
                            >
                              Cancel
                            </button>
                          </>
                        ) : (
                          <span aria-hidden="true">┆</span>
                        )}
                      </td>
                    );
                  }
                  if (cell.kind === "closed") {
                    return (
                      <td key={p.user_id} className="closed" data-cell={label}>
                        {cell.reason}
                      </td>
                    );
                  }
                  if (cell.kind === "free") {
                    return (
                      <td key={p.user_id} className="free" data-cell={label}>
                        <button
                          type="button"
                          aria-label={`Book ${p.full_name} at ${hhmm(minute)}`}
                          onClick={() => {
                            setWalkIn({ providerId: p.user_id, providerName: p.full_name, start: cell.start });
                          }}
                        >
                          Free
                        </button>
                      </td>
                    );
                  }
                  return (
                    <td key={p.user_id} className={cell.working ? "busy" : "off"} data-cell={label}>
                      <button
                        type="button"
                        className="why-button"
                        aria-label={`Why is ${p.full_name} at ${hhmm(minute)} not bookable?`}
                        onClick={() => void explain(p.user_id, cell.start)}
                      >
                        why?
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}
