import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useId, useState } from "react";
import { errorCodeOf } from "../api.ts";
import { dateIn, instantAt, longDate, minutesOf } from "../time.ts";
import { instantText } from "./format.ts";
import { type DateOverride, parsePeriods, periodsText } from "./hours.ts";
import type { HoursApi } from "./hoursApi.ts";
import { problemText, useFieldProblems } from "./problem.tsx";

/**
 * Beside the week: the owner's date overrides (§8 D1–D6: a date's own hours, none = closed that
 * day) and closures (K1–K6: from an instant to an instant, e.g. a holiday or a provider's leave),
 * both in the clinic's zone. A closure's times are the clinic's wall clock turned into instants
 * with the zone's rules of that date, so a closure over a DST change is as long as the clock says.
 */
export function HoursExceptions(props: {
  api: HoursApi;
  queryKey: readonly unknown[];
  timeZone: string;
  editable: boolean;
  onNotice: (text: string) => void;
}) {
  const queryClient = useQueryClient();
  const today = dateIn(new Date(), props.timeZone);
  const overrides = useQuery({
    queryKey: [...props.queryKey, "overrides", today],
    queryFn: () => props.api.overrides(today),
  });
  // Closures that have not ended yet: from the start of today (clinic time).
  const since = instantAt(today, 0, props.timeZone);
  const closures = useQuery({
    queryKey: [...props.queryKey, "closures", today],
    queryFn: () => props.api.closures(since),
  });
  const reload = () => queryClient.invalidateQueries({ queryKey: props.queryKey });
  // A change saved or removed: said in the status line, and the lists read again.
  const done = async (text: string) => {
    props.onNotice(text);
    await reload();
  };
  const zone = props.timeZone;
  return (
    <>
      <ExceptionList
        name="overrides"
        itemTestId="override"
        heading="Dates with other hours"
        hint="On such a date its hours replace the week's; no hours means closed all day."
        items={overrides}
        editable={props.editable}
        onRemoved={done}
        onRefused={reload}
        describe={(o) => ({
          text: (
            <>
              <strong>{longDate(o.date)}</strong>: {o.periods.length === 0 ? "closed all day" : periodsText(o.periods)}
            </>
          ),
          reason: o.reason,
          removeLabel: `Remove the hours of ${longDate(o.date)}`,
          remove: () => props.api.removeOverride(o.date),
          removed: `Removed the hours of ${longDate(o.date)}: the weekly hours apply again.`,
        })}
      >
        <OverrideForm api={props.api} existing={overrides.data ?? []} onSaved={done} reload={reload} />
      </ExceptionList>
      <ExceptionList
        name="closures"
        itemTestId="closure"
        heading="Closures"
        hint={`No times are offered while closed (a holiday, leave); times are the clinic's (${zone}).`}
        items={closures}
        editable={props.editable}
        onRemoved={done}
        onRefused={reload}
        describe={(c) => {
          const text = `${instantText(c.starts_at, zone)} to ${instantText(c.ends_at, zone)}`;
          return {
            text: <strong>{text}</strong>,
            reason: c.reason,
            removeLabel: `Remove the closure ${text}`,
            remove: () => props.api.removeClosure(c.id),
            removed: "Closure removed.",
          };
        }}
      >
        <ClosureForm api={props.api} timeZone={zone} today={today} onSaved={done} />
      </ExceptionList>
    </>
  );
}

/** How a list shows one of its exceptions: its words, its reason, how it is removed and what is said then. */
interface ExceptionRow {
  text: ReactNode;
  reason: string | null | undefined;
  removeLabel: string;
  remove: () => Promise<void>;
  removed: string;
}

/**
 * A section of exceptions to the week (the dates with other hours, the closures): the heading and
 * hint, the list read from today on with a Remove at each row (a refusal said under its row, the
 * list read again), and the form to add one (`children`) for who may change them.
 */
