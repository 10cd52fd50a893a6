import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { joinWords, maskedWords, maskWord, MAX_WORDS, splitWords } from '../../../src/query/patterns/tokens.js';

describe('how patterns reads a message', () => {
  it('masks numbers, hex ids, addresses, times and UUIDs as one <*> each', () => {
    for (const w of [
      '22',
      '-5',
      '0x1f',
      '3fa9c1d2',
      '10.0.0.1',
      '10.251.73.220:50010',
      '06:55:46',
      '2024-05-01T10:00:00.123Z',
      '123e4567-e89b-12d3-a456-426614174000',
      'fe80::1ff:fe23:4567:890a',
    ]) {
      assert.equal(maskWord(w), '<*>', w);
    }
  });

  it('keeps the digits of a name and the text around a value', () => {
    assert.equal(maskWord('ssh2'), 'ssh2');
    assert.equal(maskWord('x86_64'), 'x86_<*>');
    assert.equal(maskWord('sshd[24200]:'), 'sshd[<*>]:');
    assert.equal(maskWord('blk_-6952295868487656571'), 'blk_<*>');
    assert.equal(maskWord('/10.250.19.102:54106'), '/<*>');
    assert.equal(maskWord('uid=0'), 'uid=<*>');
    assert.equal(maskWord('part-00283'), 'part-<*>');
    assert.equal(maskWord('password'), 'password');
  });

  it('masks month and day names, which split templates by date otherwise', () => {
    assert.deepEqual(['Dec', 'Mon', 'Decimal', 'dec', '[17/May/2015:10:05:03', 'Mayday1'].map(maskWord), [
      '<*>',
      '<*>',
      'Decimal',
      'dec',
      '[<*>',
      'Mayday1',
    ]);
  });

  it('cuts at white space and JSON quotes and braces, keeping the separators', () => {
    assert.deepEqual(splitWords(' a  b\tc '), { words: ['a', 'b', 'c'], seps: [' ', '  ', '\t', ' '] });
    assert.deepEqual(splitWords('{"ts":1.5,"uid":"C1"}').words, ['ts', ':1.5,', 'uid', ':', 'C1']);
    assert.deepEqual(splitWords(''), { words: [], seps: [''] });
    for (const t of ['a b', ' a b ', '{"x": [1, 2]}', 'one']) assert.equal(joinWords(splitWords(t)), t);
  });

  it('collapses a run of one masked word, keeping the separator after the run', () => {
    const w = maskedWords('Dec 10 06:55:46 LabSZ sshd[24200]: Failed');
    assert.equal(joinWords(w), '<*> LabSZ sshd[<*>]: Failed');
    assert.equal(joinWords(maskedWords('"GET / HTTP/1.1" 200 1234 "-" "curl"')), '"GET / HTTP/<*>" <*> "-" "curl"');
    assert.equal(
      joinWords(maskedWords('ask 10.0.0.1:50010 to delete blk_1 blk_2 blk_-3')),
      'ask <*> to delete blk_<*>',
    );
  });

  it('makes the rest of a very long message one last word', () => {
    const text = Array.from({ length: MAX_WORDS + 10 }, (_, i) => `w${i}`).join(' ');
    const w = splitWords(text);
    assert.equal(w.words.length, MAX_WORDS);
    assert.equal(w.words[MAX_WORDS - 1], Array.from({ length: 11 }, (_, i) => `w${MAX_WORDS - 1 + i}`).join(' '));
    assert.equal(joinWords(w), text);
  });
});
