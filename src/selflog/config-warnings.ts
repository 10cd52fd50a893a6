import type { Config } from '../config/load.js';

export interface ConfigWarning {
  setting: string;
  message: string;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * Settings that are valid but deserve an operator's attention; recorded at start as
 * `config_warning` events in `_svclogs` (and by server.ts in the process log). Pure.
 */
export function configWarnings(c: Readonly<Config>): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  if (!c.controlEncryption)
    out.push({
      setting: 'SVC_CONTROL_ENCRYPTION',
      message: 'the control plane (users, key hashes, settings) is stored unencrypted',
    });
  if (!isLoopback(c.listen.host) && !c.tls && c.trustedProxies.length === 0)
    out.push({
      setting: 'SVC_LISTEN',
      message: `listening on ${c.listen.host} over plain HTTP: put a TLS proxy in front so keys and sessions are not sent in clear`,
    });
  if (c.adminReset)
    out.push({
      setting: 'SVC_ADMIN_RESET',
      message: 'the admin password is reset at every start while this is set: unset it after this start',
    });
  if (c.llm && !c.llm.model)
    out.push({ setting: 'SVC_LLM_MODEL', message: 'SVC_LLM_URL is set without a model: the provider default is used' });
  if ((c.syslogTcp || c.syslogUdp || c.syslogRelp) && !c.syslogToken)
    out.push({
      setting: 'SVC_SYSLOG_TOKEN',
      message: 'a syslog listener is on without an ingest token: syslog events have no env to go to',
    });
  if (c.testClockOffsetSecs !== 0)
    out.push({
      setting: 'SVC_TEST_CLOCK_OFFSET_SECS',
      message: `test setting active: the clock is shifted by ${c.testClockOffsetSecs} s`,
    });
  if (c.testWeakPasswordHashes)
    out.push({
      setting: 'SVC_TEST_WEAK_PASSWORD_HASHES',
      message: 'test setting active: login hashes are made at a cost cheap to guess (tests only)',
    });
  if (c.testHoldWriter)
    out.push({
      setting: 'SVC_TEST_HOLD_WRITER',
      message: 'test setting active: the block writer is held and ingest will stall',
    });
  return out;
}
