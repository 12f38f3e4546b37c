import { useState } from "react";
import type { useFieldProblems } from "./problem.tsx";

/** The roles of §3 a clinic names; any other text is a custom role with the "member" rights only. */
const namedRoles = ["STAFF", "CLINIC_ADMIN"] as const;
const roleWords: Record<(typeof namedRoles)[number], string> = {
  STAFF: "Staff: the desk, appointments and reading the setup",
  CLINIC_ADMIN: "Clinic administrator: everything in this clinic",
};
const other = "__other__";

/**
 * A member's role in the clinic (`clinic_role`, M1/M3): STAFF, CLINIC_ADMIN, or a custom role
 * typed in (which has only the "member" rights of §3: it books and reads services). Its refusal,
 * at `clinic_role`, lands under the control in use.
 */
export function RoleField(props: {
  value: string;
  problems: ReturnType<typeof useFieldProblems>;
  onChange: (role: string) => void;
}) {
  const { problems } = props;
  const named = namedRoles.some((r) => r === props.value);
  const [custom, setCustom] = useState(!named);
  const selectId = `${problems.idOf("clinic_role")}-kind`;
  return (
    <div className="field">
      <label htmlFor={custom ? selectId : problems.idOf("clinic_role")}>Role in this clinic</label>
      <select
        {...(custom ? { id: selectId } : problems.props("clinic_role"))}
        value={custom ? other : props.value}
        onChange={(e) => {
          const value = e.target.value;
          setCustom(value === other);
          props.onChange(value === other ? "" : value);
          problems.clear("clinic_role");
        }}
      >
        {namedRoles.map((r) => (
          <option key={r} value={r}>
            {roleWords[r]}
          </option>
        ))}
        <option value={other}>Another role (books, reads services; no desk)</option>
      </select>
      {custom && (
        <>
          <label htmlFor={problems.idOf("clinic_role")}>Name of the role</label>
          <input
            {...problems.props("clinic_role")}
            value={props.value}
            maxLength={64}
            autoComplete="off"
            onChange={(e) => {
              props.onChange(e.target.value);
              problems.clear("clinic_role");
            }}
          />
        </>
      )}
      {problems.error("clinic_role")}
    </div>
  );
}
