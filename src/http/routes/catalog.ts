import type { FastifyInstance } from 'fastify';
import { catalog, type Extent } from '../../query/catalog.js';
import { isoFromUs } from '../../query/time-range.js';
import { principalOf } from '../../http-kit/access.js';

interface ExtentJson {
  events: number;
  /** RFC 3339 with microseconds, as every search answer; null without events. */
  earliest: string | null;
  latest: string | null;
}

export interface CatalogAnswer {
  envs: ({ name: string; indexes: ({ name: string } & ExtentJson)[] } & ExtentJson)[];
}

function extentJson(e: Extent): ExtentJson {
  return {
    events: e.events,
    earliest: e.minTimeUs === undefined ? null : isoFromUs(e.minTimeUs),
    latest: e.maxTimeUs === undefined ? null : isoFromUs(e.maxTimeUs),
  };
}

/**
 * GET /api/catalog: the environments and indexes the caller may search, with event counts and time
 * spans, for the UI's env and index pickers (the MCP tools list_environments and list_indexes show
 * the same catalog, src/query/catalog.ts).
 */
export async function catalogRoutes(app: FastifyInstance): Promise<void> {
  const schema = { summary: 'the environments and indexes the caller may search', tags: ['search'] };
  app.get('/api/catalog', { config: { access: 'standard' }, schema }, async (request): Promise<CatalogAnswer> => ({
    envs: catalog(app.deps, principalOf(request)).map((e) => ({
      name: e.name,
      ...extentJson(e),
      indexes: e.indexes.map((i) => ({ name: i.name, ...extentJson(i) })),
    })),
  }));
}
