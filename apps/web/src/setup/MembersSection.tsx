import type { RouterOutputs } from "@clinic/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { client } from "../api.ts";
import type { SetupAreaProps } from "./areas.ts";
import { AddMemberForm } from "./ProviderForms.tsx";
import { problemText, useFieldProblems } from "./problem.tsx";
import { RoleField } from "./RoleField.tsx";

type Member = RouterOutputs["members"]["list"]["members"][number];

const statusWords: Record<string, string> = {
  approved: "Approved",
  pending: "Pending approval",
  suspended: "Suspended",
};

/**
 * The clinic's members (M2, STAFF reads) and, for CLINIC_ADMIN, adding one by e-mail with a role
 * (M1) and changing a member's role (M3). A provider's lifecycle is on the providers page.
 */
export function MembersSection(props: {
  clinicId: string;
  clinic: SetupAreaProps["clinic"];
  admin: boolean;
  onNotice: (t: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const members = useQuery({
    queryKey: ["setup-members", props.clinicId],
    queryFn: () => client.members.list.query({ clinic_id: props.clinicId, limit: 500 }),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["setup-members", props.clinicId] }),
      queryClient.invalidateQueries({ queryKey: ["setup-providers", props.clinicId] }),
    ]);
  const [editing, setEditing] = useState<string | undefined>();
  // After a role form closes, the focus returns to its row's button (once it is rendered again).
  const [focusRow, setFocusRow] = useState<string | undefined>();
  useEffect(() => {
    if (focusRow === undefined || editing !== undefined) return;
    document.getElementById(`role-${focusRow}`)?.focus();
    setFocusRow(undefined);
  }, [focusRow, editing, members.data]);
  const list = members.data?.members ?? [];
  const captionId = `${id}-caption`;
  return (
    <section className="setup-section" aria-labelledby={`${id}-heading`} data-testid="members">
      <h2 id={`${id}-heading`}>Members and roles</h2>
      <p className="hint">
        Clinic administrators change everything here; staff work the desk and read the setup; another role books and
        reads services only. {props.admin ? "" : "Only a clinic administrator can change them."}
      </p>
      {props.admin && (
        <AddMemberForm
          clinicId={props.clinicId}
          asProvider={false}
          onAdded={async (text) => {
            props.onNotice(text);
            await refresh();
          }}
        />
      )}
      {members.isError ? (
        <p role="alert" className="problem">
          {problemText(members.error)}
        </p>
      ) : !members.data ? (
        <p role="status">Loading the members…</p>
      ) : (
        <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={captionId}>
          <table className="setup-table" data-testid="members-table">
            <caption id={captionId}>Members of {props.clinic.name}, by name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Provider</th>
                {props.admin && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.user_id} data-testid="member-row">
                  <th scope="row">{m.full_name}</th>
                  <td>{m.email}</td>
                  <td data-testid="member-role">{m.clinic_role}</td>
                  <td>{m.is_provider ? (statusWords[m.status] ?? m.status) : "No"}</td>
                  {props.admin && (
                    <td>
                      {editing === m.user_id ? (
                        <RoleForm
                          clinicId={props.clinicId}
                          member={m}
                          onDone={async (text) => {
                            // Read again first, so the status line and the row say the same when it is announced.
                            if (text) {
                              await refresh();
                              props.onNotice(text);
                            }
                            setEditing(undefined);
                            setFocusRow(m.user_id);
                          }}
                        />
                      ) : (
                        <button
                          type="button"
                          className="secondary"
                          id={`role-${m.user_id}`}
                          aria-label={`Change role of ${m.full_name}`}
                          onClick={() => {
                            setEditing(m.user_id);
                          }}
                        >
                          Change role
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** M3 with the role alone; a refusal (e.g. an empty custom role) at the role. */
function RoleForm(props: { clinicId: string; member: Member; onDone: (text: string | undefined) => Promise<void> }) {
  const [role, setRole] = useState(props.member.clinic_role);
  const problems = useFieldProblems({ fields: ["clinic_role"], labelOf: () => "Role" });
  const save = useMutation({
    mutationFn: () =>
      client.members.update.mutate({ clinic_id: props.clinicId, user_id: props.member.user_id, clinic_role: role }),
    onSuccess: async (m) => {
      await props.onDone(`${m.full_name} is now ${m.clinic_role} in this clinic.`);
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  return (
    <form
      ref={problems.formRef}
      noValidate
      aria-label={`Role of ${props.member.full_name}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (role === props.member.clinic_role) void props.onDone(undefined);
        else save.mutate();
      }}
    >
      <RoleField value={role} problems={problems} onChange={setRole} />
      {problems.alert}
      <div className="row-actions">
        <button type="submit" disabled={save.isPending}>
          Save the role
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            void props.onDone(undefined);
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
