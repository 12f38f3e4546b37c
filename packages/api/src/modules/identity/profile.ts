import { z } from "zod";
import type { AuthUser } from "./tokens.ts";

/** GET /v1/me: who the caller is, whichever credential brought them (session, cookie or bearer token). */
export const profileOutput = z.object({ id: z.string(), email: z.string() });

/** The caller's own id and e-mail, as their credential resolved them. */
export function profileOf(user: AuthUser): z.infer<typeof profileOutput> {
  return { id: user.id, email: user.email };
}
