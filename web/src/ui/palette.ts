import { useEffect, useState } from 'react';

/** Series colours for charts: distinct in light and dark themes, the first one the accent. */
export const PALETTE = [
  '#3b7cf6',
  '#f59e0b',
  '#10b981',
  '#ef4444',
  '#8b5cf6',
  '#06b6d4',
  '#ec4899',
  '#84cc16',
  '#f97316',
  '#64748b',
  '#14b8a6',
  '#a855f7',
];

/** Well-known level names get the colours people expect. */
const LEVELS: Record<string, string> = {
  error: '#ef4444',
  err: '#ef4444',
  fatal: '#b91c1c',
  critical: '#b91c1c',
  crit: '#b91c1c',
  emerg: '#7f1d1d',
  alert: '#b91c1c',
  warn: '#f59e0b',
  warning: '#f59e0b',
  info: '#3b7cf6',
  notice: '#06b6d4',
  debug: '#64748b',
  trace: '#94a3b8',
  other: '#94a3b8',
  null: '#cbd5e1',
};

export function seriesColor(name: string, i: number): string {
  return LEVELS[name.toLowerCase()] ?? PALETTE[i % PALETTE.length];
}

/** The CSS variable's value (canvases cannot use var()). */
export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** The axes' look in uPlot charts (histogram, result chart), read from the theme when drawn. */
export function axisStyle() {
  return {
    stroke: cssVar('--muted'),
    grid: { stroke: cssVar('--grid'), width: 1 },
    ticks: { stroke: cssVar('--grid'), width: 1 },
    font: '11px system-ui, sans-serif',
  };
}

/**
 * A number that changes when the theme does (app/theme.ts sends `svc-theme`): charts drawn on a
 * canvas read their colours once, so they draw again when it changes.
 */
export function useThemeKey(): number {
  const [key, setKey] = useState(0);
  useEffect(() => {
    const bump = () => setKey((k) => k + 1);
    window.addEventListener('svc-theme', bump);
    return () => window.removeEventListener('svc-theme', bump);
  }, []);
  return key;
}
