import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BookingPage } from "./BookingPage.tsx";
import { DeskPage } from "./DeskPage.tsx";
import "./styles.css";

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: true } } });

/** Two pages and a home; the path is the whole router. */
function Page() {
  const [, section, clinicId] = window.location.pathname.split("/");
  if (section === "book" && clinicId) return <BookingPage clinicId={clinicId} />;
  if (section === "desk" && clinicId) return <DeskPage clinicId={clinicId} />;
  return (
    <main className="page">
      <h1>Clinic scheduling</h1>
      <p>
        Patients book at <code>/book/&lt;clinic id&gt;</code>; the front desk works at{" "}
        <code>/desk/&lt;clinic id&gt;</code>.
      </p>
      <p>
        In development, <a href="/dev/sign-in">sign in as a demo user</a>. API reference: <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <Page />
      </QueryClientProvider>
    </StrictMode>,
  );
}
