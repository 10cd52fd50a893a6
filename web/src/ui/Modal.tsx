import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button } from './Button';
import { ErrorLine } from './ErrorLine';
import type { IconName } from './icons';
import { useAsyncAction, type AsyncAction } from './useAsyncAction';

interface Props {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}

/**
 * A modal dialog on the native <dialog> element: the browser traps focus, Esc closes it, and the
 * rest of the page is inert while it is open.
 */
export function Modal({ title, onClose, children, footer, wide }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  // the focus goes back to what opened the dialog: a dialog removed by React (rather than closed)
  // leaves it on the page's body, and a keyboard user would start over from the top
  // read while rendering, before a field's autoFocus moves the focus into the dialog
  const [opener] = useState(() => document.activeElement);
  useEffect(
    () => () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    },
    [opener],
  );
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) {
      d.showModal();
      // React's autoFocus ran while the dialog was closed (its fields not focusable yet), and
      // showModal focuses the first control, the Close button: the focus goes where it is meant to
      const first =
        d.querySelector<HTMLElement>('[data-autofocus]') ??
        d.querySelector<HTMLElement>('.modal-body :is(input, select, textarea):not(:disabled)');
      first?.focus();
    }
    const cancel = (e: Event) => {
      e.preventDefault();
      onClose();
    };
    d.addEventListener('cancel', cancel);
    return () => d.removeEventListener('cancel', cancel);
  }, [onClose]);
  return (
    <dialog ref={ref} className={wide ? 'modal modal-wide' : 'modal'} aria-label={title}>
      <header className="modal-head">
        <h2>{title}</h2>
        <Button variant="ghost" icon="x" aria-label="Close" onClick={onClose} />
      </header>
      <div className="modal-body">{children}</div>
      {footer && <footer className="modal-foot">{footer}</footer>}
    </dialog>
  );
}

interface FormDialogProps {
  /** The form's id: the footer's submit button is outside the form and names it. */
  id: string;
  title: string;
  onClose: () => void;
  /** Runs on submit through `action`: busy disables the button, a failure shows above the fields. */
  onSubmit: () => Promise<unknown>;
  action: AsyncAction;
  submitLabel: ReactNode;
  /** False while the form is not complete enough to send. */
  canSubmit?: boolean;
  submitIcon?: IconName;
  /** Buttons before Cancel (e.g. a preview). */
  extraButtons?: ReactNode;
  formClassName?: string;
  wide?: boolean;
  children: ReactNode;
}

/** A modal holding one form: its error line, its fields, and Cancel and submit in the footer. */
export function FormDialog(p: FormDialogProps) {
  return (
    <Modal
      title={p.title}
      onClose={p.onClose}
      wide={p.wide}
      footer={
        <>
          {p.extraButtons}
          <Button onClick={p.onClose}>Cancel</Button>
          <Button
            variant="primary"
            type="submit"
            form={p.id}
            icon={p.submitIcon}
            disabled={p.action.busy || p.canSubmit === false}
          >
            {p.submitLabel}
          </Button>
        </>
      }
    >
      <form
        id={p.id}
        className={p.formClassName ? `form ${p.formClassName}` : 'form'}
        onSubmit={p.action.submit(p.onSubmit)}
      >
        <ErrorLine error={p.action.error} />
        {p.children}
      </form>
    </Modal>
  );
}

interface ConfirmProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void | Promise<void>;
  onClose: () => void;
}

/** A question with Cancel and a confirm button, which stays disabled while the confirmed action runs. */
export function ConfirmDialog({ title, message, confirmLabel, danger, onConfirm, onClose }: ConfirmProps) {
  const action = useAsyncAction();
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            variant={danger ? 'danger' : 'primary'}
            data-autofocus
            disabled={action.busy}
            onClick={() =>
              action.run(async () => {
                await onConfirm();
                onClose();
              })
            }
          >
            {confirmLabel}
          </Button>
        </>
      }
    >
      <ErrorLine error={action.error} />
      <div className="confirm-message">{message}</div>
    </Modal>
  );
}

/** "Delete <name>? <consequence>": the one confirmation of every delete. */
export function ConfirmDelete({
  what,
  name,
  consequence,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  /** What is deleted, e.g. "API key": the title says "Delete API key". */
  what: string;
  name: string;
  consequence: ReactNode;
  /** The button; "Delete <what>" when not given. */
  confirmLabel?: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Delete ${what}`}
      danger
      confirmLabel={confirmLabel ?? `Delete ${what}`}
      message={
        <>
          Delete <strong>{name}</strong>? {consequence}
        </>
      }
      onConfirm={onConfirm}
      onClose={onClose}
    />
  );
}
