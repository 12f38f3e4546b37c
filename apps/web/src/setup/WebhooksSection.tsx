import type { RouterInputs, RouterOutputs } from "@clinic/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { client } from "../api.ts";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { instantText } from "./format.ts";
import { problemText, useFieldProblems } from "./problem.tsx";

type Webhook = RouterOutputs["webhooks"]["list"]["webhooks"][number];

const statusWords: Record<string, string> = { pending: "Pending", succeeded: "Delivered", failed: "Failed" };
const hookLabels: Record<string, string> = {
  url: "Receiver URL",
  event_types: "Events",
  description: "Description",
  include_answers: "Include the patients' answers",
};

/**
 * The clinic's webhooks (§10, H1–H7; CLINIC_ADMIN's): the list with each one's deliveries and
 * their status, a delivery sent again (H6), a test delivery (H7), pause and resume (H3), removal;
 * a new one shows its signing secret once.
 */
export function WebhooksSection(props: { clinicId: string; timeZone: string; onNotice: (t: string) => void }) {
  const queryClient = useQueryClient();
  const key = ["setup-webhooks", props.clinicId] as const;
  const hooks = useQuery({
    queryKey: key,
    queryFn: () => client.webhooks.list.query({ clinic_id: props.clinicId }),
  });
  const [secret, setSecret] = useState<{ url: string; secret: string } | undefined>();
  const [removing, setRemoving] = useState<Webhook | undefined>();
  const [rowProblem, setRowProblem] = useState<{ id: string; text: string } | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const remove = useMutation({
    mutationFn: (hook: Webhook) => client.webhooks.remove.mutate({ clinic_id: props.clinicId, id: hook.id }),
    onSuccess: async (_none, hook) => {
      setRemoving(undefined);
      props.onNotice(`Removed the webhook to ${hook.url}: it gets no more deliveries.`);
      await refresh();
    },
    onError: async (error, hook) => {
      setRemoving(undefined);
      setRowProblem({ id: hook.id, text: problemText(error) });
      await refresh();
    },
  });
  const list = hooks.data?.webhooks ?? [];
  return (
    <section className="setup-section" aria-labelledby="webhooks-heading" data-testid="webhooks">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="hint">
        Other systems told of the clinic&apos;s events (bookings, cancellations, …) as they happen, each request signed
        with the webhook&apos;s secret.
      </p>
      {secret && (
        <SecretOnce
          url={secret.url}
          secret={secret.secret}
          onDone={() => {
            setSecret(undefined);
          }}
        />
      )}
      {hooks.isError ? (
        <p role="alert" className="problem">
          {problemText(hooks.error)}
        </p>
      ) : !hooks.data ? (
        <p role="status">Loading the webhooks…</p>
      ) : list.length === 0 ? (
        <p>No webhooks yet.</p>
      ) : (
        <ul className="webhook-list">
          {list.map((hook) => (
            <li key={hook.id} data-testid="webhook">
              <WebhookItem
                clinicId={props.clinicId}
                hook={hook}
                timeZone={props.timeZone}
                onNotice={props.onNotice}
                onRemove={() => {
                  setRowProblem(undefined);
                  setRemoving(hook);
                }}
              />
              {rowProblem?.id === hook.id && (
                <p role="alert" className="field-error">
                  {rowProblem.text}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <NewWebhookForm
        clinicId={props.clinicId}
        onCreated={async (created) => {
          setSecret({ url: created.url, secret: created.secret });
          await refresh();
        }}
      />
      {removing && (
        <ConfirmDialog
          title={`Remove the webhook to ${removing.url}?`}
          confirmLabel="Yes, remove"
          busy={remove.isPending}
          onConfirm={() => {
            remove.mutate(removing);
          }}
          onClose={() => {
            const opener = removing.id;
            setRemoving(undefined);
            document.getElementById(`remove-${opener}`)?.focus();
          }}
        >
          <p>Its pending deliveries stop; the receiver is told of nothing more.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The new webhook's secret, shown this once (the API never shows it again), with the focus on it. */
function SecretOnce(props: { url: string; secret: string; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, []);
  return (
    <div className="secret-once" role="alert" tabIndex={-1} ref={box} data-testid="webhook-secret">
      <p>
        Webhook to {props.url} created. Its signing secret is shown <strong>only now</strong>: copy it to the receiver,
        which checks each request&apos;s signature with it.
      </p>
      <p>
        <code data-testid="secret-value">{props.secret}</code>
      </p>
      <button type="button" className="secondary" onClick={props.onDone}>
        I have copied the secret
      </button>
    </div>
  );
}

function WebhookItem(props: {
  clinicId: string;
  hook: Webhook;
  timeZone: string;
  onNotice: (t: string) => void;
  onRemove: () => void;
}) {
  const { hook } = props;
  const id = useId();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const key = ["setup-webhooks", props.clinicId, hook.id, "deliveries"] as const;
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () => client.webhooks.deliveries.query({ clinic_id: props.clinicId, id: hook.id, limit: 20 }),
    enabled: open,
  });
  const [problem, setProblem] = useState<string | undefined>();
  const test = useMutation({
    mutationFn: () => client.webhooks.test.mutate({ clinic_id: props.clinicId, id: hook.id }),
    onMutate: () => {
      setProblem(undefined);
    },
    onSuccess: async () => {
      props.onNotice(`A test event (webhook.test) is on its way to ${hook.url}; its delivery is listed below.`);
      setOpen(true);
      await queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (error) => {
      setProblem(problemText(error));
    },
  });
  // H3's `active`: a paused webhook keeps its deliveries and gets no new ones until resumed.
  const pause = useMutation({
    mutationFn: (active: boolean) => client.webhooks.update.mutate({ clinic_id: props.clinicId, id: hook.id, active }),
    onMutate: () => {
      setProblem(undefined);
    },
    onSuccess: async (saved) => {
      // Read again first, so the status line and the list say the same when it is announced.
      await queryClient.invalidateQueries({ queryKey: ["setup-webhooks", props.clinicId] });
      props.onNotice(
        saved.active
          ? `Resumed the webhook to ${hook.url}: it is told of events again.`
          : `Paused the webhook to ${hook.url}: it is told of nothing until it is resumed.`,
      );
    },
    onError: (error) => {
      setProblem(problemText(error));
    },
  });
  // H6: a new attempt of a delivery now (a failed one, or one the receiver lost).
  const retry = useMutation({
    mutationFn: (deliveryId: string) =>
      client.webhooks.retry.mutate({ clinic_id: props.clinicId, id: hook.id, delivery_id: deliveryId }),
    onMutate: () => {
      setProblem(undefined);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      props.onNotice(`The delivery is on its way to ${hook.url} again.`);
    },
    onError: (error) => {
      setProblem(problemText(error));
    },
  });
  const events = hook.event_types.includes("*") ? "every event" : hook.event_types.join(", ");
  return (
    <>
      <p>
        <strong className="webhook-url">{hook.url}</strong> — {events}
        {hook.active ? "" : " (paused)"}
        {hook.include_answers ? ", with the patients' answers" : ""}
        {hook.description ? `. ${hook.description}` : ""}
      </p>
      <div className="row-actions">
        <button
          type="button"
          className="secondary"
          aria-expanded={open}
          aria-controls={`${id}-deliveries`}
          aria-label={`Deliveries to ${hook.url}`}
          onClick={() => {
            setOpen((o) => !o);
          }}
        >
          Deliveries
        </button>
        <button
          type="button"
          disabled={test.isPending}
          aria-label={`Send a test event to ${hook.url}`}
          onClick={() => {
            test.mutate();
          }}
        >
          Send a test
        </button>
        <button
          type="button"
          className="secondary"
          disabled={pause.isPending}
          aria-label={`${hook.active ? "Pause" : "Resume"} the webhook to ${hook.url}`}
          onClick={() => {
            pause.mutate(!hook.active);
          }}
        >
          {hook.active ? "Pause" : "Resume"}
        </button>
        <button
          type="button"
          className="secondary"
          id={`remove-${hook.id}`}
          aria-label={`Remove the webhook to ${hook.url}`}
          onClick={props.onRemove}
        >
          Remove
        </button>
      </div>
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      <div id={`${id}-deliveries`} hidden={!open}>
        {open &&
          (deliveries.isError ? (
            <p role="alert" className="problem">
              {problemText(deliveries.error)}
            </p>
          ) : !deliveries.data ? (
            <p role="status">Loading the deliveries…</p>
          ) : deliveries.data.deliveries.length === 0 ? (
            <p>No deliveries yet.</p>
          ) : (
            <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={`${id}-caption`}>
              <table className="setup-table" data-testid="deliveries">
                <caption id={`${id}-caption`}>Latest deliveries to {hook.url}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last answer</th>
                    <th scope="col">
                      <span className="visually-hidden">Send again</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.data.deliveries.map((d) => (
                    <tr key={d.id} data-testid="delivery">
                      <th scope="row">{instantText(d.created_at, props.timeZone)}</th>
                      <td>{d.event_type}</td>
                      <td data-status={d.status}>
                        {statusWords[d.status] ?? d.status}
                        {d.status === "pending" && d.next_attempt_at
                          ? ` (next try ${instantText(d.next_attempt_at, props.timeZone)})`
                          : ""}
                      </td>
                      <td>{d.attempts}</td>
                      <td>
                        {d.last_status_code !== null ? `HTTP ${String(d.last_status_code)}` : ""}
                        {d.last_error ? ` ${d.last_error}` : ""}
                        {d.last_status_code === null && !d.last_error ? "—" : ""}
                      </td>
                      <td>
                        {d.status !== "pending" && (
                          <button
                            type="button"
                            className="secondary"
                            disabled={retry.isPending}
                            aria-label={`Send again the ${d.event_type} of ${instantText(d.created_at, props.timeZone)}`}
                            onClick={() => {
                              retry.mutate(d.id);
                            }}
                          >
                            Send again
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        {open && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              void deliveries.refetch();
            }}
          >
            Read the deliveries again
          </button>
        )}
      </div>
    </>
  );
}

function NewWebhookForm(props: {
  clinicId: string;
  onCreated: (created: RouterOutputs["webhooks"]["create"]) => Promise<void>;
}) {
  const id = useId();
  const problems = useFieldProblems({ fields: Object.keys(hookLabels), labelOf: (f) => hookLabels[f] });
  const [url, setUrl] = useState("");
  const [every, setEvery] = useState(true);
  const [types, setTypes] = useState("");
  const [description, setDescription] = useState("");
  const [answers, setAnswers] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      client.webhooks.create.mutate({
        clinic_id: props.clinicId,
        url: url.trim(),
        // The API names the event types; a name it does not know is refused at its place in the list.
        event_types: (every
          ? ["*"]
          : types
              .split(",")
              .map((t) => t.trim())
              .filter((t) => t !== "")) as RouterInputs["webhooks"]["create"]["event_types"],
        ...(description.trim() ? { description: description.trim() } : {}),
        include_answers: answers,
      }),
    onMutate: () => {
      problems.clear();
    },
    onSuccess: async (created) => {
      setUrl("");
      setTypes("");
      setDescription("");
      await props.onCreated(created);
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const typesHint = `${id}-types-hint`;
  return (
    <form
      ref={problems.formRef}
      className="setup-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <fieldset>
        <legend>New webhook</legend>
        <div className="field">
          <label htmlFor={problems.idOf("url")}>{hookLabels.url}</label>
          <input
            {...problems.props("url")}
            type="url"
            autoComplete="off"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              problems.clear("url");
            }}
          />
          {problems.error("url")}
        </div>
        <fieldset {...problems.props("event_types", typesHint)}>
          <legend>{hookLabels.event_types}</legend>
          <span className="choice">
            <input
              id={`${id}-every`}
              type="checkbox"
              checked={every}
              onChange={(e) => {
                setEvery(e.target.checked);
                problems.clear("event_types");
              }}
            />
            <label htmlFor={`${id}-every`}>Every event, present and future</label>
          </span>
          {!every && (
            <div className="field">
              <label htmlFor={`${id}-types`}>Event types</label>
              <input
                id={`${id}-types`}
                type="text"
                autoComplete="off"
                value={types}
                onChange={(e) => {
                  setTypes(e.target.value);
                  problems.clear("event_types");
                }}
              />
            </div>
          )}
          <span id={typesHint} className="field-hint">
            Names separated by commas, e.g. appointment.booked, appointment.canceled
          </span>
          {problems.error("event_types")}
        </fieldset>
        <div className="field">
          <label htmlFor={problems.idOf("description")}>Description (optional)</label>
          <input
            {...problems.props("description")}
            type="text"
            value={description}
            onChange={(e) => {
              setDescription(e.target.value);
              problems.clear("description");
            }}
          />
          {problems.error("description")}
        </div>
        <div className="field">
          <span className="choice">
            <input
              {...problems.props("include_answers")}
              type="checkbox"
              checked={answers}
              onChange={(e) => {
                setAnswers(e.target.checked);
              }}
            />
            <label htmlFor={problems.idOf("include_answers")}>
              {hookLabels.include_answers} (personal data: only for a receiver allowed to hold it)
            </label>
          </span>
        </div>
        {problems.alert}
        <button type="submit" disabled={create.isPending}>
          Create the webhook
        </button>
      </fieldset>
    </form>
  );
}
