// A clinic's authorization left to the request's first read (docs/performance.md#authorized-by-the-read):
// a booking (B1) asks the clinic and the caller's membership in its schedule read instead of in a
// statement of their own before it, one statement and round trip less a booking. The rule is the
// same one (decideClinicAccess); what the read needs before it runs is the clinic's zone (the
// booking's local date), which this process remembers and the read confirms.
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { type Db, memberStatuses } from "@clinic/db";
import { type Caller, authorizeClinic, decideClinicAccess } from "./clinicAccess.ts";
import { type MinRole, rolesAtLeast } from "./roles.ts";

/**
 * Each clinic's IANA zone as this process last read it; a read that finds another corrects it.
 * Enough for every clinic of a large deployment; past it the least recently used is read again.
 */
const zones = new LRUCache<string, string>({ max: 100_000 });

/** What the read found when it refused to go on (clinic_schedule_context's `access`). */
const foundSchema = z.object({
  clinic: z.boolean(),
  timezone: z.string().optional(),
  role: z.string().nullable().optional(),
  is_provider: z.boolean().nullable().optional(),
  status: z.enum(memberStatuses).nullable().optional(),
});

/** The read's answer when the clinic's zone was not the one assumed: read again with the new one. */
export class ClinicZoneChanged extends Error {
  constructor(readonly zone: string) {
    super("the clinic's time zone changed");
  }
}

/**
 * One request's authorization in a clinic, decided by its first read or, when that cannot (no zone
 * known yet; the request failed before its read), by authorizeClinic's own statement.
 */
export class ClinicGate {
  #decided = false;
  #refused = false;

  constructor(
    private readonly db: Db,
    private readonly caller: Caller,
    readonly clinicId: string,
    private readonly minRole: MinRole,
  ) {}

  /** True once the caller was let in or refused. */
  get decided(): boolean {
    return this.#decided;
  }

  /** True when the read refused the caller (its error is the answer; nothing of the clinic's was used). */
  get refused(): boolean {
    return this.#refused;
  }

  /**
   * The clinic's zone for the read: as this process knows it, else from authorizeClinic, which
   * then decides the access too (its 403 or 404 is thrown here).
   */
  async zone(): Promise<string> {
    const known = zones.get(this.clinicId);
    if (known !== undefined) return known;
    const { clinic } = await authorizeClinic(this.db, this.caller, this.clinicId, this.minRole);
    this.#decided = true;
    zones.set(this.clinicId, clinic.timezone);
    return clinic.timezone;
  }

  /**
   * What a read in `zone` hands the database to decide (availability's ReadAccess), or undefined
   * once decided.
   */
  forRead(zone: string): { check: Record<string, unknown>; settle(found: unknown): never; passed(): void } | undefined {
    if (this.#decided) return undefined;
    return {
      check: { caller: this.caller.id, admin: this.caller.isAdmin, roles: rolesAtLeast(this.minRole), zone },
      settle: (found) => this.settle(found, zone),
      passed: () => {
        this.passed();
      },
    };
  }

  /** The read went on: it let the caller in, in the zone assumed. */
  passed(): void {
    this.#decided = true;
  }

  /**
   * The read stopped at the door: throws the refusal (403, or 404 to a global ADMIN for a clinic
   * that does not exist) by the same rule as authorizeClinic, or ClinicZoneChanged when the caller
   * may come in but the clinic's zone is another than assumed.
   */
  settle(found: unknown, assumedZone: string): never {
    const f = foundSchema.parse(found);
    const row = f.clinic
      ? { role: f.role ?? null, isProvider: f.is_provider ?? null, status: f.status ?? null }
      : undefined;
    try {
      decideClinicAccess(this.caller, row, this.minRole);
    } catch (error) {
      this.#decided = true;
      this.#refused = true;
      throw error;
    }
    if (f.timezone === undefined || f.timezone === assumedZone)
      throw new Error("the read refused a caller whom the access rule lets in, in the zone it assumed");
    zones.set(this.clinicId, f.timezone);
    throw new ClinicZoneChanged(f.timezone);
  }

  /** Decides by authorizeClinic's statement (when the request failed before its read decided). */
  async decide(): Promise<void> {
    if (this.#decided) return;
    await authorizeClinic(this.db, this.caller, this.clinicId, this.minRole);
    this.#decided = true;
  }
}
