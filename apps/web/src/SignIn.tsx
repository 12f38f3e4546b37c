/** Where a visitor signs in: the identity provider's page (`VITE_SIGN_IN_URL`), in development /dev/sign-in. */
export const signInUrl = import.meta.env.VITE_SIGN_IN_URL ?? "/dev/sign-in";

/** "Please sign in first", with the way to do it. */
export function SignInLink({ children = "Sign in" }: { children?: string }) {
  return <a href={signInUrl}>{children}</a>;
}
