import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useId, useState } from "react";
import { client } from "../api.ts";
import type { SetupAreaProps } from "./areas.ts";
import { minutesText } from "./format.ts";
import { hrefWith, useSearchParam } from "./location.ts";
import { problemText } from "./problem.tsx";
import { ServiceEditor } from "./ServiceEditor.tsx";

type Service = RouterOutputs["services"]["list"]["services"][number];

/**
 * The services of a clinic `/desk/{clinic_id}/setup/services` (CONTRACT §23, docs/web.md "Clinic
 * setup"): the list (S3, inactive ones too) with a forgiving search (S7), and one service's page
 * at `?service={id}` (or `?service=new`): its every field for CLINIC_ADMIN, read-only for STAFF.
 */
export function ServicesPage({ clinicId, clinic, access }: SetupAreaProps) {
  const [serviceId, setServiceId] = useSearchParam("service");
  const [notice, setNotice] = useState("");
  const open = (id: string | null) => {
    setNotice("");
    setServiceId(id);
  };
  if (serviceId !== null) {
    return (
      <ServiceEditor
        key={serviceId}
        clinicId={clinicId}
        clinic={clinic}
        access={access}
        serviceId={serviceId === "new" ? undefined : serviceId}
        notice={notice}
        onNotice={setNotice}
        onOpen={open}
      />
    );
  }
  return <ServiceList clinicId={clinicId} access={access} notice={notice} onOpen={open} />;
}

function ServiceList(props: {
  clinicId: string;
  access: SetupAreaProps["access"];
  notice: string;
  onOpen: (id: string | null) => void;
}) {
  const { clinicId } = props;
  const id = useId();
  const [search, setSearch] = useState("");
  const q = search.trim();
  const all = useQuery({
    queryKey: ["setup-services", clinicId, "list"],
    queryFn: () => client.services.list.query({ clinic_id: clinicId, include_inactive: true, limit: 500 }),
  });
  const found = useQuery({
    queryKey: ["setup-services", clinicId, "search", q],
    queryFn: () => client.services.search.query({ clinic_id: clinicId, q, limit: 20 }),
    enabled: q !== "",
    placeholderData: (previous) => previous,
  });
  const shown: Service[] | undefined = q === "" ? all.data?.services : found.data?.matches.map((m) => m.service);
  const failed = q === "" ? all.error : found.error;
  const captionId = `${id}-caption`;

  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>All services</h2>
      <p className="hint">
        A service is one bookable offering: its duration, price and provider (one provider, or any provider of the
        clinic), the rules for booking it, and what it asks the patient.
      </p>
      <div className="setup-toolbar">
        <div className="field">
          <label htmlFor={`${id}-search`}>Find a service</label>
          <input
            id={`${id}-search`}
            type="search"
            value={search}
            aria-describedby={`${id}-search-hint`}
            onChange={(e) => {
              setSearch(e.target.value);
            }}
          />
          <span id={`${id}-search-hint`} className="field-hint">
            Forgiving: typos, word order, case and accents do not matter. Finds bookable services, best match first.
          </span>
        </div>
        {props.access === "admin" && (
          <a
            className="button-link"
            href={hrefWith("service", "new")}
            onClick={(e) => {
              e.preventDefault();
              props.onOpen("new");
            }}
          >
            New service
          </a>
        )}
      </div>
      <p role="status" className="setup-notice" data-testid="services-notice">
        {props.notice}
      </p>
      {failed ? (
        <p role="alert" className="problem">
          {problemText(failed)}
        </p>
      ) : !shown ? (
        <p role="status">Loading the services…</p>
      ) : (
        <>
          <p className="hint" role="status" data-testid="services-count">
            {q === ""
              ? `${String(shown.length)} service${shown.length === 1 ? "" : "s"}.`
              : `${String(shown.length)} match${shown.length === 1 ? "" : "es"} for “${q}”.`}
          </p>
          {shown.length > 0 && (
            <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={captionId}>
              <table className="setup-table" data-testid="services-table">
                <caption id={captionId}>{q === "" ? "Services, by name" : "Services found, best match first"}</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Price</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Bookable</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((s) => (
                    <tr key={s.id} data-service={s.id}>
                      <th scope="row">
                        <a
                          href={hrefWith("service", s.id)}
                          onClick={(e) => {
                            e.preventDefault();
                            props.onOpen(s.id);
                          }}
                        >
                          {s.name}
                        </a>
                      </th>
                      <td>{minutesText(s.duration_min)}</td>
                      <td>{s.price ?? "—"}</td>
                      <td>{s.provider_name ?? "Any provider"}</td>
                      <td>{s.is_active ? "Yes" : "No (inactive)"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
