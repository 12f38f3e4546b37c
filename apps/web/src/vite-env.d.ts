/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where a visitor signs in (the identity provider's page); default `/dev/sign-in` (development). */
  readonly VITE_SIGN_IN_URL?: string;
}
