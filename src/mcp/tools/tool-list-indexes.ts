import { z } from 'zod';
import { canRead } from '../../auth/rbac.js';
import { SvcError } from '../../errors/svc-error.js';
import { fitLines, truncationNote } from '../format.js';
import { catalog, readableEnvs } from '../../query/catalog.js';
import { rangeText, totals } from './tool-list-environments.js';
import { defineTool } from './types.js';

const input = z.object({
  env: z
    .string()
    .max(200)
    .optional()
    .describe('Environment whose indexes to list; omit or "*" for every environment you may read.'),
});

export const listIndexesTool = defineTool({
  name: 'list_indexes',
  title: 'List indexes',
  description:
    'List the indexes (subdivisions of an environment, often one per application or log type) you may search, with their event counts and the time span of their events. Pass an index name as index to the other tools to search only it. The time span tells which from/to will find events.',
  input,
  async run({ deps, principal }, args) {
    const env = args.env && args.env !== '*' ? args.env : undefined;
    if (env && !canRead(principal, env)) throw new SvcError('access_denied', `access denied to environment "${env}"`);
    const envs = env ? [env] : readableEnvs(deps, principal);
    const list = catalog(deps, principal, envs)
      .flatMap((e) => e.indexes.map((i) => ({ env: e.name, index: i.name, ...totals(i) })))
      .sort((a, b) => (a.env === b.env ? a.index.localeCompare(b.index) : a.env.localeCompare(b.env)));
    if (list.length === 0) {
      return {
        text: `no indexes with events${env ? ` in environment "${env}"` : ''}`,
        structured: { indexes: [] },
        resultCount: 0,
      };
    }
    const fit = fitLines(
      [`${list.length} indexes`],
      list.map((i) => `${i.env}/${i.index}: ${rangeText(i)}`),
    );
    const structured: Record<string, unknown> = { indexes: list.slice(0, fit.shown) };
    let text = fit.text;
    if (fit.shown < list.length)
      text += `\n${truncationNote(fit.shown, list.length, 'indexes', 'pass env to list one environment')}`;
    return { text, structured, resultCount: list.length };
  },
});
