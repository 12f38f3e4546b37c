import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * "Are you sure?" as a modal `<dialog>`: a heading that says what will happen, what follows from
 * it, and two buttons; the focus starts on the safe one ("Keep it"), Escape or it closes the
 * dialog, and the caller gives the focus back to what opened it (`onClose`). A refusal of the
 * action is shown inside (`problem`, an alert), so the person can read it and decide again.
 */
export function ConfirmDialog(props: {
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  busy?: boolean;
  problem?: ReactNode;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) {
      element.showModal();
      keep.current?.focus();
    }
  }, []);
  return (
    <dialog
      ref={dialog}
      className="setup-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={props.children ? `${id}-body` : undefined}
      data-testid="confirm-dialog"
      onClose={props.onClose}
    >
      <h2 id={`${id}-title`}>{props.title}</h2>
      {props.children && <div id={`${id}-body`}>{props.children}</div>}
      {props.problem}
      <div className="dialog-actions">
        <button type="button" className="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button
          type="button"
          className="secondary"
          ref={keep}
          onClick={() => {
            dialog.current?.close();
          }}
        >
          {props.cancelLabel ?? "Keep it"}
        </button>
      </div>
    </dialog>
  );
}
