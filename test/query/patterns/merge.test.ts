import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeShapes, similarity, unifyWord, type Shape } from '../../../src/query/patterns/merge.js';
import { maskedWords } from '../../../src/query/patterns/tokens.js';

const shape = (text: string, count = 1, group = ''): Shape<string> => ({
  group,
  words: maskedWords(text),
  count,
  data: text,
});
const templates = (shapes: Shape<string>[]) =>
  mergeShapes(shapes)
    .map((t) => [t.words.join(' '), t.count] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));

describe('merging shapes into templates', () => {
  it('compares the positions where either side holds a word, giving up below the threshold', () => {
    assert.equal(similarity(['a', 'b', 'c', 'd', '<*>', 'f'], ['a', 'b', 'c', 'd', '<*>', 'x']), 0.8);
    assert.equal(similarity(['a', 'b', 'c', '<*>'], ['a', 'b', 'c', 'd']), 0.75);
    assert.equal(similarity(['<*>'], ['<*>']), 1);
    assert.equal(similarity(['a', 'b', 'c'], ['a', 'x', 'y']), 0);
  });

  it('keeps the punctuation that frames a value when two words differ', () => {
    assert.equal(unifyWord('rhost=10.0.0.1', 'rhost=example.com'), 'rhost=<*>');
    assert.equal(unifyWord('[alice]', '[bob]'), '[<*>]');
    assert.equal(unifyWord('/dev/sda', '/dev/sdb'), '/dev/<*>');
    assert.equal(unifyWord('sda', 'sdb'), '<*>');
    assert.equal(unifyWord('user=<*>', 'user=bob'), 'user=<*>');
    assert.equal(unifyWord('<*>', 'bob'), '<*>');
    assert.equal(unifyWord('a<*>', 'a>'), '<*>');
  });

  it('turns the words that vary into <*> and adds up the counts', () => {
    const users = ['root', 'admin', 'test', 'oracle', 'guest'];
    const t = templates(users.map((u, i) => shape(`Failed password for ${u} from 10.0.0.${i} port 22 ssh2`, 10 - i)));
    assert.deepEqual(t, [['Failed password for <*> from <*> port <*> ssh2', 40]]);
  });

  it('keeps apart messages that differ in a position holding only a few plain words', () => {
    const t = templates([
      ...['root', 'admin', 'test', 'oracle'].map((u) =>
        shape(`Failed password for ${u} from 10.0.0.1 port 22 ssh2`, 5),
      ),
      shape('Accepted password for fred from 10.0.0.2 port 22 ssh2'),
    ]);
    assert.deepEqual(t, [
      ['Failed password for <*> from <*> port <*> ssh2', 20],
      ['Accepted password for fred from <*> port <*> ssh2', 1],
    ]);
  });

  it('never merges messages of different word counts, or of different groups', () => {
    assert.equal(mergeShapes([shape('user a logged in'), shape('user a logged in twice')]).length, 2);
    assert.equal(mergeShapes([shape('user a logged in', 1, 'x'), shape('user b logged in', 1, 'y')]).length, 2);
  });

  it('starts a new template below the similarity threshold', () => {
    assert.equal(mergeShapes([shape('disk sda is full now'), shape('link eth0 is down now')]).length, 2);
  });

  it('joins shapes with the same words, however many templates share their bucket', () => {
    const names = Array.from({ length: 3000 }, (_, i) =>
      i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]),
    );
    const shapes = names.flatMap((n) => [shape(`Dec ${n}`, 2), shape(`Jan ${n}`, 1)]);
    const ts = mergeShapes(shapes);
    assert.equal(ts.length, names.length);
    assert.ok(ts.every((t) => t.count === 3 && t.shapes.length === 2 && t.words[0] === '<*>'));
  });

  it('puts every shape in exactly one template, the most common shape first', () => {
    const shapes = Array.from({ length: 200 }, (_, i) =>
      shape(
        `job ${['alpha', 'beta', 'gamma', 'delta', 'omega'][i % 5]}${i % 7 ? '' : 'x'} step ${i} of ${i % 3 ? 'load' : 'save'} done`,
        1 + (i % 4),
      ),
    );
    const ts = mergeShapes(shapes);
    const seen = ts.flatMap((t) => t.shapes.map((s) => s.data));
    assert.deepEqual([...seen].sort(), shapes.map((s) => s.data).sort());
    for (const t of ts) {
      assert.equal(
        t.count,
        t.shapes.reduce((n, s) => n + s.count, 0),
      );
      assert.ok(t.shapes.every((s, i) => i === 0 || s.count <= t.shapes[i - 1].count));
    }
  });
});
