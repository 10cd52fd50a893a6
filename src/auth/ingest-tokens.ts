import type { Clock } from '../clock/clock.js';
import { checkName } from '../control/envs.js';
import type { IngestTokenRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import { INGEST_TOKEN_PREFIX, newId, newSecret, type SecretHasher } from './secrets.js';
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
export class IngestTokens {
  constructor(
    private readonly control: ControlStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly usage: UsageTracker,
  ) {}

  async create(input: { name: string; env: string; index?: string }, createdBy: string): Promise<IngestTokenView & { secret: string }> {
    checkName('env', input.env);
    if (input.index !== undefined) checkName('index', input.index);
    const secret = newSecret(INGEST_TOKEN_PREFIX);
    const record: IngestTokenRecord = {
      id: newId(),
      name: input.name,
      env: input.env,
      createdBy,
      createdAt: new Date(this.clock.now()).toISOString(),
      lastUsedAt: null,
      disabled: false,
      secretHmac: this.hasher.hmac(secret),
      lastFour: secret.slice(-4),
    };
    if (input.index !== undefined) record.index = input.index;
    await this.control.mutate((doc) => {
      if (!doc.envs.some((e) => e.name === input.env)) {
        throw new SvcError('unknown_environment', `unknown environment: "${input.env}"`, { details: { field: 'env' } });
      }
      if (doc.ingestTokens.length >= MAX_INGEST_TOKENS) throw new SvcError('limit_reached', `cannot create more than ${MAX_INGEST_TOKENS} ingest tokens`);
      if (doc.ingestTokens.some((t) => t.name === input.name)) {
        throw new SvcError('already_exists', `an ingest token named "${input.name}" already exists`, { details: { field: 'name' } });
      }
      doc.ingestTokens.push(record);
    });
    return { ...this.view(record), secret };
  }

  list(): IngestTokenView[] {
    return this.control.doc.ingestTokens.map((t) => this.view(t));
  }

  get(id: string): IngestTokenView {
    return this.view(this.find(id));
  }

  async setDisabled(id: string, disabled: boolean): Promise<IngestTokenView> {
    this.find(id);
    const rec = await this.control.mutate((doc) => {
      const t = doc.ingestTokens.find((x) => x.id === id);
      if (!t) throw notFound(id);
      t.disabled = disabled;
      return t;
    });
    return this.view(rec);
  }

  async delete(id: string): Promise<void> {
    this.find(id);
    await this.control.mutate((doc) => {
      doc.ingestTokens = doc.ingestTokens.filter((t) => t.id !== id);
    });
    this.usage.forget(id);
  }

  private find(id: string): IngestTokenRecord {
    const t = this.control.doc.ingestTokens.find((x) => x.id === id);
    if (!t) throw notFound(id);
    return t;
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

function notFound(id: string): SvcError {
  return new SvcError('not_found', `no ingest token with id "${id}"`);
}
