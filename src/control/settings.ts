import type { ControlStore } from './store.js';
import type { Settings, StoredSamlSettings } from './types.js';

/** A patch of single sign-on fields (null removes a field; a null patch removes them all). */
export type SamlPatch = { [K in keyof StoredSamlSettings]?: StoredSamlSettings[K] | null } | null;

export function mergeSaml(stored: StoredSamlSettings | undefined, patch: SamlPatch): StoredSamlSettings {
  if (patch === null) return {};
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out;
}

export interface EffectiveSettings {
  /** The global retention default in force; null: keep forever. */
  retentionDefaultDays: number | null;
  /** Where it comes from: the environment wins over the admin setting. */
  retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS' | 'settings' | 'none';
}

export function effectiveSettings(stored: Settings, envRetentionDays: number | undefined): EffectiveSettings {
  if (envRetentionDays !== undefined)
    return { retentionDefaultDays: envRetentionDays, retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS' };
  if (stored.retentionDefaultDays !== undefined)
    return { retentionDefaultDays: stored.retentionDefaultDays, retentionDefaultSource: 'settings' };
  return { retentionDefaultDays: null, retentionDefaultSource: 'none' };
}

/** The settings that are a plain number of days: `null` removes one. */
type DaysSetting = 'retentionDefaultDays' | 'apiKeyExpiryDefaultDays' | 'adminKeyMaxDays';
const DAYS_SETTINGS: readonly DaysSetting[] = ['retentionDefaultDays', 'apiKeyExpiryDefaultDays', 'adminKeyMaxDays'];

/** Admin → General. `null` removes a setting. */
export async function updateSettings(
  control: ControlStore,
  patch: { [K in DaysSetting]?: number | null } & { saml?: SamlPatch; homeDashboard?: string | null },
): Promise<Settings> {
  return control.mutate((doc) => {
    for (const k of DAYS_SETTINGS) {
      if (patch[k] === null) delete doc.settings[k];
      else if (patch[k] !== undefined) doc.settings[k] = patch[k];
    }
    if (patch.homeDashboard === null) delete doc.settings.homeDashboard;
    else if (patch.homeDashboard !== undefined) doc.settings.homeDashboard = patch.homeDashboard;
    if (patch.saml !== undefined) {
      const saml = mergeSaml(doc.settings.saml, patch.saml);
      if (Object.keys(saml).length > 0) doc.settings.saml = saml;
      else delete doc.settings.saml;
    }
    return { ...doc.settings };
  });
}
