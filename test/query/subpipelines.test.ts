import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * foreach, appendpipe, multisearch and appendcols over fields stored with the events (auditd-like
 * EXECVE records whose arguments are a0, a1…, as the corpus's Linux auditd detections read them),
 * half the events sealed and half live. The store's columns span every event it holds, so these
 * check what depends on which fields the rows themselves have.
 */
const T0 = Date.UTC(2024, 4, 1);
type Fields = Record<string, string | number>;
const RECORDS: Fields[] = [
  { type: 'EXECVE', argc: 3, a0: 'setcap', a1: 'cap_setuid+ep', a2: '/usr/bin/python3' },
  { type: 'EXECVE', argc: 2, a0: 'ls', a1: '-la' },
  { type: 'SYSCALL', arch: 'c000003e', auid: 1000, syscall: 59 },
  { type: 'EXECVE', argc: 1, a0: 'id' },
  { type: 'SYSCALL', arch: 'c000003e', auid: 0, syscall: 59 },
  { type: 'PROCTITLE', proctitle: 'bash', a9: 'only here' },
];
const EVENTS: LogEvent[] = RECORDS.map((fields, i) => ({
  timeUs: (T0 + i * 60_000) * 1000,
  env: 'default',
  index: fields.type === 'PROCTITLE' ? 'other' : 'audit',
  host: `h${i % 2}`,
  source: 'audit.log',
  sourcetype: 'linux:audit',
  message: `type=${fields.type} msg=audit(${i})`,
  fields,
}));
const execve = RECORDS.filter((r) => r.type === 'EXECVE');
/** The record's a<N> arguments in the order of their names, as foreach a* visits them (argc among them). */
const argsOf = (r: Fields) =>
  Object.keys(r)
    .filter((k) => k.startsWith('a'))
    .sort()
    .map((k) => String(r[k]));

describe('bracketed pipelines over stored fields', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 1000 });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    await writeHalfSealed(st.engine, EVENTS);
  });
  after(() => st?.close());

  it('foreach a* joins the arguments as the corpus macro linux_auditd_normalized_execve_process does', async () => {
    // the macro as the corpus defines it, then a table of what it made
    const r = await search(
      'index=audit type=EXECVE | eval relevant_fields=if(type="EXECVE", "", relevant_fields) ' +
        '| foreach a* [eval relevant_fields=if(type="EXECVE", mvappend(relevant_fields, \'<<FIELD>>\'), relevant_fields)] ' +
        '| eval process_exec=if(type="EXECVE", mvjoin(relevant_fields, " "), process_exec) ' +
        '| eval process_exec=if(type="EXECVE", trim(process_exec), process_exec) | sort _time | table relevant_fields, process_exec',
    );
    assert.deepEqual(
      r.rows,
      execve.map((x) => [['', ...argsOf(x)], argsOf(x).join(' ')]),
    );
  });

  it('foreach visits the fields some row has, not every column of the store', async () => {
    // arch and auid come from SYSCALL events and a9 from another index: EXECVE rows never see them
    const r = await search(
      'index=audit type=EXECVE | foreach a* [eval names=mvappend(names, "<<FIELD>>")] | table names',
    );
    const names = [...new Set(execve.flatMap((x) => Object.keys(x).filter((k) => k.startsWith('a'))))].sort();
    assert.deepEqual(
      r.rows,
      execve.map(() => [names]),
    );
    const none = await search(
      'index=audit type=SYSCALL | foreach a0 a1 [eval names=mvappend(names, "<<FIELD>>")] | table names',
    );
    assert.deepEqual(none.rows, [[null], [null]]);
  });

  it('append and appendcols after stats read stored fields only their subsearch names', async () => {
    const r = await search('index=audit | stats count as n | append [search index=audit argc>1 | stats count as e]');
    assert.deepEqual(r.rows, [
      [RECORDS.filter((x) => x.type !== 'PROCTITLE').length, null],
      [null, execve.filter((x) => Number(x.argc) > 1).length],
    ]);
    const c = await search(
      'index=audit | stats count as n | appendcols [search index=audit | stats sum(auid) as auids]',
    );
    assert.deepEqual(c.rows, [[RECORDS.filter((x) => x.type !== 'PROCTITLE').length, 1000]]);
  });

  it('multisearch: the pipes after it read stored fields the searches do not name', async () => {
    const s = await search(
      '| multisearch [search index=audit type=EXECVE] [search index=other] | stats sum(argc) as args, values(proctitle) as p',
    );
    assert.deepEqual(s.rows, [[execve.reduce((a, x) => a + Number(x.argc), 0), ['bash']]]);
  });

  it('appendpipe runs over the rows before it, from a generating command when one starts it', async () => {
    const r = await search(
      'index=audit | stats count by type | appendpipe [stats sum(count) as count | eval type="all"]',
    );
    assert.deepEqual(r.rows, [
      ['EXECVE', 3],
      ['SYSCALL', 2],
      ['all', 5],
    ]);
    const g = await search(
      'index=audit | stats count by type | appendpipe [| makeresults count=2 | eval type="made" | fields type]',
    );
    assert.deepEqual(g.rows, [
      ['EXECVE', 3],
      ['SYSCALL', 2],
      ['made', null],
      ['made', null],
    ]);
  });
});
