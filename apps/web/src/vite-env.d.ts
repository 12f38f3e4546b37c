/// <reference types="vite/client" />

interface ImportMetaEnv {
  /**
   * A sign-in page of the deployment's own, replacing the service's (S1 or the e-mail code form,
   * docs/web.md#sign-in); unset = the service's.
   */
  readonly VITE_SIGN_IN_URL?: string;
}
