import { useState } from "react";
import { messageOf } from "./api.ts";
import { downloadJson, exportFileName, myExportUrl } from "./patientData.ts";

/**
 * "Download my data" under "My appointments" (§21, X3): the signed-in user's own data in every
 * clinic where they appear, saved as one JSON file. The outcome is announced in a status line.
 */
export function MyDataDownload() {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | undefined>();
  const download = async () => {
    setBusy(true);
    setNote(undefined);
    const fileName = exportFileName("my-data", "json", new Date());
    try {
      await downloadJson(myExportUrl, "json", fileName);
      setNote({ ok: true, text: `Downloaded ${fileName}: your data in every clinic where you booked.` });
    } catch (error) {
      setNote({ ok: false, text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="my-data">
      <button
        type="button"
        className="secondary"
        aria-describedby="my-data-hint"
        disabled={busy}
        onClick={() => void download()}
      >
        Download my data
      </button>{" "}
      <span id="my-data-hint" className="field-hint">
        Everything the clinics hold about you (appointments, answers, messages, waitlist entries), as a JSON file.
      </span>
      <p role="status" className={note?.ok === false ? "problem" : undefined} data-testid="my-data-note">
        {busy ? "Preparing the file…" : note?.text}
      </p>
    </div>
  );
}
