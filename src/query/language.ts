import type { ConstructDoc } from './doc.js';
import { FUNCTIONS } from './expr/functions.js';
import { formatFieldCatalog } from './extract/auto-fields.js';
import { DATE_FIELD_NAMES } from './extract/date-fields.js';
import { RAW } from './schema.js';
import { aggregationDocs } from './pipes/aggregations.js';
import { PIPES } from './pipes/registry.js';

/**
 * The language's vocabulary, gathered from the constructs' own docs (each pipe, aggregation and
 * function carries one beside its definition): the editor's autocomplete and a reference for tools.
 */
export interface LanguageReference {
  pipes: ({ name: string } & ConstructDoc)[];
  aggregations: ({ name: string } & ConstructDoc)[];
  functions: ({ name: string } & ConstructDoc)[];
  /** Words with a meaning of their own: boolean operators (capitals only), pipe keywords, time bounds, literals. */
  keywords: string[];
  /** Fields every event has (query/schema.ts CORE_COLUMNS), most used first. */
  coreFields: string[];
  /** Fields found in the message at search time by a known log format (query/extract/formats.ts), with the formats giving each. */
  extractedFields: { name: string; formats: string[] }[];
  /** Splunk's names svc gives every event: `_raw` (the message) and the `date_*` fields of `_time` (extract/date-fields.ts). */
  splunkFields: string[];
}

export const KEYWORDS: readonly string[] = [
  'AND',
  'OR',
  'NOT',
  'by',
  'as',
  'output',
  'outputnew',
  'span',
  'field',
  'limit',
  'earliest',
  'latest',
  'true',
  'false',
  'null',
  'window',
  'current',
  'global',
  'over',
  'usenull',
  'useother',
  'maxspan',
  'maxpause',
  'startswith',
  'endswith',
  'input',
  'path',
  'timeformat',
  'type',
  'max',
  'overwrite',
  'delim',
  'tokenizer',
  'allowempty',
  'append',
  'start',
  'eval',
  'desc',
  'value',
  'max_match',
  'mode',
  'minspan',
  'IN',
  'LIKE',
  'TERM',
  'CASE',
  'groupby',
  'summariesonly',
  'allow_old_summaries',
  'prestats',
  'annotate',
  'fieldstr',
  'matchstr',
  'matchseg1',
  'matchseg2',
  'matchseg3',
  'override',
  'connected',
  'labelfield',
  'label',
  'prefix',
  'column_name',
  'header_field',
  'include_empty',
  'maxinputs',
];
export const CORE_FIELDS_ORDER: readonly string[] = [
  '_time',
  'host',
  'source',
  'sourcetype',
  'message',
  'index',
  'env',
];

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

let cached: LanguageReference | undefined;

/** Built once: the registries do not change while svc runs. */
export function languageReference(): LanguageReference {
  cached ??= {
    pipes: Object.values(PIPES)
      .map((d) => ({ name: d.name, ...d.doc }))
      .sort(byName),
    aggregations: aggregationDocs(),
    functions: Object.entries(FUNCTIONS)
      .map(([name, d]) => ({ name, ...d.doc }))
      .sort(byName),
    keywords: [...KEYWORDS],
    coreFields: [...CORE_FIELDS_ORDER],
    extractedFields: formatFieldCatalog(),
    splunkFields: [RAW, ...DATE_FIELD_NAMES],
  };
  return cached;
}
