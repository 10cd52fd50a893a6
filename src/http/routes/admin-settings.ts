import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { effectiveSettings, updateSettings } from '../../control/settings.js';
import { parseInput } from './admin-input.js';

const patchSettings = z
  .object({
    retentionDefaultDays: z
      .number({ invalid_type_error: 'must be a whole number of days or null' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(36500, 'must be at most 36500')
      .nullable()
      .optional(),
  })
  .strict();

/** /api/admin/settings: Admin → General (retention default). The answer also says what is in force. */
export async function adminSettingsRoutes(app: FastifyInstance): Promise<void> {
  const opts = { config: { access: 'admin' as const } };
  const answer = () => {
    const settings = app.deps.control.settings();
    return { settings, effective: effectiveSettings(settings, app.deps.config.retentionDefaultDays) };
  };

  app.get('/api/admin/settings', opts, async () => answer());

  app.patch('/api/admin/settings', opts, async (request) => {
    await updateSettings(app.deps.control, parseInput(patchSettings, request.body));
    return answer();
  });
}
