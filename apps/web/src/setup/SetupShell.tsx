import { useQuery } from "@tanstack/react-query";
import { type ComponentType, type LazyExoticComponent, Suspense, lazy, useEffect } from "react";
import { client, errorCodeOf, messageOf } from "../api.ts";
import { SignInLink } from "../SignIn.tsx";
import { useSetupAccess } from "./access.ts";
import {
  type SetupArea,
  type SetupAreaProps,
  areasFor,
  firstAreaFor,
  isSetupArea,
  setupAreas,
  setupPath,
} from "./areas.ts";
import { SetupNav } from "./SetupNav.tsx";
import "./setup.css";

/**
 * Each area's page, loaded when it is opened (the shell itself is loaded only for /desk/{id}/setup,
 * so the booking page never carries any of it). An area without an entry here says "not yet
 * available"; a page plugs in with one line.
 */
const pages: Partial<Record<SetupArea, LazyExoticComponent<ComponentType<SetupAreaProps>>>> = {
  services: lazy(() => import("./ServicesPage.tsx").then((m) => ({ default: m.ServicesPage }))),
  providers: lazy(() => import("./ProvidersPage.tsx").then((m) => ({ default: m.ProvidersPage }))),
  hours: lazy(() => import("./HoursPage.tsx").then((m) => ({ default: m.HoursPage }))),
  clinic: lazy(() => import("./ClinicPage.tsx").then((m) => ({ default: m.ClinicPage }))),
};

const loading = <p role="status">Loading…</p>;

/**
 * The clinic's setup `/desk/{clinic_id}/setup/{area}` (docs/web.md "Clinic setup"): the heading,
 * the areas' nav, and the area's page for who may see it. STAFF reads, CLINIC_ADMIN changes; a
 * provider with a custom role sees only their own work hours (§3); any other member with a custom
 * role is told the setup is for the clinic's staff and administrators.
 */
export function SetupShell({ clinicId, area }: { clinicId: string; area: string }) {
  const clinic = useQuery({
    queryKey: ["desk-clinic", clinicId],
    queryFn: () => client.clinics.get.query({ clinic_id: clinicId }),
  });
  const access = useSetupAccess(clinicId, clinic.isSuccess);
  // `/desk/{id}/setup` opens the first area the caller may use, under its own address.
  const first = access.data ? firstAreaFor(access.data) : "services";
  const shown = area === "" ? first : area;
  useEffect(() => {
    if (area === "" && access.data) window.history.replaceState(null, "", setupPath(clinicId, first));
  }, [area, clinicId, access.data, first]);
  const known = isSetupArea(shown) ? shown : undefined;
  const label = setupAreas.find((a) => a.area === known)?.label ?? "clinic setup";
  const title = clinic.data ? `${clinic.data.name}: ${label}` : "Clinic setup";
  useEffect(() => {
    document.title = `${title} · Clinic scheduling`;
  }, [title]);

  const failed = clinic.error ?? access.error;
  if (failed) {
    return (
      <main className="page setup">
        <h1>Clinic setup</h1>
        {errorCodeOf(failed) === "UNAUTHENTICATED" ? (
          <p role="alert" className="problem">
            Please sign in first: <SignInLink />
          </p>
        ) : (
          <p role="alert" className="problem">
            {messageOf(failed)}
          </p>
        )}
      </main>
    );
  }
  if (!clinic.data || !access.data) return <main className="page setup">{loading}</main>;
  const Page = known ? pages[known] : undefined;
  const granted = access.data;
  const open = areasFor(granted);
  return (
    <main className="page setup">
      <SetupNav clinicId={clinicId} current={known} areas={open} />
      <h1>{title}</h1>
      {granted === "none" ? (
        <p role="alert" className="problem" data-testid="setup-refused">
          The clinic&apos;s setup is for its staff and clinic administrators. Your account at this clinic may not see
          it; ask a clinic administrator if something needs to change.
        </p>
      ) : known && !open.some((a) => a.area === known) ? (
        <p role="alert" className="problem" data-testid="setup-refused">
          {label} is for the clinic&apos;s staff and clinic administrators. As a provider you keep your own{" "}
          <a href={setupPath(clinicId, "hours")}>work hours and closures</a>.
        </p>
      ) : Page ? (
        <Suspense fallback={loading}>
          <Page clinicId={clinicId} clinic={clinic.data} access={granted} />
        </Suspense>
      ) : (
        <p data-testid="setup-unavailable">
          {known ? `${label}: ` : `“${shown}”: `}not yet available. Choose another part of the setup above.
        </p>
      )}
    </main>
  );
}
