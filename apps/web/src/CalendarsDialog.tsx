import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, problemOf } from "@clinic/client";
import { useEffect, useId, useRef, useState } from "react";
import { client, messageOf } from "./api.ts";
import { type CalendarKind, type CalendarStatus, strings } from "./i18n.ts";

type Calendar = RouterOutputs["calendars"]["list"]["calendars"][number];
type NewCalendar = RouterInputs["calendars"]["create"];

/** The desk is English; its words for calendars are kept in both locales (i18n.ts). */
const words = strings.en;
/** §18: at most 5 calendars per provider and clinic. */
const maxCalendars = 5;
/** How often the list is read again while a sync is under way, and for how long after "Sync now" at most. */
const pollMs = 1000;
const syncWatchMs = 30_000;
const statusSymbols: Record<CalendarStatus, string> = { pending: "…", ok: "✓", error: "!", stale: "⚠" };

/** The form's fields that a VALIDATION_FAILED answer may name (its `errors[].path`). */
type Field = "url" | "username" | "password" | "name" | "write_back";
const fieldLabels: Record<Field, string> = {
  url: words.calUrlLabel,
  username: words.calUsernameLabel,
  password: words.calPasswordLabel,
  name: words.calNameLabel,
  write_back: words.calWriteBackLabel,
};
const isField = (path: string): path is Field => path in fieldLabels;

const labelOf = (c: Calendar) => c.name ?? c.url;
/** What changes when a sync has run (or failed): ends the "sync under way" of "Sync now". */
const syncSignature = (c: Calendar) =>
  [c.status, c.last_synced_at?.toISOString() ?? "", c.last_error ?? "", String(c.busy_count)].join("|");

