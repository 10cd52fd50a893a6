import type { ControlDoc } from './records.js';

/**
 * Gives every API key of an older document its owner's user id (ApiKeyRecord.ownerId), which such
 * documents lack: keys then named their creator only. The creator is found by that name: a user,
 * or a key that created it (whose own owner is then the owner). A creator found nowhere (a user
 * since deleted) leaves null: the key is refused, and Admin → API keys shows it as "owner removed".
 * Pure and idempotent: it runs on every read of the stored document, and the next write keeps it.
 */
export function migrateKeyOwners(doc: ControlDoc): void {
  const keys = doc.apiKeys as (Omit<ControlDoc['apiKeys'][number], 'ownerId'> & { ownerId?: string | null })[];
  if (keys.every((k) => k.ownerId !== undefined)) return;
  const userIds = new Map(doc.users.map((u) => [u.username, u.id]));
  for (const k of keys) if (k.ownerId === undefined && userIds.has(k.createdBy)) k.ownerId = userIds.get(k.createdBy);
  // keys made by keys: each pass settles one more link of a chain
  for (let changed = true; changed;) {
    changed = false;
    const byName = new Map(keys.map((k) => [k.name, k]));
    for (const k of keys) {
      const maker = k.ownerId === undefined ? byName.get(k.createdBy) : undefined;
      if (maker && maker !== k && typeof maker.ownerId === 'string') {
        k.ownerId = maker.ownerId;
        changed = true;
      }
    }
  }
  for (const k of keys) if (k.ownerId === undefined) k.ownerId = null;
}
