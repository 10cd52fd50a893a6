import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { decodeText } from '../../src/ingest/native/decode.js';
import { timeContext } from '../../src/events/timestamp.js';

/**
 * The real Apache access log and OpenSSH log, for the Splunk-language tests that check answers
 * against their own reading of the raw lines. Read in place from SVC_REAL_DATA, never copied.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REAL_DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
export const REAL_LOGS_PRESENT =
  existsSync(join(REAL_DATA, 'elastic-examples-apache')) && existsSync(join(REAL_DATA, 'loghub'));

export const REAL_LOGS = {
  apache: 'elastic-examples-apache/apache_access_combined.log',
  ssh: 'loghub/OpenSSH/OpenSSH_2k.log',
};

/** A real file's non-blank lines. */
export const realLines = (file: string): string[] =>
  readFileSync(join(REAL_DATA, file), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim().length > 0);

/**
 * Both logs stored twice in one engine: sealed into blocks (indexes `apache_sealed`, `ssh_sealed`)
 * and live (`apache_live`, `ssh_live`), since the two are read by different code. Sourcetypes
 * `access_combined` and `linux:secure`, host `h`, source the file's path.
 */
export async function storeSealedAndLive(): Promise<{ st: TestStorage; svc: QueryService }> {
  const st = await openStorage({ tuning: { merge: false } });
  const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
  const ctx = timeContext('UTC', st.clock.now());
  const decode = (file: string, index: string, sourcetype: string) =>
    decodeText(
      Buffer.from(realLines(file).join('\n')),
      { env: 'default', index, host: 'h', source: file, sourcetype, timeUs: st.clock.now() * 1000 },
      ctx,
    ).events;
  const copy = (suffix: string) => [
    ...decode(REAL_LOGS.apache, `apache_${suffix}`, 'access_combined'),
    ...decode(REAL_LOGS.ssh, `ssh_${suffix}`, 'linux:secure'),
  ];
  await st.engine.writer.write(copy('sealed'), { wait: true });
  await st.engine.flush();
  await st.engine.writer.write(copy('live'), { wait: true });
  return { st, svc };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A combined-format access line as the tests read it themselves, fields as written ("-" kept). */
export interface AccessLine {
  line: string;
  /** Epoch ms of the bracketed time, its offset applied. */
  ms: number;
  clientip: string;
  /** Absent for a request line that is not `METHOD uri …`. */
  method?: string;
  uri?: string;
  status: string;
  bytes: string;
  referer?: string;
  /** Absent when the line's user agent is cut off (one line of the real file). */
  useragent?: string;
}

/** The test's own reading of an Apache combined-format line (a regex, never svc's parser), or undefined. */
export function accessLine(line: string): AccessLine | undefined {
  const m =
    /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\] "(?:([A-Z]+) (\S+)[^"]*|[^"]*)" (\d{3}) (\S+)(?: "([^"]*)"(?: "([^"]*)")?)?/.exec(
      line,
    );
  if (!m) return undefined;
  const off = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) * 60_000;
  const ms = Date.UTC(Number(m[4]), MONTHS.indexOf(m[3]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])) - off;
  return {
    line,
    ms,
    clientip: m[1],
    method: m[11],
    uri: m[12],
    status: m[13],
    bytes: m[14],
    referer: m[15],
    useragent: m[16],
  };
}
