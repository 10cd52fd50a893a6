import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Debian's rsyslogd (installed by .ci/run) run in the foreground with its own configuration, work
 * directory and pid file: no imuxsock (/dev/log is left alone), no imklog, only imfile reading the
 * test's own copy of a real log file. Each test starts its own daemon and stops it with SIGTERM.
 */

export const RSYSLOGD = '/usr/sbin/rsyslogd';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');

/** Why the rsyslog tests cannot run here (no rsyslogd, a missing module), or undefined. */
export function rsyslogSkipReason(modules: string[] = []): string | undefined {
  if (!existsSync(RSYSLOGD))
    return `${RSYSLOGD} is not installed (Debian packages rsyslog, rsyslog-elasticsearch, rsyslog-relp; .ci/run installs them)`;
  const dir = mkdtempSync(join(tmpdir(), 'svc-rsyslog-check-'));
  // -N1 refuses a configuration without an action: one that writes nothing anywhere
  const conf = modules.map((m) => `module(load="${m}")\n`).join('') + `action(type="omfile" file="${dir}/unused")\n`;
  writeFileSync(join(dir, 'check.conf'), conf);
  const r = spawnSync(RSYSLOGD, ['-N1', '-f', join(dir, 'check.conf')], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  // warnings (imfile without files) make -N1 exit non-zero: only a module that did not load counts
  const said = `${r.stdout}${r.stderr}`;
  if (r.error || /could not load module|module .* not found/i.test(said))
    return `rsyslogd cannot load ${modules.join(', ')}: ${r.error?.message ?? said.trim()}`;
  return undefined;
}

/** A real Loghub file's lines, or undefined when SVC_REAL_DATA lacks it. */
export function realLines(rel: string): string[] | undefined {
  const path = join(DATA, rel);
  if (!existsSync(path)) return undefined;
  // the files end their lines with CRLF; imfile splits on LF and would send the CR as "#015"
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '');
}

/** Writes lines as an LF-terminated file for imfile (which leaves an unterminated last line unread). */
export function writeLines(path: string, lines: string[]): void {
  writeFileSync(path, lines.map((l) => l + '\n').join(''));
}

export interface RsyslogDaemon {
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Writes `conf` (whose work directory should be `${dir}/work`) and runs `rsyslogd -n` on it.
 * TZ=UTC, so RFC 3164's zone-less local time is what svc assumes (SVC_TIMEZONE's default).
 */