/** "24 Nov 2026, 10:05" in the clinic's zone. */
const syncedAt = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat("en-GB", {
    timeZone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(instant);

/**
 * A provider's own calendars (§18, K1–K4), opened from their column's header on the desk: the
 * list with each calendar's kind, status, last sync (clinic time) and busy count; for who may
 * change them (CLINIC_ADMIN, the provider themself) "Sync now", "Remove" with a confirmation, and
 * a form to add one. A modal `<dialog>`: focus starts on its heading, Escape or Close ends it.
 */
export function CalendarsDialog(props: {
  clinicId: string;
  provider: { user_id: string; full_name: string };
  timeZone: string;
  /** The grid's busy time or free cells may have changed (a calendar added, synced or removed). */
  onChanged: () => void;
  onClose: () => void;
}) {
  const { clinicId, provider, timeZone } = props;
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState("");
  const [confirming, setConfirming] = useState<string | undefined>();
  // "Sync now" pressed: the calendar's state then, and when, until a sync changes it (or 30 s pass).
  const [syncing, setSyncing] = useState<ReadonlyMap<string, { signature: string; since: number }>>(new Map());

  const listKey = ["desk-calendars", clinicId, provider.user_id];
  const list = useQuery({
    queryKey: listKey,
    queryFn: () => client.calendars.list.query({ clinic_id: clinicId, user_id: provider.user_id }),
    refetchInterval: (query) =>
      syncing.size > 0 || query.state.data?.calendars.some((c) => c.status === "pending") ? pollMs : false,
  });
  const calendars = list.data?.calendars ?? [];
  // K2 says whether the caller may add, sync and remove them (CLINIC_ADMIN, or the provider themself).
  const mayManage = list.data?.may_manage === true;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) {
      element.showModal();
      heading.current?.focus();
    }
  }, []);

  // A sync that has run ends its "under way"; any change of the calendars redraws the grid's busy time.
  const signature = calendars.map((c) => `${c.id}:${syncSignature(c)}`).join(",");
  const seen = useRef<string | undefined>(undefined);
  const { onChanged } = props;
  useEffect(() => {
    const data = list.data;
    if (!data) return;
    if (seen.current !== undefined && seen.current !== signature) onChanged();
    seen.current = signature;
    setSyncing((current) => {
      if (current.size === 0) return current;
      const now = Date.now();
      const next = new Map(
        [...current].filter(([calendarId, watch]) => {
          const c = data.calendars.find((x) => x.id === calendarId);
          return c !== undefined && syncSignature(c) === watch.signature && now - watch.since < syncWatchMs;
        }),
      );
      return next.size === current.size ? current : next;
    });
  }, [list.data, list.dataUpdatedAt, signature, onChanged]);

  const changed = async () => {
    await queryClient.invalidateQueries({ queryKey: listKey });
    onChanged();
  };
  const sync = useMutation({
    mutationFn: (c: Calendar) =>
      client.calendars.sync.mutate({ clinic_id: clinicId, user_id: provider.user_id, id: c.id }),
    onMutate: (c) => {
      setSyncing((current) => new Map(current).set(c.id, { signature: syncSignature(c), since: Date.now() }));
    },
    onSuccess: async (c) => {
      setNotice(words.calSyncStarted(labelOf(c)));
      await changed();
    },
    onError: (error, c) => {
      setSyncing((current) => new Map([...current].filter(([calendarId]) => calendarId !== c.id)));
      setNotice(messageOf(error));
    },
  });
  const remove = useMutation({
    mutationFn: (c: Calendar) =>
      client.calendars.delete.mutate({ clinic_id: clinicId, user_id: provider.user_id, id: c.id }),
    onSuccess: async (_nothing, c) => {
      setConfirming(undefined);
      setNotice(words.calRemoved(labelOf(c)));
      heading.current?.focus();
      await changed();
    },
    onError: (error) => {
      setNotice(messageOf(error));
    },
  });

  // The confirmation of "Remove" takes the focus on its safe answer; "Keep it" gives it back.
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) keep.current?.focus();
  }, [confirming]);
  const keepCalendar = (calendarId: string) => {
    setConfirming(undefined);
    requestAnimationFrame(() => {
      dialog.current?.querySelector<HTMLButtonElement>(`[data-remove="${calendarId}"]`)?.focus();
    });
  };

  return (
    <dialog
      ref={dialog}
      className="calendars-dialog"
      aria-labelledby={`${id}-heading`}
      data-testid="calendars-dialog"
      onClose={props.onClose}
    >
      <div className="dialog-head">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>
          {words.calendarsOf(provider.full_name)}
        </h2>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            dialog.current?.close();
          }}
        >
          {words.calClose}
        </button>
      </div>
      <p className="hint">{words.calendarsIntro(provider.full_name)}</p>
      {list.data?.may_manage === false && <p className="hint">{words.calendarsReadOnly(provider.full_name)}</p>}
      <p role="status" className="cal-notice" data-testid="calendars-notice">
        {notice}
      </p>
      {list.isPending ? (
        <p>{words.loading}</p>
      ) : list.isError ? (
        <p role="alert">{messageOf(list.error)}</p>
      ) : calendars.length === 0 ? (
        <p>{words.noCalendars}</p>
      ) : (
        <ul className="calendar-list">
          {calendars.map((c) => {
            const label = labelOf(c);
            const confirmId = `${id}-confirm-${c.id}`;
            return (
              <li key={c.id} className="calendar" data-testid="calendar" data-calendar={c.id}>
                <h3>{label}</h3>
                <dl className="cal-facts">
                  {c.name !== null && (
                    <>
                      <dt>{words.calAddress}</dt>
                      <dd className="cal-url">{c.url}</dd>
                    </>
                  )}
                  <dt>{words.calKind}</dt>
                  <dd>{words.calendarKinds[c.kind]}</dd>
                  <dt>{words.calStatus}</dt>
                  <dd data-testid="calendar-status" data-status={c.status}>
                    <span className={`cal-status cal-${c.status}`}>
                      <span aria-hidden="true">{statusSymbols[c.status]}</span> {words.calendarStatuses[c.status]}
                    </span>
                    {c.last_error ? `: ${c.last_error}` : ""}
                    {syncing.has(c.id) ? ` (${words.calSyncing})` : ""}
                  </dd>
                  <dt>{words.calLastSync}</dt>
                  <dd>{c.last_synced_at ? `${syncedAt(c.last_synced_at, timeZone)} (${timeZone})` : words.calNever}</dd>
                  <dt>{words.calBusyCount}</dt>
                  <dd data-testid="calendar-busy-count">{c.busy_count}</dd>
                  {c.write_back && (
                    <>
                      <dt>{words.calWriteBack}</dt>
                      <dd>{words.calWritesBack}</dd>
                    </>
                  )}
                </dl>
                {mayManage &&
                  (confirming === c.id ? (
                    <div className="cal-confirm" role="group" aria-labelledby={confirmId}>
                      <p id={confirmId}>{words.calRemoveConfirm(label, provider.full_name)}</p>
                      <button
                        type="button"
                        className="danger"
                        disabled={remove.isPending}
                        onClick={() => {
                          remove.mutate(c);
                        }}
                      >
                        {words.calRemoveYes}
                      </button>{" "}
                      <button
                        type="button"
                        className="secondary"
                        ref={keep}
                        onClick={() => {
                          keepCalendar(c.id);
                        }}
                      >
                        {words.calRemoveNo}
                      </button>
                    </div>
                  ) : (
                    <div className="cal-actions">
                      <button
                        type="button"
                        aria-label={words.calSyncNowOf(label)}
                        onClick={() => {
                          sync.mutate(c);
                        }}
                      >
                        {words.calSyncNow}
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        data-remove={c.id}
                        aria-label={words.calRemoveOf(label)}
                        onClick={() => {
                          setConfirming(c.id);
                        }}
                      >
                        {words.calRemove}
                      </button>
                    </div>
                  ))}
              </li>
            );
          })}
        </ul>
      )}
      {mayManage &&
        list.isSuccess &&
        (calendars.length >= maxCalendars ? (
          <p className="hint">{words.calLimit(maxCalendars)}</p>
        ) : (
          <AddCalendarForm
            clinicId={clinicId}
            providerId={provider.user_id}
            onAdded={async (c) => {
              setNotice(words.calAdded(labelOf(c)));
              await changed();
            }}
          />
        ))}
    </dialog>
  );
}

