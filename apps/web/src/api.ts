import { type ClinicClient, createClient, errorCodeOf } from "@clinic/client";

/**
 * The typed client of the page: same origin, authenticated by the service's `session` cookie
 * (§22: S1 or an e-mailed code), or in development the `access_token` cookie of /dev/sign-in.
 */
export const client: ClinicClient = createClient({ url: window.location.origin });

export { guestMessageOf, messageOf, messageWithFields } from "./messages.ts";
export { errorCodeOf };
