import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ownerOf } from '../auth/acting-as.js';
import type { Principal } from '../auth/principal.js';
import { isAdmin, resolveSearchTargets } from '../auth/rbac.js';
import type { Clock } from '../clock/clock.js';
import type { ControlDoc, SavedSearchRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import type { SearchService } from '../query/types.js';
import { checkQuery, checkRange, checkTarget, DEFAULT_RANGE, DEFAULT_VIEW, type SavedFields } from './checks.js';
import { checkVersion, isOwner, mayEdit, mayView, visible } from '../auth/sharing.js';
import type {
  ListFilter,
  RunOverrides,
  SavedSearchInput,
  SavedSearchPatch,
  SavedSearchRun,
  SavedSearchView,
} from './types.js';

/** At most this many saved searches per owner, and in all: every one is part of the control-plane document. */
export const MAX_PER_OWNER = 200;
export const MAX_TOTAL = 5000;
/** A run within this long of the stored lastRunAt does not write it again: a busy search costs no write per run. */
export const USAGE_WRITE_EVERY_MS = 10_000;

const WHAT = 'saved search';

/**
 * Saved searches (docs/decisions/0023-saved-searches.md): kept in the control plane, so every node
 * sees them; private to their owner or shared read-only; run as the caller, with the caller's
 * access. Safe to call concurrently: every change goes through ControlStore.mutate, which applies it
 * to the latest document, also when another node wrote first.
 */
export class SavedSearchService {
  constructor(
    private readonly control: ControlStore,
    private readonly search: SearchService,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The caller's own and the shared ones (admins: with `all`, every one), most recently used first. */
  list(p: Principal, f: ListFilter = {}): SavedSearchView[] {
    if (f.all && !isAdmin(p))
      throw new SvcError('access_denied', "only admins may list others' private saved searches");
    const q = f.q?.toLowerCase();
    return stored(this.control.doc)
      .filter((s) => (f.all ? mayView(p, s) : isOwner(p, s) || s.shared))
      .filter((s) => !q || s.name.toLowerCase().includes(q))
      .filter((s) => !f.owner || s.owner.name === f.owner || s.owner.id === f.owner)
      .sort((a, b) =>
        a.lastUsedAt < b.lastUsedAt ? 1 : a.lastUsedAt > b.lastUsedAt ? -1 : a.name.localeCompare(b.name),
      )
      .map((s) => view(p, s));
  }

  get(p: Principal, id: string): SavedSearchView {
    return view(p, visible(p, stored(this.control.doc), id, WHAT));
  }

  async create(p: Principal, input: SavedSearchInput): Promise<SavedSearchView> {
    const owner = ownerOf(p);
    const fields = this.checked(p, input);
    const now = this.nowIso();
    const rec: SavedSearchRecord = {
      id: `ss_${randomBytes(9).toString('base64url')}`,
      ...fields,
      owner,
      version: 1,
      createdAt: now,
      updatedAt: now,
      lastRunAt: null,
      lastUsedAt: now,
    };
    await this.control.mutate((doc) => {
      const all = (doc.savedSearches ??= []);
      if (all.length >= MAX_TOTAL) throw new SvcError('limit_reached', `at most ${MAX_TOTAL} saved searches in all`);
      const own = all.filter((s) => s.owner.kind === owner.kind && s.owner.id === owner.id);
      if (own.length >= MAX_PER_OWNER)
        throw new SvcError('limit_reached', `at most ${MAX_PER_OWNER} saved searches each; delete one first`);
      uniqueName(own, rec.name);
      all.push(rec);
    });
    return view(p, rec);
  }

  /** Changes what `patch` names, if `patch.version` is still the stored version (else 409 version_conflict). */
  async update(p: Principal, id: string, patch: SavedSearchPatch): Promise<SavedSearchView> {
    const cur = visible(p, stored(this.control.doc), id, WHAT, true);
    checkVersion(cur, patch.version, WHAT);
    const fields = this.checked(p, patch, cur);
    const now = this.nowIso();
    const next = await this.control.mutate((doc) => {
      const all = doc.savedSearches ?? [];
      const i = all.findIndex((s) => s.id === id);
      if (i < 0) throw new SvcError('not_found', `no ${WHAT} ${id}`);
      // checked again on the latest document: another node may have changed it since it was read
      checkVersion(all[i], patch.version, WHAT);
      const o = all[i].owner;
      if (fields.name !== all[i].name)
        uniqueName(
          all.filter((s) => s.id !== id && s.owner.kind === o.kind && s.owner.id === o.id),
          fields.name,
        );
      all[i] = { ...all[i], ...fields, version: all[i].version + 1, updatedAt: now, lastUsedAt: now };
      if (fields.index === undefined) delete all[i].index;
      return all[i];
    });
    return view(p, next);
  }

  /** Deletes it; with `version`, only if it is still that version (an edit made meanwhile is not lost unseen). */
  async delete(p: Principal, id: string, version?: number): Promise<void> {
    checkVersion(visible(p, stored(this.control.doc), id, WHAT, true), version, WHAT);
    await this.control.mutate((doc) => {
      const all = doc.savedSearches ?? [];
      const i = all.findIndex((s) => s.id === id);
      if (i < 0) throw new SvcError('not_found', `no ${WHAT} ${id}`);
      checkVersion(all[i], version, WHAT);
      all.splice(i, 1);
    });
  }

  /** A private copy for the caller (any visible one, shared ones included), named `name` or "… (copy)". */
  async duplicate(p: Principal, id: string, name?: string): Promise<SavedSearchView> {
    const src = visible(p, stored(this.control.doc), id, WHAT);
    const owner = ownerOf(p);
    const taken = new Set(
      stored(this.control.doc)
        .filter((s) => s.owner.kind === owner.kind && s.owner.id === owner.id)
        .map((s) => s.name.toLowerCase()),
    );
    let copy = name;
    for (let n = 1; copy === undefined; n++) {
      const candidate = `${src.name.slice(0, 180)} (copy${n > 1 ? ` ${n}` : ''})`;
      if (!taken.has(candidate.toLowerCase())) copy = candidate;
    }
    const {
      id: _id,
      owner: _o,
      version: _v,
      createdAt: _c,
      updatedAt: _u,
      lastRunAt: _r,
      lastUsedAt: _l,
      ...rest
    } = src;
    return this.create(p, { ...rest, name: copy, shared: false });
  }

  /**
   * Runs it as the caller: their allowlists narrow `*` and refuse a named env they may not read,
   * exactly as GET /api/search would. The saved range unless the run overrides an end. Never writes.
   */
  async run(p: Principal, id: string, o: RunOverrides = {}): Promise<SavedSearchRun> {
    const s = visible(p, stored(this.control.doc), id, WHAT);
    const range = { from: o.from ?? s.range.from, to: o.to ?? s.range.to };
    const envs = resolveSearchTargets(
      p,
      s,
      this.control.envs().map((e) => e.name),
    ).envs;
    const result = await this.search.search(p, {
      q: s.query,
      env: s.env,
      index: s.index,
      from: range.from,
      to: range.to,
      limit: o.limit,
      signal: o.signal,
    });
    await this.recordRun(s.id);
    return { ...result, savedSearch: { id: s.id, name: s.name, version: s.version, view: s.view }, range, envs };
  }

  /**
   * A search run elsewhere (the UI's GET /api/search with `saved=<id>`) that was this saved search:
   * recorded as its run when the caller may read it and it ran the saved query, env and index as they
   * are (an edited query is another search). Opening one (reading it) is never a run. Never throws:
   * the search already has its answer.
   */
  async noteRun(p: Principal, id: string, ran: { q: string; env?: string; index?: string }): Promise<void> {
    const s = stored(this.control.doc).find((x) => x.id === id);
    if (!s || !mayView(p, s)) return;
    const same = s.query.trim() === ran.q.trim() && s.env === (ran.env ?? '*') && (s.index ?? '') === (ran.index ?? '');
    if (same) await this.recordRun(s.id);
  }

  /** Stores lastRunAt/lastUsedAt; a failure to store it never fails the run that has its answer. */
  private async recordRun(id: string): Promise<void> {
    const nowMs = this.clock.now();
    const cur = stored(this.control.doc).find((s) => s.id === id);
    if (cur?.lastRunAt && nowMs - Date.parse(cur.lastRunAt) < USAGE_WRITE_EVERY_MS) return;
    const now = new Date(nowMs).toISOString();
    try {
      await this.control.mutate((doc) => {
        const s = doc.savedSearches?.find((x) => x.id === id);
        // usage is not an edit: the version stays, so an editor's open form is not made stale by a run
        if (s) Object.assign(s, { lastRunAt: now, lastUsedAt: now > s.lastUsedAt ? now : s.lastUsedAt });
      });
    } catch (err) {
      this.log.warn({ err, savedSearch: id }, 'cannot record the run of a saved search');
    }
  }

  /** The fields to store: `input` over `base` (an edit), each changed one checked. */
  private checked(
    p: Principal,
    input: SavedSearchInput | Omit<SavedSearchPatch, 'version'>,
    base?: SavedSearchRecord,
  ): SavedFields {
    const f: SavedFields = {
      name: input.name ?? base?.name ?? '',
      description: input.description ?? base?.description ?? '',
      query: input.query ?? base?.query ?? '',
      env: input.env ?? base?.env ?? 'default',
      index: input.index === null ? undefined : (input.index ?? base?.index),
      range: input.range ?? base?.range ?? { ...DEFAULT_RANGE },
      view: input.view ?? base?.view ?? DEFAULT_VIEW,
      shared: input.shared ?? base?.shared ?? false,
    };
    if (!base || input.query !== undefined) checkQuery(f.query);
    if (!base || input.range !== undefined) checkRange(f.range, this.clock.now());
    // the one saving must be able to search what they save; an edit that keeps the target keeps it
    if (!base || input.env !== undefined || input.index !== undefined) checkTarget(p, f.env, f.index, this.control);
    return f;
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function stored(doc: Readonly<ControlDoc>): readonly SavedSearchRecord[] {
  return doc.savedSearches ?? [];
}

function view(p: Principal, s: SavedSearchRecord): SavedSearchView {
  return { ...s, mine: isOwner(p, s), canEdit: mayEdit(p, s) };
}

/** Names are unique per owner, in any case: two "Errors" in one list could not be told apart. */
function uniqueName(own: readonly SavedSearchRecord[], name: string): void {
  if (own.some((s) => s.name.toLowerCase() === name.toLowerCase()))
    throw new SvcError('already_exists', `name: you already have a saved search named "${name}"`, {
      details: { field: 'name' },
    });
}
