// Which clinic a search answers (CONTRACT §16 v1.3, docs/fhir.md#which-clinic): a search
// without a clinic answers from every clinic the caller may see, and each parameter that names
// clinics (clinic, or a reference whose id names its clinic) narrows that set. The work is done
// clinic by clinic, each call filtered by its clinic, so on Citus every statement stays on one
// shard; nothing asks the database for "everything the caller may see" at once.
import { appRouter, createCallerFactory, toDomainError } from "@clinic/api";
import type { DomainCode } from "@clinic/api";
import type { ClinicView } from "./mapping.ts";
import type { Params } from "./params.ts";

export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

/** True when `error` is (or wraps) our error with this code. */
export function hasCode(error: unknown, code: DomainCode): boolean {
  return toDomainError(error).domainCode === code;
}

/** Reads every page of a list procedure (500 a call). */
export async function everyPage<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    all.push(...answer.items);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}

/** The clinics the caller may see: a member's own clinics, every clinic for a global ADMIN (C2, clinics.list). */
export const visibleClinics = (caller: Caller): Promise<ClinicView[]> =>
  everyPage(async (cursor) => {
    const answer = await caller.clinics.list({ limit: 500, ...(cursor ? { cursor } : {}) });
    return { items: answer.clinics, next_cursor: answer.next_cursor };
  });

/** The clinics one parameter names, or undefined when the parameter is not in the search. */
export function namedBy(params: Params, name: string, clinicsOf: () => string[]): string[] | undefined {
  return params[name] === undefined ? undefined : clinicsOf();
}

/**
 * The clinics a search is narrowed to: every parameter that names clinics is a filter, so the
 * search answers from the clinics all of them name (none when they disagree); undefined when no
 * parameter names one.
 */
export function narrowedClinics(...named: (readonly string[] | undefined)[]): string[] | undefined {
  const given = named.filter((clinics): clinics is readonly string[] => clinics !== undefined);
  const [first, ...rest] = given;
  if (first === undefined) return undefined;
  return [...new Set(first)].filter((id) => rest.every((clinics) => clinics.includes(id))).sort();
}

/** A clinic a search works in; its view when the caller's clinic list already gave it. */
export interface ClinicScope {
  id: string;
  view?: ClinicView;
}

/** The clinic's view: the one the list gave, or read (C3, which also checks the caller may see it). */
export async function clinicViewOf(caller: Caller, scope: ClinicScope): Promise<ClinicView> {
  return scope.view ?? caller.clinics.get({ clinic_id: scope.id });
}

/**
 * How many clinics are worked on at once: a little parallelism for a member of several clinics,
 * while one search holds at most a few of the pool's connections (each clinic may run three
 * procedures side by side).
 */
const clinicsAtOnce = 2;

/** `work` for each item, at most `clinicsAtOnce` at a time, answers in the items' order. */
export async function inOrder<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += clinicsAtOnce) {
    results.push(...(await Promise.all(items.slice(at, at + clinicsAtOnce).map(work))));
  }
  return results;
}

/**
 * What `perClinic` answers in each clinic of the search, concatenated in clinic order. Clinics a
 * parameter names are judged by the procedures, as on /v1: one the caller is not a member of is
 * 403, whether it exists or not (§3). Without one, the caller's clinics; a clinic where the
 * caller's role may not make this search (403: providers and appointments need STAFF) or that
 * is gone by now (404) answers nothing.
 */
export async function acrossClinics<T>(
  caller: Caller,
  narrowed: readonly string[] | undefined,
  perClinic: (clinic: ClinicScope) => Promise<T[]>,
): Promise<T[]> {
  if (narrowed !== undefined) return (await inOrder(narrowed, (id) => perClinic({ id }))).flat();
  const clinics = await visibleClinics(caller);
  const answers = await inOrder(clinics, async (view) => {
    try {
      return await perClinic({ id: view.id, view });
    } catch (error) {
      if (hasCode(error, "FORBIDDEN") || hasCode(error, "NOT_FOUND")) return [];
      throw error;
    }
  });
  return answers.flat();
}
