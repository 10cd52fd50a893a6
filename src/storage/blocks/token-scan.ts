import { Bloom } from './bloom.js';
import { fmix32, T2_MUL_HI, T2_MUL_LO, T2_SEED_HI, T2_SEED_LO } from './tokens.js';

// The token filter of a part, built in JS while a decode worker writes it (parts/build.ts): one
// pass over each message's characters, hashing each token as it goes (the `t2` hash of
// tokens.ts) into a set of distinct hashes, with no string made per token. DuckDB's way (split,
// DISTINCT, regex split, md5 over the written file) cost 2.8-3.9 µs per event of real log lines;
// this costs well under one.

/** ASCII code → its token character (A-Z lowered), or 0 for a character that splits tokens. */
const WORD = new Uint8Array(128);
for (let c = 48; c <= 57; c++) WORD[c] = c;
for (let c = 97; c <= 122; c++) WORD[c] = c;
for (let c = 65; c <= 90; c++) WORD[c] = c + 32;
WORD[95] = 95;

/**
 * Distinct token hashes: open addressing over one Uint32Array of (lo, hi) pairs side by side, so a
 * probe touches one cache line; `hi` is always odd, so 0 marks a free slot.
 */
export class TokenSet {
  private slots: Uint32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 4096) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.slots = new Uint32Array(n * 2);
    this.mask = n - 1;
  }

  add(lo: number, hi: number): void {
    const slots = this.slots;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const h = slots[2 * i + 1];
      if (h === 0) break;
      if (h === hi && slots[2 * i] === lo) return;
      i = (i + 1) & this.mask;
    }
    slots[2 * i] = lo;
    slots[2 * i + 1] = hi;
    if (++this.size * 2 > this.mask) this.grow();
  }

  /** Adds every token of `text` under the block token rule (lowercase, split outside [a-z0-9_]). */
  addText(text: string): void {
    // the seeds as int32 (`| 0`, the same bits): a seed above 2^31 left as a double made the
    // loop's state a double too, and the loop ran twice as slow
    const seedLo = T2_SEED_LO | 0;
    const seedHi = T2_SEED_HI | 0;
    const mulLo = T2_MUL_LO | 0;
    const mulHi = T2_MUL_HI | 0;
    let lo = seedLo;
    let hi = seedHi;
    let len = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(i);
      let end = false;
      if (c < 128) c = WORD[c];
      // outside ASCII: two characters that JS toLowerCase turns into a token character
      // (tokens.ts splits after it, and the query side uses it too); the rest split
      else if (c === 0x212a)
        c = 107; // KELVIN SIGN → k
      else if (c === 0x130) {
        c = 105; // İ → i + U+0307, which then ends the token
        end = true;
      } else c = 0;
      if (c === 0) {
        if (len > 0) {
          this.add(fmix32(lo ^ len), (fmix32(hi + len) | 1) >>> 0);
          lo = seedLo;
          hi = seedHi;
          len = 0;
        }
        continue;
      }
      lo = Math.imul(lo ^ c, mulLo);
      hi = Math.imul(hi ^ c, mulHi);
      hi ^= hi >>> 15;
      len++;
      if (end) {
        this.add(fmix32(lo ^ len), (fmix32(hi + len) | 1) >>> 0);
        lo = seedLo;
        hi = seedHi;
        len = 0;
      }
    }
    if (len > 0) this.add(fmix32(lo ^ len), (fmix32(hi + len) | 1) >>> 0);
  }

  /** The filter of these tokens (≈ 10 bits per distinct token, as token-filters.ts sizes them). */
  toBloom(): Bloom {
    const f = Bloom.forCount(this.size, 't2');
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 2) if (slots[i + 1] !== 0) f.addHalves(slots[i], slots[i + 1]);
    return f;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.slots.length / 2 - 1;
    this.size = 0;
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.add(old[i], old[i + 1]);
  }
}
