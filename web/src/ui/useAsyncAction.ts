import { useCallback, useState, type FormEvent } from 'react';

/** What a failure says to the user: an Error's message, else the value as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The busy flag and error of something a user starts and waits for (a form's submit, a dialog's
 * confirm). `run(fn)` clears the error, is busy while `fn` runs and keeps what it threw. It
 * answers void, so it can be an event handler as it is: React ignores a handler's promise, and a
 * rejection there would go unseen.
 */
export function useAsyncAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback((fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    fn().then(
      () => setBusy(false),
      (e: unknown) => {
        setError(errorMessage(e));
        setBusy(false);
      },
    );
  }, []);
  /** A form's onSubmit: no page load, then `run(fn)`. */
  const submit = useCallback(
    (fn: () => Promise<unknown>) => (e: FormEvent) => {
      e.preventDefault();
      run(fn);
    },
    [run],
  );
  return { busy, error, setError, run, submit };
}

export type AsyncAction = ReturnType<typeof useAsyncAction>;
