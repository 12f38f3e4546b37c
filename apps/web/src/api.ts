import { type ClinicClient, createClient, errorCodeOf } from "@clinic/client";

/**
 * The typed client of the page: same origin, authenticated by the `access_token` cookie the
 * identity provider (or, in development, /dev/sign-in) set.
 */
export const client: ClinicClient = createClient({ url: window.location.origin });

export { guestMessageOf, messageOf, messageWithFields } from "./messages.ts";
export { errorCodeOf };
