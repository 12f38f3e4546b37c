import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useEffect, useState } from "react";
import { client, messageOf } from "./api.ts";
import { matches } from "./search.ts";
import { dateIn, longDate, timeIn, visitorZone } from "./time.ts";

type Slot = RouterOutputs["onlineBooking"]["availability"]["slots"][number];
type Appointment = RouterOutputs["me"]["appointments"]["appointments"][number];
type Hold = RouterOutputs["onlineBooking"]["hold"];

/** The current time, every 15 seconds (the hold's countdown). */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(new Date());
    }, 15_000);
    return () => {
      clearInterval(timer);
    };
  }, []);
  return now;
}

/** A slot's time in the clinic's zone, and in the visitor's when that differs. */
function SlotTime({ start, timeZone }: { start: Date; timeZone: string }) {
  const mine = visitorZone();
  return (
    <>
      {timeIn(start, timeZone)}
      {mine !== timeZone && <small className="own-zone"> ({timeIn(start, mine)} your time)</small>}
    </>
  );
}

/** The free times of one service on one date, as buttons. */
function SlotPicker(props: {
  clinicId: string;
  serviceId: string;
  date: string;
  timeZone: string;
  providerId?: string;
  selected?: string | undefined;
  onPick: (slot: Slot) => void;
}) {
  const slots = useQuery({
    queryKey: ["slots", props.clinicId, props.serviceId, props.date, props.providerId ?? ""],
    queryFn: () =>
      client.onlineBooking.availability.query({
        clinic_id: props.clinicId,
        service_id: props.serviceId,
        from: props.date,
        to: props.date,
        ...(props.providerId ? { provider_id: props.providerId } : {}),
      }),
  });
  if (slots.isPending) return <p role="status">Loading free times…</p>;
  if (slots.isError) return <p role="alert">{messageOf(slots.error)}</p>;
  if (slots.data.slots.length === 0) return <p>No free times on {longDate(props.date)}. Please try another date.</p>;
  return (
    <ul className="slots" aria-label={`Free times on ${longDate(props.date)}`}>
      {slots.data.slots.map((slot) => {
        const key = slot.start.toISOString();
        return (
          <li key={key}>
            <button
              type="button"
              className="slot"
              aria-pressed={props.selected === key}
              onClick={() => {
                props.onPick(slot);
              }}
            >
              <SlotTime start={slot.start} timeZone={props.timeZone} />
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** "My appointments": the caller's upcoming ones in every clinic, with cancel and move. */
function MyAppointments({ clinicId, timeZone }: { clinicId: string; timeZone: string }) {
  const queryClient = useQueryClient();
  const [moving, setMoving] = useState<Appointment | undefined>();
  const [moveDate, setMoveDate] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const mine = useQuery({
    queryKey: ["me"],
    queryFn: () => client.me.appointments.query({ from: new Date(), status: "booked" }),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["me"] }),
      queryClient.invalidateQueries({ queryKey: ["slots"] }),
    ]);
  const cancel = useMutation({
    mutationFn: (id: string) => client.me.cancel.mutate({ id }),
    onSuccess: async () => {
      setMessage("Your appointment is canceled.");
      await refresh();
    },
    onError: (error) => {
      setMessage(messageOf(error));
    },
  });
  const move = useMutation({
    mutationFn: (input: { id: string; start: Date }) => client.me.reschedule.mutate(input),
    onSuccess: async (moved) => {
      setMessage(`Moved to ${longDate(dateIn(moved.start, timeZone))}, ${timeIn(moved.start, timeZone)}.`);
      setMoving(undefined);
      await refresh();
    },
    onError: async (error) => {
      setMessage(messageOf(error));
      await refresh();
    },
  });
  return (
    <section aria-labelledby="mine-heading">
      <h2 id="mine-heading">My appointments</h2>
      {message && <p role="status">{message}</p>}
      {mine.isPending && <p role="status">Loading…</p>}
      {mine.isError && <p role="alert">{messageOf(mine.error)}</p>}
      {mine.data?.appointments.length === 0 && <p>No upcoming appointments.</p>}
      <ul className="appointments">
        {mine.data?.appointments.map((a) => (
          <li key={a.id} data-testid="my-appointment">
            <strong>{a.service_name}</strong> with {a.provider_name}, {longDate(dateIn(a.start, timeZone))} at{" "}
            <SlotTime start={a.start} timeZone={timeZone} />
            <div className="actions">
              <button
                type="button"
                onClick={() => {
                  cancel.mutate(a.id);
                }}
                disabled={cancel.isPending}
              >
                Cancel
              </button>
              <button
                type="button"
                onClick={() => {
                  setMoving(a);
                  setMoveDate(dateIn(a.start, timeZone));
                }}
              >
                Move
              </button>
            </div>
            {moving?.id === a.id && a.clinic_id === clinicId && (
              <div className="move">
                <label>
                  New date{" "}
                  <input
                    type="date"
                    value={moveDate}
                    onChange={(e) => {
                      setMoveDate(e.target.value);
                    }}
                  />
                </label>
                {moveDate && (
                  <SlotPicker
                    clinicId={clinicId}
                    serviceId={a.service_id}
                    providerId={a.provider_id}
                    date={moveDate}
                    timeZone={timeZone}
                    onPick={(slot) => {
                      move.mutate({ id: a.id, start: slot.start });
                    }}
                  />
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The patient booking page `/book/{clinic_id}` (docs/web.md). */
export function BookingPage({ clinicId }: { clinicId: string }) {
  const queryClient = useQueryClient();
  const clinic = useQuery({
    queryKey: ["clinic", clinicId],
    queryFn: () => client.onlineBooking.clinic.query({ clinic_id: clinicId }),
  });
  const services = useQuery({
    queryKey: ["services", clinicId],
    queryFn: () => client.onlineBooking.services.query({ clinic_id: clinicId }),
  });
  const [search, setSearch] = useState("");
  const [serviceId, setServiceId] = useState("");
  const [date, setDate] = useState("");
  const [slot, setSlot] = useState<Slot | undefined>();
  const [name, setName] = useState("");
  const [phone, setPhone] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const [booked, setBooked] = useState<Appointment | undefined>();
  const [hold, setHold] = useState<Hold | undefined>();
  const now = useNow();
  /** Lets a kept time go (when the patient goes back or picks another); it expires by itself anyway. */
  const releaseHold = () => {
    if (!hold) return;
    setHold(undefined);
    client.appointments.releaseHold
      .mutate({ clinic_id: clinicId, id: hold.id })
      .catch(() => undefined)
      .finally(() => void queryClient.invalidateQueries({ queryKey: ["slots"] }));
  };
  // The time is kept for the patient while they type their details (T3); the booking uses it.
  const holdSlot = useMutation({
    mutationFn: async (picked: Slot) => {
      // The previous time goes first, so that it does not count against the patient's holds.
      if (hold)
        await client.appointments.releaseHold.mutate({ clinic_id: clinicId, id: hold.id }).catch(() => undefined);
      return client.onlineBooking.hold.mutate({ clinic_id: clinicId, service_id: serviceId, start: picked.start });
    },
    onSuccess: (kept, picked) => {
      setHold(kept);
      setSlot(picked);
    },
    onError: async (error) => {
      setMessage(messageOf(error));
      setSlot(undefined);
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });
  const pick = (picked: Slot) => {
    if (hold && hold.start.getTime() === picked.start.getTime()) return;
    setHold(undefined);
    setSlot(picked);
    setBooked(undefined);
    setMessage(undefined);
    holdSlot.mutate(picked);
  };
  const book = useMutation({
    mutationFn: (input: { slot: Slot; holdId: string | undefined }) =>
      client.onlineBooking.book.mutate({
        clinic_id: clinicId,
        service_id: serviceId,
        start: input.slot.start,
        patient: { name, ...(phone ? { phone_e164: phone } : {}) },
        ...(input.holdId ? { hold_id: input.holdId } : {}),
      }),
    onSuccess: async (appointment) => {
      setBooked(appointment);
      setSlot(undefined);
      setHold(undefined);
      setMessage(undefined);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ["me"] }),
        queryClient.invalidateQueries({ queryKey: ["slots"] }),
      ]);
    },
    onError: async (error) => {
      setMessage(messageOf(error));
      setSlot(undefined);
      setHold(undefined);
      // Whatever went wrong, the free times shown next are the current ones.
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });

  if (clinic.isPending) return <p role="status">Loading…</p>;
  if (clinic.isError) return <p role="alert">{messageOf(clinic.error)}</p>;
  const timeZone = clinic.data.timezone;
  const today = dateIn(new Date(), timeZone);
  const shown = (services.data?.services ?? []).filter((s) => matches(s.name, search));
  const keptMs = hold?.held_until ? hold.held_until.getTime() - now.getTime() : 0;
  const keptMinutes = Math.floor(keptMs / 60_000);
  const holdExpired = hold !== undefined && keptMs <= 0;

  return (
    <main className="page booking">
      <h1>Book at {clinic.data.name}</h1>
      <p className="hint">
        Times are shown in the clinic's time zone ({timeZone})
        {visitorZone() !== timeZone ? `, with yours (${visitorZone()}) in brackets` : ""}.
      </p>
      {booked && (
        <p role="status" className="confirmation">
          Booked: {booked.service_name} with {booked.provider_name}, {longDate(dateIn(booked.start, timeZone))} at{" "}
          {timeIn(booked.start, timeZone)}.
        </p>
      )}
      {message && (
        <p role="alert" className="problem">
          {message}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (slot && hold && !holdExpired) book.mutate({ slot, holdId: hold.id });
        }}
      >
        <fieldset>
          <legend>1. Service</legend>
          <label>
            Search services{" "}
            <input
              type="search"
              value={search}
              onChange={(e) => {
                setSearch(e.target.value);
              }}
              placeholder="e.g. massage"
            />
          </label>
          {services.isError && <p role="alert">{messageOf(services.error)}</p>}
          <div className="choices" role="radiogroup" aria-label="Services">
            {shown.map((s) => (
              <label key={s.id} className="choice">
                <input
                  type="radio"
                  name="service"
                  value={s.id}
                  checked={serviceId === s.id}
                  onChange={() => {
                    releaseHold();
                    setServiceId(s.id);
                    setSlot(undefined);
                    setBooked(undefined);
                  }}
                />
                {s.name} ({s.duration_min} min{s.provider_name ? `, ${s.provider_name}` : ""})
              </label>
            ))}
            {services.data && shown.length === 0 && <p>No service matches “{search}”.</p>}
          </div>
        </fieldset>
        <fieldset disabled={!serviceId}>
          <legend>2. Date and time</legend>
          <label>
            Date{" "}
            <input
              type="date"
              min={today}
              value={date}
              onChange={(e) => {
                releaseHold();
                setDate(e.target.value);
                setSlot(undefined);
              }}
            />
          </label>
          {serviceId && date && (
            <SlotPicker
              clinicId={clinicId}
              serviceId={serviceId}
              date={date}
              timeZone={timeZone}
              selected={slot?.start.toISOString()}
              onPick={pick}
            />
          )}
        </fieldset>
        <fieldset disabled={!hold || holdExpired}>
          <legend>3. Your details</legend>
          {slot && holdSlot.isPending && <p role="status">Keeping {timeIn(slot.start, timeZone)} for you…</p>}
          {slot && hold?.held_until && (
            <p role="status" className={holdExpired ? "problem" : "kept"} data-testid="hold">
              {holdExpired
                ? `${timeIn(slot.start, timeZone)} is no longer kept for you. Please pick a time again.`
                : `We keep ${timeIn(slot.start, timeZone)} on ${longDate(date)} for you for ${
                    keptMinutes < 1
                      ? "less than a minute"
                      : `${String(keptMinutes)} minute${keptMinutes === 1 ? "" : "s"}`
                  } (until ${timeIn(hold.held_until, timeZone)} clinic time) while you enter your details.`}
            </p>
          )}
          <label>
            Name{" "}
            <input
              required
              autoComplete="name"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
          </label>
          <label>
            Phone (optional, international, e.g. +4915112345678){" "}
            <input
              type="tel"
              autoComplete="tel"
              pattern="\+[1-9][0-9]{6,14}"
              value={phone}
              onChange={(e) => {
                setPhone(e.target.value);
              }}
            />
          </label>
          <button type="submit" disabled={!slot || !hold || holdExpired || book.isPending}>
            {slot ? `Book ${timeIn(slot.start, timeZone)} on ${longDate(date)}` : "Choose a time first"}
          </button>{" "}
          {slot && (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                releaseHold();
                setSlot(undefined);
              }}
            >
              Choose another time
            </button>
          )}
        </fieldset>
      </form>
      <MyAppointments clinicId={clinicId} timeZone={timeZone} />
    </main>
  );
}
