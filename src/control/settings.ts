import type { ControlStore } from './store.js';
import type { Settings } from './types.js';

export interface EffectiveSettings {
  /** The global retention default in force; null: keep forever. */
  retentionDefaultDays: number | null;
  /** Where it comes from: the environment wins over the admin setting. */
  retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS' | 'settings' | 'none';
}

export function effectiveSettings(stored: Settings, envRetentionDays: number | undefined): EffectiveSettings {
  if (envRetentionDays !== undefined) return { retentionDefaultDays: envRetentionDays, retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS' };
  if (stored.retentionDefaultDays !== undefined) return { retentionDefaultDays: stored.retentionDefaultDays, retentionDefaultSource: 'settings' };
  return { retentionDefaultDays: null, retentionDefaultSource: 'none' };
}

/** Admin → General. `null` removes a setting. */
export async function updateSettings(control: ControlStore, patch: { retentionDefaultDays?: number | null }): Promise<Settings> {
  return control.mutate((doc) => {
    if (patch.retentionDefaultDays === null) delete doc.settings.retentionDefaultDays;
    else if (patch.retentionDefaultDays !== undefined) doc.settings.retentionDefaultDays = patch.retentionDefaultDays;
    return { ...doc.settings };
  });
}
