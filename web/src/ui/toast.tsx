import { errorMessage } from './useAsyncAction';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

interface Toast {
  id: number;
  kind: 'ok' | 'error';
  text: string;
}

const Ctx = createContext<(kind: Toast['kind'], text: string) => void>(() => {});

/** Short notices in the corner: "Key disabled", or an error a page could not show in place. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((kind: Toast['kind'], text: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-3), { id, kind, text }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), kind === 'error' ? 8000 : 3000);
  }, []);
  return (
    <Ctx.Provider value={push}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`}>
            {t.text}
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}

export function useToast() {
  return useContext(Ctx);
}

/**
 * Runs a change started from a list (enable, delete, run now): a notice of `done` when it worked,
 * then `after` (typically a reload); its error as a notice when it did not. The promise never
 * rejects, so a handler may drop it.
 */
export function useNotifyAction(after?: () => void) {
  const toast = useToast();
  return useCallback(
    async <R,>(call: () => Promise<R>, done?: string | ((r: R) => string)): Promise<void> => {
      try {
        const r = await call();
        if (done !== undefined) toast('ok', typeof done === 'string' ? done : done(r));
        after?.();
      } catch (e) {
        toast('error', errorMessage(e));
      }
    },
    [toast, after],
  );
}
