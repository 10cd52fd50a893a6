import { z } from 'zod';
import { PANEL_TYPES } from '../control/records.js';
import { SvcError } from '../errors/svc-error.js';

/*
 * The dashboard document as clients write it: the body of POST /api/dashboards and PUT, the fields
 * of PATCH, and (with `format: 1`) the export/import file. Checked here rather than at the HTTP
 * edge so that every way in (create, replace, import) names a problem the same way, by its path:
 * `panels[2].source.query: …`. Meaning (queries, variables, loops) is checked in check.ts.
 */

/** The export format this svc writes and reads; a file of another is refused, never half-read. */
export const DASHBOARD_FORMAT = 1;

export const LIMITS = {
  panels: 50,
  variables: 20,
  query: 10_000,
  title: 200,
  description: 2000,
  listValues: 1000,
  value: 1000,
  thresholds: 10,
} as const;

const STRING = { invalid_type_error: 'must be a string', required_error: 'is required' };
const atMost = (max: number) => `must be at most ${max} characters`;
/** Free text, possibly empty (a description, a title). */
const optionalText = (max: number) => z.string(STRING).max(max, atMost(max));
/** Text that must say something: trimmed, not empty. */
const text = (max: number) => optionalText(max).trim().min(1, 'must not be empty');
const int = (min: number, max: number) =>
  z
    .number({ invalid_type_error: 'must be a number', required_error: 'is required' })
    .int('must be a whole number')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`);
const strict = <T extends z.ZodRawShape>(shape: T) =>
  z.object(shape, { invalid_type_error: 'must be an object', required_error: 'is required' }).strict();

const inlineSource = strict({
  query: text(LIMITS.query),
  env: text(200).describe('an environment, or * for every one the viewer may read'),
  index: text(200).optional(),
});
const savedSearchId = text(64).describe("a saved search's id: its query, env and index, read as the viewer");
const savedSource = strict({ savedSearchId });
/** In the export file, a saved-search panel also carries what the search was, so the file stands alone. */
const exportedSavedSource = strict({
  savedSearchId,
  snapshot: strict({
    name: text(200),
    query: text(LIMITS.query),
    env: text(200),
    index: text(200).optional(),
  }).optional(),
});
/** The message of a source that is neither kind, or both (parseWith picks the branch meant when it can). */
const SOURCE_KINDS = 'want {query, env, index?} or {savedSearchId}: exactly one of the two kinds';
const sourceOf = <S extends z.ZodTypeAny>(saved: S) =>
  z.union([inlineSource, saved], { errorMap: () => ({ message: SOURCE_KINDS }) });

const grid = strict({ x: int(0, 23), y: int(0, 10_000), w: int(1, 24), h: int(1, 100) }).refine(
  (g) => g.x + g.w <= 24,
  { message: 'x + w must be at most 24 (the grid has 24 columns)' },
);

const panelBase = {
  id: z
    .string({ invalid_type_error: 'must be a string' })
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64')
    .optional()
    .describe('unique in the dashboard; given when absent (p1, p2, …)'),
  title: optionalText(LIMITS.title).default(''),
  grid,
};
const threshold = strict({ value: z.number({ invalid_type_error: 'must be a number' }), color: text(40) });
const noOptions = strict({}).optional();

/** A panel, with the source kinds `saved` allows (the export file's saved-search source has a snapshot). */
const panelWith = <S extends z.ZodTypeAny>(saved: S) => {
  const source = sourceOf(saved);
  const panelOf = <T extends (typeof PANEL_TYPES)[number], O extends z.ZodTypeAny>(type: T, options: O) =>
    strict({ ...panelBase, source, type: z.literal(type), options });
  return z.discriminatedUnion(
    'type',
    [
      panelOf('timeseries', strict({ style: z.enum(['line', 'area', 'stacked-bar']).default('line') }).optional()),
      panelOf(
        'single',
        strict({
          thresholds: z.array(threshold).max(LIMITS.thresholds, `at most ${LIMITS.thresholds}`).optional(),
          trend: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
        }).optional(),
      ),
      panelOf('table', noOptions),
      panelOf('bar', noOptions),
      panelOf('pie', noOptions),
      panelOf('events', noOptions),
      panelOf('histogram', noOptions),
    ],
    {
      errorMap: (issue, ctx) =>
        issue.code === 'invalid_union_discriminator'
          ? { message: `unknown panel type: want one of ${PANEL_TYPES.join(', ')}` }
          : { message: ctx.defaultError },
    },
  );
};
const panel = panelWith(savedSource);
const exportedPanel = panelWith(exportedSavedSource);
const PANELS_DOC =
  '{id?, title, type, source: {query, env, index?} or {savedSearchId}, options?, grid: {x, y, w, h}} (docs/dashboards.md)';

const value = z.string({ invalid_type_error: 'must be a string' }).max(LIMITS.value);
const variable = strict({
  name: z
    .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a letter or _, then letters, digits and _ (at most 64)'),
  label: optionalText(LIMITS.title).optional(),
  kind: z.enum(['list', 'query', 'text'], { errorMap: () => ({ message: 'want "list", "query" or "text"' }) }),
  values: z.array(value).max(LIMITS.listValues, `at most ${LIMITS.listValues} values`).optional(),
  query: text(LIMITS.query).optional(),
  env: text(200).optional(),
  index: text(200).optional(),
  default: z
    .union([value, z.array(value).max(100)], { errorMap: () => ({ message: 'want a string or a list' }) })
    .optional(),
  multi: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
});

const timeText = text(64).describe('relative (-24h, -7d@d, now) or RFC 3339');
const fields = {
  title: text(LIMITS.title),
  description: optionalText(LIMITS.description).default(''),
  time: strict({ from: timeText, to: timeText })
    .default({ from: '-24h', to: 'now' })
    .describe('{from, to}: relative (-24h, now) or RFC 3339; default -24h … now'),
  refresh: z
    .enum(['off', '10s', '1m', '5m'], { errorMap: () => ({ message: 'want "off", "10s", "1m" or "5m"' }) })
    .default('off')
    .describe('how often the panels reload; also how long their answers are cached (off: 10 s)'),
  variables: z
    .array(variable)
    .max(LIMITS.variables, `at most ${LIMITS.variables} variables`)
    .default([])
    .describe(
      '{name, label?, kind: list|query|text, values?, query?, env?, index?, default?, multi?} (docs/dashboards.md)',
    ),
  panels: z.array(panel).max(LIMITS.panels, `at most ${LIMITS.panels} panels`).default([]).describe(PANELS_DOC),
};
const versionField = int(1, Number.MAX_SAFE_INTEGER).describe('the version the change was made from (409 if stale)');
const shared = z.boolean({ invalid_type_error: 'must be true or false' });

/** POST /api/dashboards. */
export const createSchema = strict({ ...fields, shared: shared.default(false) });
/** PUT /api/dashboards/{id}: the whole dashboard again, from `version`. */
export const replaceSchema = strict({ ...fields, shared: shared.default(false), version: versionField });
/** PATCH /api/dashboards/{id}: what changes (lists replace whole), from `version`. */
export const patchSchema = strict({
  title: fields.title.optional(),
  description: optionalText(LIMITS.description).optional(),
  time: strict({ from: timeText, to: timeText }).optional(),
  refresh: z.enum(['off', '10s', '1m', '5m']).optional(),
  variables: z.array(variable).max(LIMITS.variables, `at most ${LIMITS.variables} variables`).optional(),
  panels: z.array(panel).max(LIMITS.panels, `at most ${LIMITS.panels} panels`).optional(),
  shared: shared.optional(),
  version: versionField,
});
/** The export file and POST /api/dashboards/import: no id, owner, version or times (they do not carry over). */
export const exportSchema = strict({
  format: z
    .literal(DASHBOARD_FORMAT, {
      errorMap: () => ({ message: `want ${DASHBOARD_FORMAT} (the dashboard format this svc reads)` }),
    })
    .describe('the file format: 1'),
  ...fields,
  panels: z
    .array(exportedPanel)
    .max(LIMITS.panels, `at most ${LIMITS.panels} panels`)
    .default([])
    .describe(`${PANELS_DOC}; a saved-search source may carry snapshot: {name, query, env, index?}`),
});

export type CreateInput = z.output<typeof createSchema>;
export type PatchInput = z.output<typeof patchSchema>;
export type ExportDoc = z.output<typeof exportSchema>;
export type PanelInput = z.output<typeof panel>;
export type ExportedPanel = z.output<typeof exportedPanel>;

/** `panels[2].source.query`: how every dashboard error names its place. */
export function fieldPath(path: readonly (string | number)[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** An invalid_input naming `field`; `details` may add a query's parse position. */
export function fieldError(field: string, message: string, details: Record<string, unknown> = {}): SvcError {
  return new SvcError('invalid_input', `${field}: ${message}`, { details: { field, ...details } });
}

/** Parses `body` with `schema` or throws the first problem, named by its path. */
export function parseWith<S extends z.ZodTypeAny>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data as z.output<S>;
  const issue = meant(r.error.issues[0], body);
  if (issue.code === 'unrecognized_keys') {
    return fail(fieldPath([...issue.path, issue.keys[0]]) || 'body', 'unknown field');
  }
  return fail(fieldPath(issue.path) || 'body', issue.message === 'Required' ? 'is required' : issue.message);
}

/**
 * A panel source's problem as the kind it was meant as: keys of both kinds are SOURCE_KINDS; else
 * one that fails both (zod's invalid_union) names the problem of the kind its keys say (a
 * `savedSearchId` means a saved search; else inline). zod answers a union with the first branch
 * that is only "dirty" (an unknown key), hence the check of the keys whatever the issue.
 */
function meant(issue: z.ZodIssue, body: unknown): z.ZodIssue {
  const at = issue.path.indexOf('source');
  if (issue.path[0] !== 'panels' || at !== 2) return issue;
  const path = issue.path.slice(0, at + 1);
  let v: unknown = body;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return issue;
  const saved = 'savedSearchId' in v;
  if (saved && ['query', 'env', 'index'].some((k) => k in v)) return { code: 'custom', path, message: SOURCE_KINDS };
  if (issue.code !== 'invalid_union' || issue.path.length !== path.length) return issue;
  return issue.unionErrors[saved ? 1 : 0]?.issues[0] ?? issue;
}

function fail(field: string, message: string): never {
  throw fieldError(field, message);
}
