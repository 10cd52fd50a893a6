import { createHash } from 'node:crypto';
import type { EventJson } from '../query/types.js';

/**
 * Event ids for MCP (docs/mcp.md). Events have no stored id, so an id names where and when an
 * event is and fingerprints its content:
 *
 *   <env>/<index>/<time RFC 3339 as the search answered it>/<16 hex of SHA-256 over the content>
 *
 * e.g. `default/web/2026-11-22T04:21:27.123456Z/3fa9c1d2e4b5a6f7`. get_event searches that env and
 * index in a one-millisecond window around the time and returns the event whose fingerprint
 * matches. Ids are stable across searches and nodes; identical events at the same instant share one.
 */

export interface ParsedEventId {
  env: string;
  index: string;
  time: string;
  hash: string;
}

function canonicalFields(fields: Record<string, unknown>): [string, unknown][] {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function fingerprint(e: EventJson): string {
  const content = JSON.stringify([
    e.time,
    e.env,
    e.index,
    e.host,
    e.source,
    e.sourcetype,
    e.message,
    canonicalFields(e.fields ?? {}),
  ]);
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}

export function eventId(e: EventJson): string {
  return `${e.env}/${e.index}/${e.time}/${fingerprint(e)}`;
}

/** Parses an id; undefined when it is not one. Env names hold no `/`; the index may. */
export function parseEventId(id: string): ParsedEventId | undefined {
  const parts = id.trim().split('/');
  if (parts.length < 4) return undefined;
  const hash = parts[parts.length - 1];
  const time = parts[parts.length - 2];
  const env = parts[0];
  const index = parts.slice(1, -2).join('/');
  if (!/^[0-9a-f]{16}$/.test(hash) || !env || !index || timeWindow(time) === undefined) return undefined;
  return { env, index, time, hash };
}

/**
 * A window [from, to) of whole milliseconds containing `time`, as RFC 3339 strings: the search
 * API's from/to may not take sub-millisecond precision.
 */
export function timeWindow(time: string): { from: string; to: string } | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${(m[2] ?? '.000').slice(0, 4).padEnd(4, '0')}${m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  return { from: new Date(ms).toISOString(), to: new Date(ms + 1).toISOString() };
}