/**
 * K1's form: kind, URL, for CalDAV user name and password (both or neither) and write-back, and an
 * optional name. A refused entry is named under its field (tied by aria-describedby, aria-invalid)
 * and takes the focus.
 */
function AddCalendarForm(props: { clinicId: string; providerId: string; onAdded: (c: Calendar) => Promise<void> }) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const [kind, setKind] = useState<CalendarKind>("ics");
  const [url, setUrl] = useState("");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [writeBack, setWriteBack] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | undefined>();

  const create = useMutation({
    mutationFn: (input: NewCalendar) => client.calendars.create.mutate(input),
    onSuccess: async (c) => {
      setUrl("");
      setUsername("");
      setPassword("");
      setName("");
      setWriteBack(false);
      setErrors({});
      setFormError(undefined);
      await props.onAdded(c);
    },
    onError: (error) => {
      const problem = problemOf(error);
      const named = problem?.code === "VALIDATION_FAILED" ? problem.errors.filter((e) => isField(e.path)) : [];
      if (named.length > 0) {
        const next: Partial<Record<Field, string>> = {};
        for (const e of named) if (isField(e.path)) next[e.path] = `${fieldLabels[e.path]} ${e.message}.`;
        setErrors(next);
        setFormError(words.calCheckEntries);
      } else {
        setErrors({});
        setFormError(
          problem?.errors.some((e) => e.path === "calendars") ? words.calLimit(maxCalendars) : messageOf(error),
        );
      }
    },
  });
  // A refused entry takes the focus (its message is read with it).
  useEffect(() => {
    form.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
  }, [errors]);

  const inputId = (field: Field) => `${id}-${field}`;
  const errorId = (field: Field) => `${id}-${field}-error`;
  /** aria-describedby of a field: its hint (when it has one) and its error (when there is one). */
  const describedBy = (field: Field, hint?: string) =>
    [hint, errors[field] ? errorId(field) : undefined].filter(Boolean).join(" ") || undefined;
  const invalid = (field: Field) => (errors[field] ? true : undefined);
  const errorOf = (field: Field) =>
    errors[field] && (
      <span id={errorId(field)} className="field-error">
        {errors[field]}
      </span>
    );
  const caldav = kind === "caldav";

  return (
    <form
      ref={form}
      className="add-calendar"
      aria-labelledby={`${id}-heading`}
      onSubmit={(e) => {
        e.preventDefault();
        const credentials = caldav && (username !== "" || password !== "") ? { username, password } : {};
        create.mutate({
          clinic_id: props.clinicId,
          user_id: props.providerId,
          kind,
          url: url.trim(),
          ...credentials,
          ...(name.trim() ? { name: name.trim() } : {}),
          ...(caldav ? { write_back: writeBack } : {}),
        });
      }}
    >
      <h3 id={`${id}-heading`}>{words.calAdd}</h3>
      <div className="field">
        <label htmlFor={`${id}-kind`}>{words.calKindLabel}</label>
        <select
          id={`${id}-kind`}
          value={kind}
          onChange={(e) => {
            setKind(e.target.value === "caldav" ? "caldav" : "ics");
            setErrors({});
          }}
        >
          <option value="ics">{words.calendarKinds.ics}</option>
          <option value="caldav">{words.calendarKinds.caldav}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={inputId("url")}>{words.calUrlLabel}</label>
        <input
          id={inputId("url")}
          type="url"
          required
          autoComplete="off"
          value={url}
          aria-invalid={invalid("url")}
          aria-describedby={describedBy("url", `${id}-url-hint`)}
          onChange={(e) => {
            setUrl(e.target.value);
          }}
        />
        <span id={`${id}-url-hint`} className="field-hint">
          {caldav ? words.calUrlHintCaldav : words.calUrlHintIcs}
        </span>
        {errorOf("url")}
      </div>
      {caldav && (
        <fieldset className="credentials" aria-describedby={`${id}-credentials-hint`}>
          <legend>{words.calCredentials}</legend>
          <p id={`${id}-credentials-hint`} className="field-hint">
            {words.calCredentialsHint}
          </p>
          <div className="field">
            <label htmlFor={inputId("username")}>{words.calUsernameLabel}</label>
            <input
              id={inputId("username")}
              autoComplete="off"
              value={username}
              aria-invalid={invalid("username")}
              aria-describedby={describedBy("username")}
              onChange={(e) => {
                setUsername(e.target.value);
              }}
            />
            {errorOf("username")}
          </div>
          <div className="field">
            <label htmlFor={inputId("password")}>{words.calPasswordLabel}</label>
            <input
              id={inputId("password")}
              type="password"
              autoComplete="new-password"
              value={password}
              aria-invalid={invalid("password")}
              aria-describedby={describedBy("password")}
              onChange={(e) => {
                setPassword(e.target.value);
              }}
            />
            {errorOf("password")}
          </div>
        </fieldset>
      )}
      <div className="field">
        <label htmlFor={inputId("name")}>{words.calNameLabel}</label>
        <input
          id={inputId("name")}
          maxLength={200}
          value={name}
          aria-invalid={invalid("name")}
          aria-describedby={describedBy("name")}
          onChange={(e) => {
            setName(e.target.value);
          }}
        />
        {errorOf("name")}
      </div>
      {caldav && (
        <div className="field">
          <span className="choice">
            <input
              id={inputId("write_back")}
              type="checkbox"
              checked={writeBack}
              aria-invalid={invalid("write_back")}
              aria-describedby={describedBy("write_back")}
              onChange={(e) => {
                setWriteBack(e.target.checked);
              }}
            />
            <label htmlFor={inputId("write_back")}>{words.calWriteBackLabel}</label>
          </span>
          {errorOf("write_back")}
        </div>
      )}
      {formError && (
        <p role="alert" className="problem" data-testid="calendar-form-error">
          {formError}
        </p>
      )}
      <button type="submit" disabled={create.isPending}>
        {words.calAddButton}
      </button>
    </form>
  );
}
