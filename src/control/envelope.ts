import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ControlError } from './errors.js';
import { migrateKeyOwners } from './migrate.js';
import type { ControlDoc } from './records.js';

/** The stored form of an encrypted control plane: nothing but the algorithm is readable. */
interface Envelope {
  format: 'svc-control-encrypted';
  v: 1;
  alg: 'AES-256-GCM';
  iv: string;
  tag: string;
  data: string;
}

/** Binds the ciphertext to its purpose, so a blob encrypted for something else never decrypts as this. */
const AAD = Buffer.from('svc-control-v1');

/** Serialises the document; with a key, as an AES-256-GCM envelope (fresh 96-bit nonce per write). */
export function sealDoc(doc: ControlDoc, key: Buffer | undefined): Buffer {
  const plain = Buffer.from(JSON.stringify(doc));
  if (!key) return plain;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(AAD);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  const env: Envelope = {
    format: 'svc-control-encrypted',
    v: 1,
    alg: 'AES-256-GCM',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  return Buffer.from(JSON.stringify(env));
}

export interface OpenedDoc {
  doc: ControlDoc;
  /** The stored form was plain JSON (encryption was off when it was written). */
  wasPlain: boolean;
}

/**
 * Reads a stored document. `key` undefined means SVC_CONTROL_ENCRYPTION=off.
 * Throws ControlError with the reason and the remedy; never guesses.
 */
export function openDoc(raw: Buffer, key: Buffer | undefined, location: string): OpenedDoc {
  let outer: { format?: unknown };
  try {
    outer = JSON.parse(raw.toString('utf8')) as { format?: unknown };
  } catch (e) {
    throw new ControlError(
      `cannot read the control plane at ${location}: the file is not valid JSON (corrupt?); it was left untouched`,
      { cause: e },
    );
  }
  if (outer?.format === 'svc-control') return { doc: checkDoc(outer, location), wasPlain: true };
  if (outer?.format !== 'svc-control-encrypted') {
    throw new ControlError(`cannot read the control plane at ${location}: unknown format; it was left untouched`);
  }
  if (!key) {
    throw new ControlError(
      `the control plane at ${location} is encrypted but SVC_CONTROL_ENCRYPTION=off: every node needs the same SVC_CONTROL_ENCRYPTION setting`,
    );
  }
  const env = outer as Envelope;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(env.iv, 'base64')).setAAD(AAD);
    decipher.setAuthTag(Buffer.from(env.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(env.data, 'base64')), decipher.final()]);
  } catch (e) {
    throw new ControlError(
      `cannot decrypt the control plane at ${location}: the control key (SVC_CONTROL_KEY_PATH) does not match the one it was written with, or the file is corrupt; every node needs the same control key. The file was left untouched`,
      { cause: e },
    );
  }
  return { doc: checkDoc(JSON.parse(plain.toString('utf8')), location), wasPlain: false };
}

function checkDoc(v: unknown, location: string): ControlDoc {
  const d = v as Partial<ControlDoc>;
  const ok =
    d &&
    d.format === 'svc-control' &&
    typeof d.version === 'number' &&
    Array.isArray(d.users) &&
    Array.isArray(d.apiKeys) &&
    Array.isArray(d.ingestTokens) &&
    Array.isArray(d.envs);
  if (!ok)
    throw new ControlError(
      `cannot read the control plane at ${location}: the document is incomplete (corrupt?); it was left untouched`,
    );
  // fields added after a document was first written get their empty value
  // pending SAML requests (`saml.requests`) were stored here once; they no longer are (auth/saml/binding.ts)
  const doc = {
    revokedSessions: [],
    settings: {},
    monitors: [],
    ...d,
    saml: { assertions: d.saml?.assertions ?? [] },
  } as ControlDoc;
  migrateKeyOwners(doc);
  return doc;
}
