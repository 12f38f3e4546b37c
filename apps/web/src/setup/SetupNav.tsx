import { type SetupArea, type setupAreas, setupPath } from "./areas.ts";

/**
 * The setup's areas as links (one page each), the current one marked for screen readers
 * (`aria-current="page"`) and by its look; the front desk first, where a person comes from. Only
 * the areas the caller may open are offered.
 */
export function SetupNav(props: {
  clinicId: string;
  current: SetupArea | undefined;
  /** The areas the caller may open (a provider with a custom role: only their work hours). */
  areas: readonly (typeof setupAreas)[number][];
}) {
  return (
    <nav aria-label="Clinic setup" className="setup-nav">
      <ul>
        <li>
          <a href={`/desk/${encodeURIComponent(props.clinicId)}`}>Front desk</a>
        </li>
        {props.areas.map((a) => (
          <li key={a.area}>
            <a href={setupPath(props.clinicId, a.area)} aria-current={a.area === props.current ? "page" : undefined}>
              {a.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
