import { SvcError } from '../errors/svc-error.js';

/**
 * The one rule for environment and index names, wherever a name comes from: the admin API, an
 * ingest token, native ingest's `?index=`, an Elasticsearch `_index`, a HEC `index`, a Loki label,
 * an OTLP `svc.index`. A name is one folder of the block layout and one path segment of a lookup,
 * so it may hold nothing a path could misread (`..`, `/`), nothing invisible (control characters,
 * spaces at either end: never trimmed, refused), and stays short enough for every file system.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A refused name is quoted up to this many characters. */
const MAX_QUOTED = 80;

/**
 * Checks an environment or index name: 1-64 letters, digits, `_`, `.`, `-`, starting with a letter
 * or digit (`_` starts svc's reserved names, e.g. `_system`). Throws reserved_name or invalid_input
 * naming the field and quoting the name (JSON-escaped, so `"prod\n"` shows its newline).
 */
export function checkName(field: string, name: string): void {
  if (name.startsWith('_')) {
    throw new SvcError('reserved_name', `${field}: names starting with "_" are reserved (got ${quote(name)})`, {
      details: { field },
    });
  }
  if (!NAME.test(name)) {
    throw new SvcError(
      'invalid_input',
      `${field}: want 1-64 letters, digits, "_", "." or "-", starting with a letter or digit (got ${quote(name)})`,
      { details: { field } },
    );
  }
}

function quote(name: string): string {
  const q = JSON.stringify(name.length > MAX_QUOTED ? name.slice(0, MAX_QUOTED) : name);
  return name.length > MAX_QUOTED ? `${q}… (${name.length} characters)` : q;
}