function ExceptionList<T extends { id: string }>(props: {
  name: string;
  itemTestId: string;
  heading: string;
  hint: string;
  items: { isError: boolean; error: unknown; data: readonly T[] | undefined };
  editable: boolean;
  onRemoved: (notice: string) => Promise<void>;
  onRefused: () => Promise<void>;
  describe: (item: T) => ExceptionRow;
  children: ReactNode;
}) {
  const headingId = `${props.name}-heading`;
  const { items } = props;
  const [rowProblem, setRowProblem] = useState<{ id: string; text: string } | undefined>();
  const remove = useMutation({
    mutationFn: (row: ExceptionRow & { id: string }) => row.remove(),
    onMutate: () => {
      setRowProblem(undefined);
    },
    onSuccess: (_none, row) => props.onRemoved(row.removed),
    onError: async (error, row) => {
      setRowProblem({ id: row.id, text: problemText(error) });
      await props.onRefused();
    },
  });
  return (
    <section className="setup-section" aria-labelledby={headingId} data-testid={props.name}>
      <h3 id={headingId}>{props.heading}</h3>
      <p className="hint">{props.hint}</p>
      {items.isError ? (
        <p role="alert" className="problem">
          {problemText(items.error)}
        </p>
      ) : !items.data ? (
        <p role="status">Loading…</p>
      ) : items.data.length === 0 ? (
        <p>None from today on.</p>
      ) : (
        <ul className="exception-list">
          {items.data.map((item) => {
            const row = props.describe(item);
            return (
              <li key={item.id} data-testid={props.itemTestId}>
                {row.text}
                {row.reason ? ` (${row.reason})` : ""}
                {props.editable && (
                  <button
                    type="button"
                    className="secondary"
                    aria-label={row.removeLabel}
                    disabled={remove.isPending}
                    onClick={() => {
                      remove.mutate({ ...row, id: item.id });
                    }}
                  >
                    Remove
                  </button>
                )}
                {rowProblem?.id === item.id && (
                  <p role="alert" className="field-error">
                    {rowProblem.text}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {props.editable && props.children}
    </section>
  );
}

type FieldProblems = ReturnType<typeof useFieldProblems>;

/**
 * The shell both forms share: a form checked by the page only where it must build a request
 * (`noValidate`), one fieldset named by `legend`, the reason (optional) last before the button,
 * and the alert of a refusal that names no field.
 */
function ExceptionForm(props: {
  problems: FieldProblems;
  legend: string;
  reason: string;
  setReason: (reason: string) => void;
  submitLabel: string;
  busy: boolean;
  onSubmit: () => void;
  children: ReactNode;
}) {
  const { problems } = props;
  return (
    <form
      ref={problems.formRef}
      className="setup-form inline-add"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      <fieldset>
        <legend>{props.legend}</legend>
        {props.children}
        <div className="field">
          <label htmlFor={problems.idOf("reason")}>Reason (optional)</label>
          <input
            {...problems.props("reason")}
            type="text"
            value={props.reason}
            onChange={(e) => {
              props.setReason(e.target.value);
              problems.clear("reason");
            }}
          />
          {problems.error("reason")}
        </div>
        <button type="submit" disabled={props.busy}>
          {props.submitLabel}
        </button>
      </fieldset>
      {problems.alert}
    </form>
  );
}

const overrideLabels: Record<string, string> = { date: "Date", periods: "Hours that day", reason: "Reason" };

/** D1 / D4: a date's hours; an existing one is replaced with the `updated_at` it was read at. */
function OverrideForm(props: {
  api: HoursApi;
  existing: readonly DateOverride[];
  onSaved: (text: string) => Promise<void>;
  reload: () => Promise<void>;
}) {
  const id = useId();
  const problems = useFieldProblems({
    fields: ["date", "periods", "reason"],
    labelOf: (f) => overrideLabels[f.split(".")[0] ?? f],
    codes: { WORK_HOUR_OVERLAP: "periods", INVALID_TIME_RANGE: "periods", STALE_UPDATED_AT: "date" },
  });
  const [date, setDate] = useState("");
  const [hours, setHours] = useState("");
  const [reason, setReason] = useState("");
  const save = useMutation({
    mutationFn: (periods: { opens_at: string; closes_at: string }[]) => {
      const current = props.existing.find((o) => o.date === date);
      return props.api.putOverride({
        date,
        periods,
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(current ? { if_updated_at: current.updated_at } : {}),
      });
    },
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (_saved, periods) => {
      const words = periods.length === 0 ? "closed all day" : periodsText(periods);
      setDate("");
      setHours("");
      setReason("");
      await props.onSaved(`${longDate(date)}: ${words}.`);
    },
    onError: async (error) => {
      problems.show(error);
      // Someone else set that date meanwhile: the list shows theirs; saving again replaces it.
      if (errorCodeOf(error) === "STALE_UPDATED_AT") await props.reload();
    },
  });
  const hintId = `${id}-hours-hint`;
  return (
    <ExceptionForm
      problems={problems}
      legend="Other hours on a date"
      reason={reason}
      setReason={setReason}
      submitLabel="Save the date's hours"
      busy={save.isPending}
      onSubmit={() => {
        if (date === "") {
          problems.check({ date: "Date: please choose the date." });
          return;
        }
        const parsed = parsePeriods(hours);
        if ("error" in parsed) problems.check({ periods: parsed.error });
        else save.mutate(parsed.periods);
      }}
    >
      <div className="field">
        <label htmlFor={problems.idOf("date")}>Date</label>
        <input
          {...problems.props("date")}
          type="date"
          value={date}
          onChange={(e) => {
            setDate(e.target.value);
            problems.clear("date");
          }}
        />
        {problems.error("date")}
      </div>
      <div className="field">
        <label htmlFor={problems.idOf("periods")}>Hours that day</label>
        <input
          {...problems.props("periods", hintId)}
          type="text"
          autoComplete="off"
          value={hours}
          onChange={(e) => {
            setHours(e.target.value);
            problems.clear("periods");
          }}
        />
        <span id={hintId} className="field-hint">
          e.g. 09:00–12:00, 14:00–16:00; empty = closed all day
        </span>
        {problems.error("periods")}
      </div>
    </ExceptionForm>
  );
}

const closureLabels: Record<string, string> = { starts_at: "From", ends_at: "Until", reason: "Reason" };

/** K1 / K4: from a date and time to a date and time, the clinic's wall clock. */
function ClosureForm(props: {
  api: HoursApi;
  timeZone: string;
  today: string;
  onSaved: (text: string) => Promise<void>;
}) {
  const problems = useFieldProblems({
    fields: ["starts_at", "ends_at", "reason"],
    labelOf: (f) => closureLabels[f],
    codes: { INVALID_TIME_RANGE: "ends_at" },
  });
  const [fromDate, setFromDate] = useState("");
  const [fromTime, setFromTime] = useState("00:00");
  const [toDate, setToDate] = useState("");
  const [toTime, setToTime] = useState("24:00");
  const [reason, setReason] = useState("");
  const timeOk = (t: string) => /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(t.trim());
  const create = useMutation({
    mutationFn: (input: { starts_at: Date; ends_at: Date }) =>
      props.api.createClosure({ ...input, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (c) => {
      setFromDate("");
      setToDate("");
      setReason("");
      await props.onSaved(
        `Closed from ${instantText(c.starts_at, props.timeZone)} to ${instantText(c.ends_at, props.timeZone)}.`,
      );
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const input = (
    field: "starts_at" | "ends_at",
    date: string,
    setDate: (v: string) => void,
    time: string,
    setTime: (v: string) => void,
  ) => (
    <fieldset {...problems.props(field)} className="closure-when">
      <legend>{closureLabels[field]}</legend>
      <div className="period-fields">
        <div className="field">
          <label htmlFor={`${problems.idOf(field)}-date`}>Date</label>
          <input
            id={`${problems.idOf(field)}-date`}
            type="date"
            min={props.today}
            value={date}
            onChange={(e) => {
              setDate(e.target.value);
              problems.clear(field);
            }}
          />
        </div>
        <div className="field time-field">
          <label htmlFor={`${problems.idOf(field)}-time`}>Time</label>
          <input
            id={`${problems.idOf(field)}-time`}
            type="text"
            inputMode="numeric"
            size={6}
            value={time}
            onChange={(e) => {
              setTime(e.target.value);
              problems.clear(field);
            }}
          />
        </div>
      </div>
      {problems.error(field)}
    </fieldset>
  );
  return (
    <ExceptionForm
      problems={problems}
      legend="New closure"
      reason={reason}
      setReason={setReason}
      submitLabel="Add the closure"
      busy={create.isPending}
      onSubmit={() => {
        const missing: Record<string, string> = {};
        if (fromDate === "" || !timeOk(fromTime)) missing.starts_at = "From: a date, and a time as HH:MM.";
        if (toDate === "" || !timeOk(toTime))
          missing.ends_at = "Until: a date, and a time as HH:MM (24:00 = the day's end).";
        if (Object.keys(missing).length > 0) {
          problems.check(missing);
          return;
        }
        create.mutate({
          starts_at: instantAt(fromDate, minutesOf(fromTime.trim()), props.timeZone),
          ends_at: instantAt(toDate, minutesOf(toTime.trim()), props.timeZone),
        });
      }}
    >
      {input("starts_at", fromDate, setFromDate, fromTime, setFromTime)}
      {input("ends_at", toDate, setToDate, toTime, setToTime)}
    </ExceptionForm>
  );
}
