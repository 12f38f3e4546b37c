import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { client } from "../api.ts";
import { useMe } from "./access.ts";
import type { Clinic, SetupAreaProps } from "./areas.ts";
import { type HoursOwner } from "./hours.ts";
import { hoursApi } from "./hoursApi.ts";
import { HoursExceptions } from "./HoursExceptions.tsx";
import { useSearchParam } from "./location.ts";
import { problemText } from "./problem.tsx";
import { WeekEditor } from "./WeekEditor.tsx";

/**
 * Work hours `/desk/{clinic_id}/setup/hours[?of={user_id}]` (CONTRACT §23): the clinic's week or a
 * provider's, several periods a day, with the dates of other hours and the closures beside it.
 * CLINIC_ADMIN changes all of them; a provider their own (§3: the API's `may_manage` of their
 * calendars answers it); everyone else who may see the setup reads them. A provider with a custom
 * role (who may read no one else's) is shown their own week only.
 */
export function HoursPage(props: SetupAreaProps) {
  return props.access === "provider" ? <OwnHours {...props} /> : <AnyonesHours {...props} />;
}

/** A custom-role provider's own week (GET /v1/me names them): nothing of the clinic's or anyone else's. */
function OwnHours({ clinicId, clinic }: SetupAreaProps) {
  const me = useMe();
  const owner: HoursOwner | undefined = useMemo(
    () => (me.data ? { kind: "provider", userId: me.data.id, name: me.data.email } : undefined),
    [me.data],
  );
  if (me.isError)
    return (
      <p role="alert" className="problem">
        {problemText(me.error)}
      </p>
    );
  if (!owner) return <p role="status">Loading…</p>;
  return (
    <HoursOf
      clinicId={clinicId}
      clinic={clinic}
      owner={owner}
      editable
      heading="Your week"
      hint="You are offered where your hours and the clinic's overlap."
    />
  );
}

/** STAFF and CLINIC_ADMIN: the clinic's week or any provider's, chosen by `?of=`. */
function AnyonesHours({ clinicId, clinic, access }: SetupAreaProps) {
  const id = useId();
  const admin = access === "admin";
  const [of, setOf] = useSearchParam("of");

  const providers = useQuery({
    queryKey: ["setup-providers", clinicId, "list"],
    queryFn: () => client.providers.list.query({ clinic_id: clinicId, limit: 500 }),
  });
  const list = providers.data?.providers ?? [];
  const chosen = of === null || of === "clinic" ? undefined : list.find((p) => p.user_id === of);
  const owner: HoursOwner = useMemo(
    () => (chosen ? { kind: "provider", userId: chosen.user_id, name: chosen.full_name } : { kind: "clinic" }),
    [chosen],
  );
  const ownerKey = owner.kind === "clinic" ? "clinic" : owner.userId;
  // Whether the caller may change this provider's hours: CLINIC_ADMIN, or the provider themself.
  const mayManage = useQuery({
    queryKey: ["setup-hours", clinicId, ownerKey, "may-manage"],
    queryFn: async () =>
      owner.kind === "provider"
        ? (await client.calendars.list.query({ clinic_id: clinicId, user_id: owner.userId })).may_manage
        : false,
    enabled: owner.kind === "provider" && !admin,
  });
  const editable = admin || (owner.kind === "provider" && mayManage.data === true);
  const waiting =
    (of !== null && of !== "clinic" && !providers.data) || (!admin && owner.kind === "provider" && mayManage.isPending);

  return (
    <>
      <div className="setup-toolbar">
        <div className="field">
          <label htmlFor={`${id}-of`}>Whose hours</label>
          <select
            id={`${id}-of`}
            value={chosen ? chosen.user_id : "clinic"}
            onChange={(e) => {
              setOf(e.target.value === "clinic" ? null : e.target.value);
            }}
          >
            <option value="clinic">The clinic ({clinic.name})</option>
            {list.map((p) => (
              <option key={p.user_id} value={p.user_id}>
                {p.full_name}
                {p.status === "approved" ? "" : p.status === "pending" ? " (pending approval)" : " (suspended)"}
              </option>
            ))}
          </select>
        </div>
      </div>
      {providers.isError && (
        <p role="alert" className="problem">
          {problemText(providers.error)}
        </p>
      )}
      {waiting ? (
        <p role="status">Loading…</p>
      ) : (
        <HoursOf
          key={ownerKey}
          clinicId={clinicId}
          clinic={clinic}
          owner={owner}
          editable={editable}
          heading={owner.kind === "clinic" ? `The clinic's week` : `${owner.name}'s week`}
          hint={
            owner.kind === "clinic"
              ? "Patients are offered times only when the clinic is open: a day without periods is closed for every provider."
              : `${owner.name} is offered where their hours and the clinic's overlap.`
          }
          readOnlyNote={
            editable
              ? undefined
              : owner.kind === "clinic"
                ? "Only a clinic administrator can change them."
                : "Only a clinic administrator or the provider themself can change them."
          }
        />
      )}
    </>
  );
}

/** One owner's week with its dates of other hours and closures, changed where `editable`. */
function HoursOf(props: {
  clinicId: string;
  clinic: Clinic;
  owner: HoursOwner;
  editable: boolean;
  heading: string;
  hint: string;
  /** Said after the zone when the hours are read only: who may change them. */
  readOnlyNote?: string | undefined;
}) {
  const { clinicId, clinic, owner, editable } = props;
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState("");
  const ownerKey = owner.kind === "clinic" ? "clinic" : owner.userId;
  const api = useMemo(() => hoursApi(clinicId, owner), [clinicId, owner]);
  const hoursKey = ["setup-hours", clinicId, ownerKey] as const;
  const hours = useQuery({ queryKey: [...hoursKey, "week"], queryFn: () => api.list() });
  const reload = async () => {
    await queryClient.invalidateQueries({ queryKey: [...hoursKey, "week"] });
    return queryClient.getQueryData<Awaited<ReturnType<typeof api.list>>>([...hoursKey, "week"]) ?? [];
  };
  return (
    <>
      <h2 className="focus-heading" data-testid="hours-heading">
        {props.heading}
      </h2>
      <p className="hint">
        {props.hint} Times are the clinic&apos;s ({clinic.timezone}).
        {props.readOnlyNote ? ` ${props.readOnlyNote}` : ""}
      </p>
      <p role="status" className="setup-notice" data-testid="hours-notice">
        {notice}
      </p>
      {hours.isError ? (
        <p role="alert" className="problem">
          {problemText(hours.error)}
        </p>
      ) : !hours.data ? (
        <p role="status">Loading the hours…</p>
      ) : (
        <>
          <WeekEditor hours={hours.data} editable={editable} api={api} reload={reload} onNotice={setNotice} />
          <HoursExceptions
            api={api}
            queryKey={hoursKey}
            timeZone={clinic.timezone}
            editable={editable}
            onNotice={setNotice}
          />
        </>
      )}
    </>
  );
}
