import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_EXPIRY_DAYS } from '../../auth/api-keys.js';
import { SamlSettingError } from '../../auth/saml/settings.js';
import { effectiveSettings, mergeSaml, updateSettings } from '../../control/settings.js';
import { SvcError } from '../../errors/svc-error.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

const text = (max: number) =>
  z
    .string({ invalid_type_error: 'must be a string or null' })
    .trim()
    .min(1, 'must not be empty (null removes it)')
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .optional();

/** Single sign-on fields; null removes one. Checked for real (certificate parsed, metadata fetched) before anything is stored. */
const samlPatch = z
  .object({
    idpMetadata: text(1_000_000),
    idpSsoUrl: text(2000),
    idpCert: text(20_000),
    spEntityId: text(1000),
    match: text(200),
    clockSkewSecs: z
      .number({ invalid_type_error: 'must be a whole number of seconds or null' })
      .int()
      .min(0)
      .max(3600)
      .nullable()
      .optional(),
    idpInitiated: z.boolean({ invalid_type_error: 'must be true, false or null' }).nullable().optional(),
  })
  .strict();

const days = (max: number) =>
  z
    .number({ invalid_type_error: 'must be a whole number of days or null' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)
    .nullable()
    .optional();

const patchSettings = z
  .object({
    retentionDefaultDays: days(36500),
    apiKeyExpiryDefaultDays: days(MAX_EXPIRY_DAYS),
    adminKeyMaxDays: days(MAX_EXPIRY_DAYS),
    homeDashboard: z
      .string({ invalid_type_error: 'must be a dashboard id or null' })
      .min(1, 'must not be empty (null removes it)')
      .max(100)
      .nullable()
      .optional()
      .describe('the shared dashboard /ui/ opens; null: the search page'),
    saml: samlPatch.nullable().optional(),
  })
  .strict();

/**
 * /api/admin/settings: Admin → General (retention default, API key expiry, home dashboard, single sign-on). The answer also says
 * what is in force, and for single sign-on whether it works and which fields the environment sets.
 */
export async function adminSettingsRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const tags = ['admin'];
  const answer = async () => {
    const settings = app.deps.control.settings();
    return {
      settings,
      effective: effectiveSettings(settings, app.deps.config.retentionDefaultDays),
      sso: await app.deps.sso.status(),
    };
  };

  api.get('/api/admin/settings', { config, schema: { summary: 'the settings and what is in force', tags } }, async () =>
    answer(),
  );

  const schema = { summary: 'change settings (null removes one)', tags, body: patchSettings };
  api.patch('/api/admin/settings', { config, schema }, async (request) => {
    const patch = request.body;
    if (typeof patch.homeDashboard === 'string') app.deps.dashboards.checkHome(patch.homeDashboard);
    if (patch.saml !== undefined) {
      try {
        await app.deps.sso.check(mergeSaml(app.deps.control.settings().saml, patch.saml));
      } catch (e) {
        if (!(e instanceof SamlSettingError)) throw e;
        const field = e.setting.startsWith('saml.') ? e.setting : 'saml';
        throw new SvcError('invalid_input', e.message, { details: { field } });
      }
    }
    await updateSettings(app.deps.control, patch);
    return answer();
  });
}
