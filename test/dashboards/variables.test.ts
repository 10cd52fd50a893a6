import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from '../../src/query/parser.js';
import { SvcError } from '../../src/errors/svc-error.js';
import { findLoop, references, substitute, type VarValue } from '../../src/dashboards/variables.js';

const missing = (r: { name: string }) => new SvcError('invalid_input', `no value for ${r.name}`);
const sub = (t: string, vars: Record<string, VarValue>) => substitute(t, new Map(Object.entries(vars)), missing);

describe('dashboard variables', () => {
  const cases: [string, Record<string, VarValue>, string][] = [
    ['host=$host$ error', { host: 'web-1' }, 'host="web-1" error'],
    ['host=$host$', { host: 'a" | delete' }, 'host="a\\" | delete"'],
    ['host=$host$', { host: 'back\\slash' }, 'host="back\\\\slash"'],
    ['host=$h$ | stats count', { h: ['web-1', 'web-2'] }, 'host IN ("web-1", "web-2") | stats count'],
    ['host != $h$', { h: ['a', 'b'] }, 'NOT host IN ("a", "b")'],
    ['"user name"=$h$', { h: ['a', 'b'] }, '"user name" IN ("a", "b")'],
    ['$h$ | stats count', { h: ['a', 'b'] }, '("a" OR "b") | stats count'],
    ['x>=$h$', { h: ['1'] }, 'x>="1"'],
    ['"on $host$ now"', { host: 'a"b' }, '"on a\\"b now"'],
    ["* | where 'f$host$'=1", { host: 'x' }, "* | where 'f$host$'=1"],
    ['cost$$ $$host$$', {}, 'cost$ $host$'],
    ['a $ b $1$ $not closed', {}, 'a $ b $1$ $not closed'],
  ];
  for (const [template, vars, want] of cases) {
    it(`writes ${template} with ${JSON.stringify(vars)} as ${want}`, () => {
      const s = sub(template, vars);
      assert.equal(s.text, want);
      assert.equal(s.origin.length, s.text.length);
    });
  }

  it('never lets a value become query syntax: any string stays the one value of its filter', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (v) => {
        const q = parse(sub('host=$v$ | stats count', { v }).text);
        assert.equal(q.pipes.length, 1);
        assert.deepEqual(q.search, { kind: 'field', field: 'host', op: '=', value: v, quoted: true });
      }),
      { seed: 30, numRuns: 500 },
    );
  });

  it('maps each output character back to the template, a value to where its reference starts', () => {
    const s = sub('ab $x$ | cd', { x: 'long value' });
    assert.equal(s.origin[s.text.indexOf('|')], 7);
    assert.equal(s.origin[s.text.indexOf('long')], 3);
  });

  it('finds references, and a name without a value is the caller’s error', () => {
    assert.deepEqual(
      references('a=$a$ "$b$" $$c$$').map((r) => [r.name, r.position, r.quoted]),
      [
        ['a', 2, false],
        ['b', 7, true],
      ],
    );
    assert.throws(() => sub('x=$nope$', {}), /no value for nope/);
  });

  it('finds a loop among variables and none where there is none', () => {
    const uses = (o: Record<string, string[]>) => new Map(Object.entries(o));
    assert.deepEqual(findLoop(uses({ a: ['b'], b: ['c'], c: ['a'] })), ['a', 'b', 'c', 'a']);
    assert.deepEqual(findLoop(uses({ a: ['a'] })), ['a', 'a']);
    assert.equal(findLoop(uses({ a: ['b', 'c'], b: ['c'], c: [] })), undefined);
  });
});
