import type { Clock } from '../clock/clock.js';
import type { Role, UserRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import { checkNewPassword, hashPassword, type HashPolicy } from './passwords.js';
import type { Allowlists } from './principal.js';
import { newId } from './secrets.js';

export const ADMIN_USERNAME = 'admin';
export const MAX_USERS = 10_000;

/** A user as the admin API shows it: never the password hash. */
export interface UserView {
  id: string;
  username: string;
  /** null: none (single sign-on then matches the user by name only). */
  email: string | null;
  role: Role;
  allow: Allowlists;
  state: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
}

export interface UserPatch {
  password?: string;
  role?: Role;
  allow?: Allowlists;
  /** null removes it. */
  email?: string | null;
}

/** Emails compare case-insensitively (single sign-on matches on them). */
export function sameEmail(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();
}

/** Local users. The `admin` user always exists (see bootstrap.ts) and cannot be deleted or demoted. */
export class Users {
  constructor(
    private readonly control: ControlStore,
    private readonly clock: Clock,
    private readonly hashPolicy: HashPolicy,
  ) {}

  list(): UserView[] {
    return this.control.doc.users.map(view);
  }

  get(id: string): UserView {
    return view(this.find(id));
  }

  byUsername(username: string): UserRecord | undefined {
    return this.control.doc.users.find((u) => u.username === username);
  }

  byEmail(email: string): UserRecord | undefined {
    return this.control.doc.users.find((u) => sameEmail(u.email, email));
  }

  async create(input: {
    username: string;
    password: string;
    role?: Role;
    allow?: Allowlists;
    email?: string;
  }): Promise<UserView> {
    checkNewPassword(input.password);
    const now = new Date(this.clock.now()).toISOString();
    const rec: UserRecord = {
      id: newId(),
      username: input.username,
      passwordHash: await hashPassword(input.password, this.hashPolicy),
      role: input.role ?? 'user',
      allow: input.allow ?? { envs: ['*'], indexes: ['*'], tools: ['*'] },
      ...(input.email ? { email: input.email } : {}),
      sessionEpoch: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.control.mutate((doc) => {
      if (doc.users.length >= MAX_USERS)
        throw new SvcError('limit_reached', `cannot create more than ${MAX_USERS} users`);
      if (doc.users.some((u) => u.username === input.username)) {
        throw new SvcError('already_exists', `a user named "${input.username}" already exists`, {
          details: { field: 'username' },
        });
      }
      uniqueEmail(doc.users, input.email, rec.id);
      doc.users.push(rec);
    });
    return view(rec);
  }

  /** A new password or role ends the user's sessions. */
  async update(id: string, patch: UserPatch): Promise<UserView> {
    const existing = this.find(id);
    if (existing.username === ADMIN_USERNAME && patch.role === 'user') {
      throw new SvcError('invalid_input', `role: the "${ADMIN_USERNAME}" user must stay an admin`, {
        details: { field: 'role' },
      });
    }
    if (patch.password !== undefined) checkNewPassword(patch.password);
    const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password, this.hashPolicy);
    const rec = await this.control.mutate((doc) => {
      const u = doc.users.find((x) => x.id === id);
      if (!u) throw notFound(id);
      if (passwordHash) u.passwordHash = passwordHash;
      if (patch.allow) u.allow = patch.allow;
      if (patch.email === null) delete u.email;
      else if (patch.email !== undefined) {
        uniqueEmail(doc.users, patch.email, u.id);
        u.email = patch.email;
      }
      if (passwordHash || (patch.role && patch.role !== u.role)) u.sessionEpoch++;
      if (patch.role) u.role = patch.role;
      u.updatedAt = new Date(this.clock.now()).toISOString();
      return u;
    });
    return view(rec);
  }

  /** A disabled user cannot log in and every session of theirs ends; `admin` cannot be disabled (nobody could undo it). */
  async setDisabled(id: string, disabled: boolean): Promise<UserView> {
    if (disabled && this.find(id).username === ADMIN_USERNAME) {
      throw new SvcError('invalid_input', `the "${ADMIN_USERNAME}" user cannot be disabled`, {
        details: { field: 'id' },
      });
    }
    const rec = await this.control.mutate((doc) => {
      const u = doc.users.find((x) => x.id === id);
      if (!u) throw notFound(id);
      if (disabled && !u.disabled) u.sessionEpoch++;
      if (disabled) u.disabled = true;
      else delete u.disabled;
      u.updatedAt = new Date(this.clock.now()).toISOString();
      return u;
    });
    return view(rec);
  }

  /**
   * Replaces a hash made at an older cost (passwords.ts needsRehash) after a login proved the
   * password. Sessions stay: the password is the same. Skipped when the hash changed meanwhile
   * (a password change raced the login).
   */
  async rehash(id: string, old: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password, this.hashPolicy);
    await this.control.mutate((doc) => {
      const u = doc.users.find((x) => x.id === id);
      if (u && u.passwordHash === old) u.passwordHash = passwordHash;
    });
  }

  /** "Sign out everywhere": every session of the user ends (on every node), this one included. */
  async endSessions(id: string): Promise<void> {
    await this.control.mutate((doc) => {
      const u = doc.users.find((x) => x.id === id);
      if (!u) throw notFound(id);
      u.sessionEpoch++;
    });
  }

  async delete(id: string): Promise<void> {
    const u = this.find(id);
    if (u.username === ADMIN_USERNAME)
      throw new SvcError('cannot_delete', `the "${ADMIN_USERNAME}" user cannot be deleted`);
    await this.control.mutate((doc) => {
      doc.users = doc.users.filter((x) => x.id !== id);
    });
  }

  private find(id: string): UserRecord {
    const u = this.control.doc.users.find((x) => x.id === id);
    if (!u) throw notFound(id);
    return u;
  }
}

export function view(u: UserRecord): UserView {
  return {
    id: u.id,
    username: u.username,
    email: u.email ?? null,
    role: u.role,
    allow: u.allow,
    state: u.disabled ? 'disabled' : 'enabled',
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

/** Two users with one email would make single sign-on ambiguous. */
function uniqueEmail(users: UserRecord[], email: string | undefined, self: string): void {
  if (email !== undefined && users.some((u) => u.id !== self && sameEmail(u.email, email))) {
    throw new SvcError('already_exists', `another user has the email "${email}"`, { details: { field: 'email' } });
  }
}

function notFound(id: string): SvcError {
  return new SvcError('not_found', `no user with id "${id}"`);
}
