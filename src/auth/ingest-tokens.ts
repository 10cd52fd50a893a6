import type { Clock } from '../clock/clock.js';
import { checkName } from '../control/envs.js';
import type { IngestTokenRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import { Credentials } from './credentials.js';
import { INGEST_TOKEN_PREFIX, type SecretHasher } from './secrets.js';
import type { UsageTracker } from './usage.js';

export const MAX_INGEST_TOKENS = 1000;

/** An ingest token as the admin API shows it: never the secret, only its last four characters. */
export interface IngestTokenView {
  id: string;
  name: string;
  env: string;
  index: string | null;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  state: 'enabled' | 'disabled';
  lastFour: string;
}

/** Management of ingest tokens (`svi_…`), each pinned to an existing env and optionally an index. */
export class IngestTokens extends Credentials<IngestTokenRecord, IngestTokenView> {
  constructor(control: ControlStore, hasher: SecretHasher, clock: Clock, usage: UsageTracker) {
    super(control, hasher, clock, usage, {
      list: 'ingestTokens',
      noun: 'ingest token',
      prefix: INGEST_TOKEN_PREFIX,
      max: MAX_INGEST_TOKENS,
    });
  }

  async create(
    input: { name: string; env: string; index?: string },
    createdBy: string,
  ): Promise<IngestTokenView & { secret: string }> {
    checkName('env', input.env);
    if (input.index !== undefined) checkName('index', input.index);
    const { secret, base } = this.fresh(input.name, createdBy);
    const record: IngestTokenRecord = {
      ...base,
      env: input.env,
      ...(input.index !== undefined ? { index: input.index } : {}),
    };
    return this.add(record, secret, (doc) => {
      if (!doc.envs.some((e) => e.name === input.env)) {
        throw new SvcError('unknown_environment', `unknown environment: "${input.env}"`, { details: { field: 'env' } });
      }
    });
  }

  view(t: IngestTokenRecord): IngestTokenView {
    return {
      id: t.id,
      name: t.name,
      env: t.env,
      index: t.index ?? null,
      createdBy: t.createdBy,
      createdAt: t.createdAt,
      lastUsedAt: this.usage.lastUsed(t.id) ?? t.lastUsedAt,
      state: t.disabled ? 'disabled' : 'enabled',
      lastFour: t.lastFour,
    };
  }
}
