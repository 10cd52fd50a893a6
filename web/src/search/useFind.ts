import { useMemo, useState } from 'react';
import type { LogEvent } from '../api/types';

/**
 * The page's own find (the virtualised list hides rows from the browser's Ctrl+F): a text, the
 * events whose message contains it, and which match is current.
 */
export function useFind(events: LogEvent[]) {
  const [text, setText] = useState('');
  const [cursor, setCursor] = useState(0);
  const re = useMemo(() => (text ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi') : null), [text]);
  const hits = useMemo(() => {
    if (!text) return [];
    const needle = text.toLowerCase();
    const out: number[] = [];
    events.forEach((e, i) => {
      if (e.message.toLowerCase().includes(needle)) out.push(i);
    });
    return out;
  }, [events, text]);
  const current = hits.length ? hits[Math.min(cursor, hits.length - 1)] : null;
  return {
    text,
    setText: (t: string) => {
      setText(t);
      setCursor(0);
    },
    re,
    hits,
    position: hits.length ? Math.min(cursor, hits.length - 1) + 1 : 0,
    current,
    step: (dir: 1 | -1) => setCursor((c) => (hits.length ? (c + dir + hits.length) % hits.length : 0)),
  };
}
