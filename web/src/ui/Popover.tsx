import { useEffect, useRef, useState, type ReactNode } from 'react';

interface Props {
  /** The trigger, given a toggle function and whether the panel is open. */
  trigger: (toggle: () => void, open: boolean) => ReactNode;
  children: (close: () => void) => ReactNode;
  align?: 'left' | 'right';
  className?: string;
}

/** A panel under a trigger that closes on Esc, on a click outside, or when its content asks. */
export function Popover({ trigger, children, align = 'left', className }: Props) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const click = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', click);
    document.addEventListener('keydown', key);
    return () => {
      document.removeEventListener('mousedown', click);
      document.removeEventListener('keydown', key);
    };
  }, [open]);
  return (
    <div className={`popover-wrap ${className ?? ''}`} ref={ref}>
      {trigger(() => setOpen((o) => !o), open)}
      {open && <div className={`popover popover-${align}`}>{children(() => setOpen(false))}</div>}
    </div>
  );
}
