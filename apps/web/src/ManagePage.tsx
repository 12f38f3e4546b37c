import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { errorCodeOf, messageOf } from "./api.ts";
import { resourceNames } from "./deskDay.ts";
import { type Locale, localeOf, longDateIn, strings } from "./i18n.ts";
import { type ManageView, type ManagedAppointment, manageApi } from "./manageApi.ts";
import { MonthView, monthOf } from "./MonthView.tsx";
import { AnswersList } from "./QuestionsFields.tsx";
import { SlotPicker } from "./SlotPicker.tsx";
import { dateIn, timeIn, visitorZone } from "./time.ts";

/** An error in the page's language where the page knows the words, else the English table. */
function messageIn(locale: Locale, error: unknown): string {
  const code = errorCodeOf(error);
  return (code ? strings[locale].errors[code] : undefined) ?? messageOf(error);
}

/** "a day" / "3 hours" / "30 minutes" of a cutoff in minutes. */
function cutoffText(locale: Locale, minutes: number): string {
  const t = strings[locale];
  return minutes % 60 === 0 ? t.hours(minutes / 60) : t.minutes(minutes);
}

/** The date picker of free times for a move (L4): the month view and the day's times, same provider. */
function MovePicker(props: {
  appointment: ManagedAppointment;
  timeZone: string;
  locale: Locale;
  busy: boolean;
  onPick: (start: Date) => void;
}) {
  const t = strings[props.locale];
  const today = dateIn(new Date(), props.timeZone);
  const [date, setDate] = useState("");
  const [month, setMonth] = useState(monthOf(today));
  return (
    <section className="move" aria-labelledby="move-heading">
      <h2 id="move-heading">{t.moveHeading}</h2>
      <MonthView
        clinicId={props.appointment.clinic_id}
        serviceId={props.appointment.service_id}
        providerId={props.appointment.provider_id}
        month={month}
        today={today}
        selected={date}
        locale={props.locale}
        onMonth={setMonth}
        onSelect={setDate}
      />
      {date && (
        <SlotPicker
          clinicId={props.appointment.clinic_id}
          serviceId={props.appointment.service_id}
          providerId={props.appointment.provider_id}
          date={date}
          timeZone={props.timeZone}
          locale={props.locale}
          nameOf={(slot) => t.pickToMove(timeIn(slot.start, props.timeZone), longDateIn(props.locale, date))}
          onPick={(slot) => {
            if (!props.busy) props.onPick(slot.start);
          }}
        />
      )}
    </section>
  );
}

/** The appointment itself: what, with whom, when (clinic time), and its status in words. */
function AppointmentCard({ view, locale }: { view: ManageView; locale: Locale }) {
  const t = strings[locale];
  const a = view.appointment;
  const zone = view.clinic.timezone;
  return (
    <dl className="managed" data-testid="managed-appointment" data-status={a.status}>
      <dt>{t.service}</dt>
      <dd>{a.service_name}</dd>
      <dt>{t.provider}</dt>
      <dd>{a.provider_name}</dd>
      <dt>{t.when}</dt>
      <dd>
        {t.at(longDateIn(locale, dateIn(a.start, zone)), timeIn(a.start, zone))}{" "}
        <small>
          ({t.clinicTime(zone)}
          {visitorZone() !== zone && `; ${timeIn(a.start, visitorZone())} ${t.yourTime}`})
        </small>
      </dd>
      {a.resources.length > 0 && (
        <>
          <dt>{t.room(a.resources.length)}</dt>
          <dd data-testid="managed-room">{resourceNames(a.resources)}</dd>
        </>
      )}
      <dt>{t.status}</dt>
      <dd data-testid="managed-status">
        {view.waitlist_offer && a.status === "held"
          ? t.offered
          : (t.statusWords[a.status] ?? a.status.replace(/_/g, " "))}
      </dd>
      {a.answers.length > 0 && (
        <>
          <dt>{t.answers.heading}</dt>
          <dd>
            <AnswersList answers={a.answers} words={t.answers} bare />
          </dd>
        </>
      )}
    </dl>
  );
}

