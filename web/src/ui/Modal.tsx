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

/** The openers of the modals open now, innermost last: a modal opened from one that closes inherits its opener. */
const openers: (HTMLElement | null)[] = [];

/**
 * Where the focus goes back to when a modal closes (WAI-ARIA APG, dialog pattern): the element
 * focused when it opened (a button, an event row). A modal that replaces another in one step (the
 * create form giving way to the one-time secret) opens with the focus still on the closing one's
 * button, or on nothing: it falls back to that modal's own opener.
 */
function openerNow(): { own: HTMLElement | null; inherited: HTMLElement | null } {
  const a = document.activeElement;
  const own = a instanceof HTMLElement && a !== document.body ? a : null;
  return { own, inherited: openers.at(-1) ?? null };
}

/** The page's content region (Shell's <main>): where the focus goes when what held it is gone. */
function focusMain(): void {
  document.getElementById('main')?.focus();
}

/**
 * Keeps the focus off the body while `el` holds it: when `el` leaves the page (the row of a just
 * deleted item goes when the list reloads, after its confirmation closed) the main region takes it.
 */
function watchRemoval(el: HTMLElement): void {
  const lost = () => !el.isConnected && (document.activeElement === document.body || !document.activeElement);
  const watch = new MutationObserver(() => {
    if (el.isConnected && document.activeElement === el) return;
    watch.disconnect();
    if (lost()) focusMain();
  });
  watch.observe(document.body, { childList: true, subtree: true });
  el.addEventListener(
    'blur',
    () => {
      watch.disconnect();
      // a browser that blurs an element as it is removed: look once the removal is done
      setTimeout(() => lost() && focusMain());
    },
    { once: true },
  );
}

/** Focuses the first of `candidates` still in the page and focusable; else the page's content, never the body. */
function restoreFocus(candidates: (HTMLElement | null)[]): void {
  for (const el of candidates) {
    if (!el?.isConnected || el.closest('[inert]') || (el as HTMLButtonElement).disabled) continue;
    el.focus();
    if (document.activeElement !== el) continue;
    watchRemoval(el);
    return;
  }
  // the opener went with what it opened: the main region takes the focus
  focusMain();
}

/**
 * A modal dialog on the native <dialog> element: the browser traps focus, Esc closes it, and the
 * rest of the page is inert while it is open. Closed, it gives the focus back to what opened it.
 */
export function Modal({ title, onClose, children, footer, wide }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  // read while rendering, before the dialog takes the focus (autoFocus, showModal)
  const [opener] = useState(openerNow);
  useEffect(() => {
    const back = opener.own && !opener.own.closest('dialog') ? opener.own : (opener.inherited ?? opener.own);
    openers.push(back);
    return () => {
      openers.splice(openers.lastIndexOf(back), 1);
      restoreFocus([opener.own, opener.inherited]);
    };
  }, [opener]);
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