export function startRsyslog(dir: string, conf: string): RsyslogDaemon {
  mkdirSync(join(dir, 'work'), { recursive: true });
  writeFileSync(join(dir, 'rsyslog.conf'), conf);
  // rsyslogd starts despite a bad parameter (it leaves it out): a test must not run on half a config
  const check = spawnSync(RSYSLOGD, ['-N1', '-f', join(dir, 'rsyslog.conf')], { encoding: 'utf8', env: { TZ: 'UTC' } });
  const said = `${check.stdout}${check.stderr}`;
  if (/error during parsing|not known|could not load|invalid/i.test(said))
    throw new Error(`rsyslogd refuses its configuration:\n${said}\n${conf}`);
  const child = spawn(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The global settings and imfile input every test uses: `file` is read from its start, tagged `tag`. */
export function imfileConf(dir: string, opts: { host: string; file: string; tag: string; ruleset: string }): string {
  return `global(workDirectory="${dir}/work" localHostname="${opts.host}")
module(load="imfile")
input(type="imfile" file="${opts.file}" tag="${opts.tag}:" facility="local0" severity="info" ruleset="${opts.ruleset}")
`;
}

/**
 * Counts of each line: `found` against `sent` (both multisets of message texts). Answers the lines
 * missing and the extra copies (duplicates) so a test can print and assert them.
 */
export function compareLines(
  sent: string[],
  found: string[],
): { missing: string[]; duplicates: number; unexpected: string[] } {
  const want = new Map<string, number>();
  for (const l of sent) want.set(l, (want.get(l) ?? 0) + 1);
  const got = new Map<string, number>();
  for (const l of found) got.set(l, (got.get(l) ?? 0) + 1);
  const missing: string[] = [];
  const unexpected: string[] = [];
  let duplicates = 0;
  for (const [l, n] of want) for (let i = got.get(l) ?? 0; i < n; i++) missing.push(l);
  for (const [l, n] of got) {
    const w = want.get(l);
    if (w === undefined) unexpected.push(l);
    else if (n > w) duplicates += n - w;
  }
  return { missing, duplicates, unexpected };
}

export interface StoredEvent {
  time: string;
  host: string;
  source: string;
  message: string;
  fields: Record<string, unknown>;
}

/** Every event of `q` in env/index through GET /api/export (NDJSON), over the last and next hour. */
export async function exportAll(
  url: string,
  key: string,
  p: { q: string; env: string; index: string },
): Promise<StoredEvent[]> {
  const now = Date.now();
  const qs = new URLSearchParams({
    ...p,
    format: 'ndjson',
    max: '1000000',
    from: new Date(now - 3_600_000).toISOString(),
    to: new Date(now + 3_600_000).toISOString(),
  });
  const res = await fetch(`${url}/api/export?${qs}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`export ${qs}: ${res.status} ${text}`);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as StoredEvent);
}

/**
 * Polls the export until it holds at least `want` events and then stays unchanged for a moment
 * (late duplicates would show), or until it stops growing for `stallMs`. Answers the last export;
 * the caller asserts on it, never on how long this took.
 */
export async function waitForEvents(
  fetchAll: () => Promise<StoredEvent[]>,
  want: number,
  stallMs = 30_000,
): Promise<StoredEvent[]> {
  let last: StoredEvent[] = [];
  let grewAt = Date.now();
  let doneAt: number | undefined;
  for (;;) {
    const now = await fetchAll();
    if (now.length !== last.length) {
      grewAt = Date.now();
      doneAt = undefined;
    }
    last = now;
    if (last.length >= want) {
      doneAt ??= Date.now();
      if (Date.now() - doneAt >= 1500) return last;
    } else if (Date.now() - grewAt > stallMs) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * imfile → omelasticsearch to svc's `/_bulk`, as README's rsyslog section configures it (docs/shippers.md
 * explains each line). The document is built in `$!` and sent with a subtree template: an item
 * svc answers 429 comes back through `retryruleset` with `$!` parsed from the document it sent
 * (and `$.omes` set), so the same template sends it whole again; a template over `%hostname%` or
 * `%programname%` would send the retried copy without them. `ratelimit.interval="0"`: retries are
 * otherwise limited to 20,000 per 10 minutes and the rest dropped.
 */
export function omelasticsearchConf(
  dir: string,
  o: { host: string; file: string; tag: string; url: string; token: string; index: string; queue?: string },
): string {
  const u = new URL(o.url);
  return `${imfileConf(dir, { host: o.host, file: o.file, tag: o.tag, ruleset: 'svc_es' })}module(load="omelasticsearch")
template(name="svc_doc" type="subtree" subtree="$!")
template(name="svc_time" type="string" string="%timereported:::date-rfc3339%")
ruleset(name="svc_es") {
  if strlen($.omes!status) == 0 then {
    set $!@timestamp = exec_template("svc_time");
    set $!host = $hostname;
    set $!source = $programname;
    set $!message = $msg;
  } else if $.omes!status != 429 then {
    # refused for good (400: a bad document): keep it aside instead of retrying it forever
    action(type="omfile" file="${dir}/refused.json" template="svc_doc")
    stop
  }
  action(type="omelasticsearch" server="${u.hostname}" serverport="${u.port}" usehttps="off"
         uid="svc" pwd="${o.token}" searchIndex="${o.index}" template="svc_doc" bulkmode="on"
         retryfailures="on" retryruleset="svc_es" ratelimit.interval="0"
         action.resumeRetryCount="-1"${o.queue ? ` ${o.queue}` : ''})
}
`;
}

/**
 * The omrelp action docs/shippers.md shows: RFC 5424 to svc's RELP listener, retried forever
 * (`action.resumeRetryCount="-1"`), reconnecting each second; `extra` adds queue parameters.
 * omrelp keeps every message svc has not answered and sends it again after a reconnect.
 */
export function omrelpAction(o: { port: number; extra?: string }): string {
  return `action(type="omrelp" target="127.0.0.1" port="${o.port}" template="RSYSLOG_SyslogProtocol23Format" action.resumeRetryCount="-1" action.resumeInterval="1"${o.extra ? ` ${o.extra}` : ''})`;
}