/** The manage page `/manage/{token}` (§15 L1–L5), in the clinic's locale: confirm, accept or decline, cancel, move. */
export function ManagePage({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const view = useQuery({ queryKey: ["manage", token], queryFn: () => manageApi.get(token) });
  const [done, setDone] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [moving, setMoving] = useState(false);
  const locale = localeOf(view.data?.clinic.locale);
  const t = strings[locale];
  useEffect(() => {
    document.documentElement.lang = locale;
    if (view.data) document.title = t.manageTitle(view.data.clinic.name);
  }, [locale, t, view.data]);

  const act = useMutation({
    mutationFn: async (action: { kind: "confirm" | "cancel" | "decline" } | { kind: "reschedule"; start: Date }) => {
      switch (action.kind) {
        case "confirm":
          return { action, appointment: await manageApi.confirm(token) };
        case "cancel":
          return { action, appointment: await manageApi.cancel(token) };
        case "decline":
          await manageApi.decline(token);
          return { action, appointment: undefined };
        case "reschedule":
          return { action, appointment: await manageApi.reschedule(token, action.start) };
      }
    },
    onSuccess: async ({ action, appointment }) => {
      setProblem(undefined);
      setMoving(false);
      const zone = view.data?.clinic.timezone ?? "UTC";
      if (action.kind === "confirm") {
        setDone(appointment?.status === "pending" ? t.confirmedPending : t.confirmed);
      } else if (action.kind === "reschedule" && appointment) {
        setDone(t.moved(longDateIn(locale, dateIn(appointment.start, zone)), timeIn(appointment.start, zone)));
      } else if (action.kind === "cancel") {
        setDone(t.canceled);
      } else {
        setDone(view.data?.waitlist_offer ? t.declined : t.released);
      }
      // A canceled or declined appointment's link is dead: the page keeps what it showed.
      if (action.kind === "cancel" || action.kind === "decline") {
        if (view.data) {
          const gone = appointment ?? { ...view.data.appointment, status: "canceled" as const, held_until: null };
          queryClient.setQueryData<ManageView>(["manage", token], {
            ...view.data,
            appointment: gone,
            waitlist_offer: false,
            actions: [],
          });
        }
        return;
      }
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ["manage", token] }),
        queryClient.invalidateQueries({ queryKey: ["slots"] }),
      ]);
    },
    onError: async (error) => {
      setDone(undefined);
      setProblem(messageIn(locale, error));
      await queryClient.invalidateQueries({ queryKey: ["slots"] });
    },
  });

  if (view.isPending) {
    return (
      <main className="page manage">
        <p role="status">{t.loading}</p>
      </main>
    );
  }
  if (view.isError) {
    return (
      <main className="page manage">
        <h1>{t.yourAppointment}</h1>
        <p role="alert" className="problem">
          {errorCodeOf(view.error) === "NOT_FOUND" ? t.deadLink : messageIn(locale, view.error)}
        </p>
      </main>
    );
  }
  const { appointment, clinic, actions } = view.data;
  const can = (action: ManageView["actions"][number]) => actions.includes(action);
  const isOffer = view.data.waitlist_offer;
  const until = appointment.held_until ? timeIn(appointment.held_until, clinic.timezone) : undefined;
  return (
    <main className="page manage" lang={locale}>
      <h1>{t.manageTitle(clinic.name)}</h1>
      {done && (
        <p role="status" className="confirmation" data-testid="manage-done">
          {done}
        </p>
      )}
      {problem && (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      <AppointmentCard view={view.data} locale={locale} />
      {appointment.status === "held" && until && can("confirm") && (
        <p className="kept">{isOffer ? t.offerPrompt(until) : t.confirmPrompt(until)}</p>
      )}
      <div className="actions">
        {can("confirm") && (
          <button
            type="button"
            disabled={act.isPending}
            onClick={() => {
              act.mutate({ kind: "confirm" });
            }}
          >
            {isOffer ? t.accept : t.confirm}
          </button>
        )}
        {can("decline") && (
          <button
            type="button"
            className="secondary"
            disabled={act.isPending}
            onClick={() => {
              act.mutate({ kind: "decline" });
            }}
          >
            {isOffer ? t.decline : t.release}
          </button>
        )}
        {can("reschedule") && (
          <button
            type="button"
            className="secondary"
            aria-expanded={moving}
            onClick={() => {
              setMoving(!moving);
            }}
          >
            {moving ? t.closeMove : t.move}
          </button>
        )}
        {can("cancel") && (
          <button
            type="button"
            className="secondary"
            disabled={act.isPending}
            onClick={() => {
              act.mutate({ kind: "cancel" });
            }}
          >
            {t.cancel}
          </button>
        )}
      </div>
      {(can("cancel") || can("reschedule")) && (
        <p className="hint">{t.cutoff(cutoffText(locale, clinic.patient_cancel_cutoff_min))}</p>
      )}
      {actions.length === 0 && (appointment.status === "booked" || appointment.status === "pending") && (
        <p className="hint" data-testid="too-late">
          {t.tooLate(cutoffText(locale, clinic.patient_cancel_cutoff_min))}
        </p>
      )}
      {moving && can("reschedule") && (
        <MovePicker
          appointment={appointment}
          timeZone={clinic.timezone}
          locale={locale}
          busy={act.isPending}
          onPick={(start) => {
            act.mutate({ kind: "reschedule", start });
          }}
        />
      )}
    </main>
  );
}
