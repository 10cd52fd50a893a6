import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { MIN_PASSWORD_LENGTH } from './passwords.js';
import { ALLOW_ALL } from './principal.js';
import { randomBase62 } from './secrets.js';
import type { AuthService } from './service.js';
import { ADMIN_USERNAME } from './users.js';

/**
 * First start: creates the `admin` user with SVC_ADMIN_PASSWORD, or a generated password printed
 * once through `print` (stdout, never the log). With SVC_ADMIN_RESET=1 and SVC_ADMIN_PASSWORD:
 * resets the admin password and ends every session. Answers whether it reset.
 */
export async function bootstrapAdmin(
  auth: AuthService,
  config: Readonly<Config>,
  log: Logger,
  print: (line: string) => void,
): Promise<boolean> {
  const existing = auth.users.byUsername(ADMIN_USERNAME);
  // checked only when it is used: a short one left in the environment of a running deployment is harmless
  const using = !existing || config.adminReset;
  if (using && config.adminPassword !== undefined && config.adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw new SvcError('invalid_input', `SVC_ADMIN_PASSWORD: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (!existing) {
    const password = config.adminPassword ?? randomBase62(18);
    try {
      await auth.users.create({ username: ADMIN_USERNAME, password, role: 'admin', allow: { ...ALLOW_ALL } });
    } catch (e) {
      // another node sharing the store created it first: theirs is the admin, and this password is not
      if (!isSvcError(e) || e.code !== 'already_exists') throw e;
      log.info({ user: ADMIN_USERNAME }, 'another node created the admin user first');
      return false;
    }
    if (config.adminPassword) log.info({ user: ADMIN_USERNAME }, 'created the admin user with SVC_ADMIN_PASSWORD');
    else
      print(
        `svc: created user "${ADMIN_USERNAME}" with password ${password} (shown once; change it under Admin → Users)`,
      );
    return false;
  }
  if (!config.adminReset) return false;
  if (!config.adminPassword) {
    throw new SvcError('invalid_input', 'SVC_ADMIN_RESET=1 needs SVC_ADMIN_PASSWORD: the new admin password');
  }
  await auth.users.update(existing.id, { password: config.adminPassword, role: 'admin' });
  await auth.revokeAllSessions();
  log.warn(
    { user: ADMIN_USERNAME },
    'admin password reset and every session revoked; unset SVC_ADMIN_RESET now, or each restart resets it again',
  );
  return true;
}
