import { Bloom } from './bloom.js';
import { fmix32, T2_MUL_HI, T2_MUL_LO, T2_SEED_HI, T2_SEED_LO } from './tokens.js';

// The token filter of a part, built in JS while a decode worker writes it (parts/build.ts): one
// pass over each message's characters, hashing each token as it goes (the `t2` hash of
// tokens.ts) into a set of distinct hashes, with no string made per token. DuckDB's way (split,
// DISTINCT, regex split, md5 over the written file) cost 2.8-3.9 µs per event of real log lines;
// this costs well under one.

/** Distinct token hashes: open addressing over two Uint32Arrays; `hi` is always odd, so 0 marks a free slot. */
export class TokenSet {
  private lo: Uint32Array;
  private hi: Uint32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 4096) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.lo = new Uint32Array(n);
    this.hi = new Uint32Array(n);
    this.mask = n - 1;
  }

  add(lo: number, hi: number): void {
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const h = this.hi[i];
      if (h === 0) break;
      if (h === hi && this.lo[i] === lo) return;
      i = (i + 1) & this.mask;
    }
    this.lo[i] = lo;
    this.hi[i] = hi;
    if (++this.size * 2 > this.mask) this.grow();
  }

  /** Adds every token of `text` under the block token rule (lowercase, split outside [a-z0-9_]). */
  addText(text: string): void {
    let lo = T2_SEED_LO;
    let hi = T2_SEED_HI;
    let len = 0;
    const n = text.length;
    for (let i = 0; i <= n; i++) {
      let c = i < n ? text.charCodeAt(i) : 32;
      let end = false;
      if (c >= 97 ? c > 122 : c >= 65 ? c > 90 && c !== 95 : c < 48 || c > 57) {
        // outside [a-zA-Z0-9_]: two characters outside ASCII lowercase into a token character
        // (tokens.ts splits after JS toLowerCase, which the query side uses too)
        if (c === 0x212a)
          c = 107; // KELVIN SIGN → k
        else if (c === 0x130) {
          c = 105; // İ → i + U+0307, which then ends the token
          end = true;
        } else {
          if (len > 0) this.add(fmix32(lo ^ len), (fmix32(hi + len) | 1) >>> 0);
          lo = T2_SEED_LO;
          hi = T2_SEED_HI;
          len = 0;
          continue;
        }
      } else if (c <= 90 && c >= 65) c += 32;
      lo = Math.imul(lo ^ c, T2_MUL_LO);
      hi = Math.imul(hi ^ c, T2_MUL_HI);
      hi ^= hi >>> 15;
      len++;
      if (end) {
        this.add(fmix32(lo ^ len), (fmix32(hi + len) | 1) >>> 0);
        lo = T2_SEED_LO;
        hi = T2_SEED_HI;
        len = 0;
      }
    }
  }

  /** The filter of these tokens (≈ 10 bits per distinct token, as token-filters.ts sizes them). */
  toBloom(): Bloom {
    const f = Bloom.forCount(this.size, 't2');
    for (let i = 0; i <= this.mask; i++) if (this.hi[i] !== 0) f.addHalves(this.lo[i], this.hi[i]);
    return f;
  }

  private grow(): void {
    const { lo, hi } = this;
    this.lo = new Uint32Array(lo.length * 2);
    this.hi = new Uint32Array(hi.length * 2);
    this.mask = this.lo.length - 1;
    this.size = 0;
    for (let i = 0; i < lo.length; i++) if (hi[i] !== 0) this.add(lo[i], hi[i]);
  }
}
