import type { FastifyInstance } from 'fastify';
import { languageReference, type LanguageReference } from '../../query/language.js';

/** GET /api/language: the query language's pipes, aggregations, functions, keywords and core fields. */
export async function languageRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/language', { config: { access: 'standard' } }, async (): Promise<LanguageReference> =>
    languageReference(),
  );
}
