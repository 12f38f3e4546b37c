import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode, Suspense, lazy } from "react";
import { createRoot } from "react-dom/client";
import { BookingPage } from "./BookingPage.tsx";
import { DeskPage } from "./DeskPage.tsx";
import { ManagePage } from "./ManagePage.tsx";
import { AccountBar } from "./SignIn.tsx";
import "./styles.css";

// The reports page brings Chart.js: loaded only when that page is opened, so the other pages stay small.
const ReportsPage = lazy(() => import("./ReportsPage.tsx").then((m) => ({ default: m.ReportsPage })));
// The clinic's setup (services, providers, hours, the clinic): loaded only there, for the same reason.
const SetupShell = lazy(() => import("./setup/SetupShell.tsx").then((m) => ({ default: m.SetupShell })));

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: true } } });

/** Five pages and a home; the path is the whole router. */
function Page() {
  const [, section, id, sub, area] = window.location.pathname.split("/");
  if (section === "book" && id) return <BookingPage clinicId={id} />;
  if (section === "desk" && id && sub === "reports") {
    return (
      <Suspense fallback={<p role="status">Loading…</p>}>
        <ReportsPage clinicId={id} />
      </Suspense>
    );
  }
  if (section === "desk" && id && sub === "setup") {
    return (
      <Suspense fallback={<p role="status">Loading…</p>}>
        <SetupShell clinicId={id} area={area ?? ""} />
      </Suspense>
    );
  }
  if (section === "desk" && id) return <DeskPage clinicId={id} />;
  if (section === "manage" && id) return <ManagePage token={id} />;
  return (
    <main className="page">
      <h1>Clinic scheduling</h1>
      <p>
        Patients book at <code>/book/&lt;clinic id&gt;</code> (as a guest or signed in) and manage an appointment
        through the link in its e-mails (<code>/manage/&lt;token&gt;</code>); the front desk works at{" "}
        <code>/desk/&lt;clinic id&gt;</code>, its reports at <code>/desk/&lt;clinic id&gt;/reports</code> and the
        clinic&apos;s setup at <code>/desk/&lt;clinic id&gt;/setup</code>.
      </p>
      <p>
        Sign in with the control at the top of the page; in development also <a href="/dev/sign-in">as a demo user</a>.
        API reference: <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <AccountBar />
        <Page />
      </QueryClientProvider>
    </StrictMode>,
  );
}
