import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';

interface Props {
  /** The trigger, given a toggle function and whether the panel is open. */
  trigger: (toggle: () => void, open: boolean) => ReactNode;
  children: (close: () => void) => ReactNode;
  align?: 'left' | 'right';
  className?: string;
}

/**
 * A panel under a trigger that closes on Esc, on a click outside, when the focus Tabs out of it, or
 * when its content asks. Closed by Esc or by its content (a pick), it gives the focus back to the
 * trigger (WAI-ARIA APG: the menu button and disclosure patterns); a click elsewhere leaves it there.
 */
export function Popover({ trigger, children, align = 'left', className }: Props) {
  const [open, setOpen] = useState(false);
  /** How many times Esc or the content closed the panel: each gives the focus back to the trigger. */
  const [closes, setCloses] = useState(0);
  const ref = useRef<HTMLDivElement>(null);
  const close = useCallback(() => {
    setOpen(false);
    setCloses((n) => n + 1);
  }, []);
  useEffect(() => {
    const wrap = ref.current;
    const a = document.activeElement;
    // only when the focus was in the panel (now gone: the body) or the wrap: never pull it back
    // from where the user went
    if (closes > 0 && wrap && (!a || a === document.body || wrap.contains(a)))
      wrap.querySelector<HTMLElement>('button, a[href], [tabindex]')?.focus();
  }, [closes]);
  useEffect(() => {
    if (!open) return;
    const click = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    document.addEventListener('mousedown', click);
    document.addEventListener('keydown', key);
    return () => {
      document.removeEventListener('mousedown', click);
      document.removeEventListener('keydown', key);
    };
  }, [open, close]);
  return (
    <div
      className={`popover-wrap ${className ?? ''}`}
      ref={ref}
      onBlur={(e) => {
        // Tab past the panel's last control: it is not modal, so it steps aside (a null target is
        // the window losing focus, or a native picker of a date input: the panel stays)
        if (open && e.relatedTarget instanceof Node && !e.currentTarget.contains(e.relatedTarget)) setOpen(false);
      }}
    >
      {trigger(() => setOpen((o) => !o), open)}
      {open && <div className={`popover popover-${align}`}>{children(close)}</div>}
    </div>
  );
}
