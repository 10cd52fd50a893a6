/**
 * Removes secrets from values before svc records them (MCP call arguments, service event detail).
 * Keys that name a secret lose their value; strings lose anything shaped like an svc secret, a
 * bearer/basic credential or `password=...`. Long strings are cut so one call cannot bloat the log.
 */

import { isSecretKey } from '../errors/secret-names.js';

export const REDACTED = '[redacted]';
const MAX_STRING = 2000;
const MAX_DEPTH = 6;

const SECRET_PATTERNS: [RegExp, string][] = [
  // svc API keys and ingest tokens
  [/\bsv[ki]_[A-Za-z0-9]+/g, REDACTED],
  // Authorization header values
  [/\b(Bearer|Basic|Splunk|ApiKey)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // JWTs (three base64url parts)
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, REDACTED],
  // password=..., "token": "...", api_key: ... inside free text (queries, messages)
  [
    /\b((?:pass(?:word|wd)?|secret|token|api[_-]?key|authorization)["']?\s*[=:]\s*["']?)[^\s"',;&|)]+/gi,
    `$1${REDACTED}`,
  ],
];

export function redactString(s: string): string {
  let out = s;
  for (const [re, repl] of SECRET_PATTERNS) out = out.replace(re, repl);
  if (out.length > MAX_STRING) out = `${out.slice(0, MAX_STRING)}… [${out.length - MAX_STRING} more characters]`;
  return out;
}

/** A deep copy of `v` with secrets removed. Never throws; cycles and deep nesting are cut. */
export function redact(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return redactString(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(v)) return v.slice(0, 100).map((x) => redact(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[k] = isSecretKey(k) && x !== null && x !== undefined && x !== '' ? REDACTED : redact(x, depth + 1);
  }
  return out;
}
