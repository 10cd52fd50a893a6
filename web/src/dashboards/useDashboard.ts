import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';
import { useToast } from '../ui/toast';
import { errorMessage } from '../ui/useAsyncAction';
import { changeDashboard, getDashboard, type DashboardChange, type DashboardView } from './dashboard-api';

/**
 * A dashboard loaded once, and its changes saved one after another, each from the version the last
 * answered (a drag and an edit in quick succession must not conflict with each other). A 409 from
 * someone else's change is kept in `conflict`: nothing more is saved until the page reloads it.
 */
export function useDashboard(id: string) {
  const [dash, setDash] = useState<DashboardView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<number | null>(null);
  const latest = useRef<DashboardView | null>(null);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const toast = useToast();

  const load = useCallback(() => {
    getDashboard(id).then(
      (d) => {
        latest.current = d;
        setDash(d);
        setLoadError(null);
        setConflict(null);
      },
      (e: unknown) => setLoadError(errorMessage(e)),
    );
  }, [id]);
  useEffect(load, [load]);

  /** Saves `change` (a function of the dashboard as last saved); rejects with the server's error for a form to show. */
  const save = useCallback((change: (d: DashboardView) => DashboardChange): Promise<DashboardView> => {
    const next = queue.current.then(async () => {
      const d = latest.current!;
      try {
        const saved = await changeDashboard(d.id, d.version, change(d));
        latest.current = saved;
        setDash(saved);
        return saved;
      } catch (e) {
        if (e instanceof ApiError && e.code === 'version_conflict') {
          const current = e.details.currentVersion;
          setConflict(typeof current === 'number' ? current : d.version + 1);
        }
        throw e;
      }
    });
    queue.current = next.catch(() => undefined);
    return next;
  }, []);

  /** A change nobody waits for (a drag): its failure is a notice (a conflict also shows the banner). */
  const saveQuietly = useCallback(
    (change: (d: DashboardView) => DashboardChange) =>
      void save(change).catch((e: unknown) => {
        if (!(e instanceof ApiError && e.code === 'version_conflict')) toast('error', errorMessage(e));
      }),
    [save, toast],
  );

  return { dash, loadError, conflict, reload: load, save, saveQuietly };
}
