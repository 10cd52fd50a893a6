import type { FastifyInstance } from 'fastify';
import { languageReference, type LanguageReference } from '../../query/language.js';

/** GET /api/language: the query language's pipes, aggregations, functions, keywords and core fields. */
export async function languageRoutes(app: FastifyInstance): Promise<void> {
  const schema = { summary: "the query language's pipes, functions and keywords", tags: ['search'] };
  app.get('/api/language', { config: { access: 'standard' }, schema }, async (): Promise<LanguageReference> =>
    languageReference(),
  );
}
