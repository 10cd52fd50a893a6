import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { DashboardRecord } from '../../../src/control/records';

/**
 * What a dashboard's URL holds, so a copied link opens the same view (Grafana's `var-` form):
 * `?from=-6h&to=&var-host=web-1&var-host=web-2&refresh=1m&kiosk=1`. Absent, each takes the
 * dashboard's own (its range, its variables' defaults, its refresh).
 */
export interface DashboardUrl {
  from: string | null;
  to: string | null;
  /** Variable values the URL names: a list for a repeated `var-<name>`. */
  vars: Record<string, string[]>;
  refresh: DashboardRecord['refresh'] | null;
  kiosk: boolean;
}

const REFRESH = ['off', '10s', '1m', '5m'] as const;

export function readDashboardUrl(search: string): DashboardUrl {
  const p = new URLSearchParams(search);
  const vars: Record<string, string[]> = {};
  for (const [k, v] of p) if (k.startsWith('var-')) (vars[k.slice(4)] ??= []).push(v);
  const refresh = p.get('refresh');
  return {
    from: p.get('from'),
    to: p.get('to'),
    vars,
    refresh: (REFRESH as readonly string[]).includes(refresh ?? '') ? (refresh as DashboardUrl['refresh']) : null,
    kiosk: p.get('kiosk') === '1',
  };
}

export function writeDashboardUrl(u: DashboardUrl): string {
  const p = new URLSearchParams();
  if (u.from !== null) p.set('from', u.from);
  if (u.to !== null) p.set('to', u.to);
  for (const [name, values] of Object.entries(u.vars)) for (const v of values) p.append(`var-${name}`, v);
  if (u.refresh) p.set('refresh', u.refresh);
  if (u.kiosk) p.set('kiosk', '1');
  return p.toString();
}

/** The URL's state and a setter that writes a change into it (replacing the entry: no history per click). */
export function useDashboardUrl(): [DashboardUrl, (change: Partial<DashboardUrl>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const state = readDashboardUrl(search);
  const set = useCallback(
    (change: Partial<DashboardUrl>) => {
      const next = writeDashboardUrl({ ...readDashboardUrl(window.location.search), ...change });
      navigate(`${location}${next ? `?${next}` : ''}`, { replace: true });
    },
    [location, navigate],
  );
  return [state, set];
}
