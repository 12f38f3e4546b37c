import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, type SyntheticEvent, useId, useState } from "react";

// Sign-in on the pages (CONTRACT §22, docs/web.md#sign-in): every "sign in" goes to S1
// (`/auth/login?next=<this page>`) when the service has an OpenID Provider, else to the e-mail
// code form (S4/S5) on the page; in development without either, to /dev/sign-in.

/** An explicit sign-in page (`VITE_SIGN_IN_URL`) replaces the service's own ways in. */
const configuredUrl = import.meta.env.VITE_SIGN_IN_URL;

interface Methods {
  oidc: { name: string } | null;
  email: boolean;
}

export interface SessionInfo {
  user: { id: string; email: string; full_name: string | null };
  method: "oidc" | "email";
  expires_at: string;
}

/** The ways in the service offers (GET /auth/methods). */
function useMethods() {
  return useQuery({
    queryKey: ["auth", "methods"],
    queryFn: async (): Promise<Methods> => {
      const response = await fetch("/auth/methods", { credentials: "same-origin" });
      if (!response.ok) return { oidc: null, email: false };
      return (await response.json()) as Methods;
    },
    staleTime: Infinity,
  });
}

/** The signed-in session (S6), or null. */
export function useSession() {
  return useQuery({
    queryKey: ["auth", "session"],
    queryFn: async (): Promise<SessionInfo | null> => {
      const response = await fetch("/auth/session", { credentials: "same-origin" });
      if (response.status === 401) return null;
      if (!response.ok) throw new Error(`the session could not be read (${String(response.status)})`);
      return (await response.json()) as SessionInfo;
    },
  });
}

/** This page, as S1's `next`. */
const here = () => `${window.location.pathname}${window.location.search}`;

/** The OpenID Connect sign-in for this page. */
export const loginUrl = () => `/auth/login?next=${encodeURIComponent(here())}`;

/** "Please sign in first", with the way to do it: S1, the e-mail code form, or /dev/sign-in. */
export function SignInLink({ children = "Sign in" }: { children?: string }) {
  const methods = useMethods();
  const [open, setOpen] = useState(false);
  if (configuredUrl) return <a href={configuredUrl}>{children}</a>;
  // Until the service has said how it signs people in, no way is offered: a link followed in that
  // moment would go to the development sign-in, which a production service does not have.
  if (methods.isPending) return <span aria-busy="true">{children}</span>;
  if (methods.data?.oidc) return <a href={loginUrl()}>{children}</a>;
  if (methods.data?.email) {
    if (open) return <EmailCodeForm />;
    return (
      <button
        type="button"
        className="link"
        onClick={() => {
          setOpen(true);
        }}
      >
        {children}
      </button>
    );
  }
  return <a href="/dev/sign-in">{children}</a>;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** S4 then S5: the address, then the six-digit code it received; signed in, the page reloads. */
export function EmailCodeForm() {
  const id = useId();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  const start = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const response = await post("/auth/email/start", { email, next: here() });
      if (response.status === 202) setSent(true);
      else if (response.status === 429) setMessage("Too many codes were asked for. Please wait a while and try again.");
      else setMessage("Please enter a valid e-mail address.");
    } catch {
      setMessage("The service cannot be reached. Please try again.");
    } finally {
      setBusy(false);
    }
  };

  const verify = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const response = await post("/auth/email/verify", { email, code });
      if (response.ok) {
        await queryClient.invalidateQueries();
        window.location.reload();
        return;
      }
      setMessage("That code is wrong, expired or used. Check the e-mail, or ask for a new code.");
    } catch {
      setMessage("The service cannot be reached. Please try again.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="email-sign-in">
      {!sent ? (
        <form onSubmit={(e) => void start(e)} aria-label="Sign in with an e-mailed code">
          <label htmlFor={`${id}-email`}>E-mail address</label>{" "}
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
            }}
          />{" "}
          <button type="submit" disabled={busy}>
            E-mail me a code
          </button>
        </form>
      ) : (
        <form onSubmit={(e) => void verify(e)} aria-label="Enter the e-mailed code">
          <label htmlFor={`${id}-code`}>The 6-digit code sent to {email}</label>{" "}
          <input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            value={code}
            onChange={(e) => {
              setCode(e.target.value.trim());
            }}
          />{" "}
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {message && <span role="alert"> {message}</span>}
    </span>
  );
}

/** "Sign out" (S3): a form POST, so that the browser follows the issuer's end-session redirect. */
export function SignOutButton({ children = "Sign out" }: { children?: ReactNode }) {
  return (
    <form method="post" action="/auth/logout" className="sign-out">
      <button type="submit">{children}</button>
    </form>
  );
}

/** Every page's top line: who is signed in and "Sign out", or the way to sign in. */
export function AccountBar() {
  const session = useSession();
  if (session.isPending) return null;
  const who = session.data;
  return (
    <nav className="account-bar" aria-label="Account">
      {who ? (
        <>
          <span>
            Signed in as <strong>{who.user.full_name ?? who.user.email}</strong>
            {who.user.full_name ? ` (${who.user.email})` : ""}
          </span>{" "}
          <SignOutButton />
        </>
      ) : (
        <span>
          Not signed in. <SignInLink />
        </span>
      )}
    </nav>
  );
}
