import { t2Halves, tokenHash, type TokenHashKind } from './tokens.js';

const K = 7;

/**
 * A Bloom filter over 64-bit token hashes (double hashing: the two 32-bit halves).
 * Sized at ~10 bits per distinct token (≈1% false positives). Never a false negative: a block
 * is skipped only when a required token is certainly absent.
 */
export class Bloom {
  constructor(
    readonly bits: Uint8Array,
    readonly m: number,
    /** The token hash the filter was built with (tokens.ts): probes must use the same. */
    readonly hash: TokenHashKind = 'md5',
  ) {}

  static forCount(n: number, hash: TokenHashKind = 'md5'): Bloom {
    const m = Math.max(64, Math.ceil((n * 10) / 8) * 8);
    return new Bloom(new Uint8Array(m / 8), m, hash);
  }

  static fromBase64(b64: string, m: number, hash: TokenHashKind = 'md5'): Bloom {
    return new Bloom(new Uint8Array(Buffer.from(b64, 'base64')), m, hash);
  }

  addHash(h: bigint): void {
    const [a, b] = halves(h);
    this.addHalves(a, b);
  }

  /** `lo` and `hi`: the low and high 32 bits of the token hash (as DuckDB hands them over). */
  addHalves(lo: number, hi: number): void {
    const a = lo;
    const b = (hi | 1) >>> 0;
    for (let i = 0; i < K; i++) {
      const bit = (a + i * b) % this.m;
      this.bits[bit >>> 3] |= 1 << (bit & 7);
    }
  }

  hasHash(h: bigint): boolean {
    const [a, b] = halves(h);
    return this.hasHalves(a, b);
  }

  /** `b` already odd (as halves() and t2Halves give it). */
  hasHalves(a: number, b: number): boolean {
    for (let i = 0; i < K; i++) {
      const bit = (a + i * b) % this.m;
      if ((this.bits[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  /** True when the token may be in the block (token already lowercased, one piece). */
  mightContain(token: string): boolean {
    if (this.hash === 't2') {
      const [a, b] = t2Halves(token);
      return this.hasHalves(a, b);
    }
    return this.hasHash(tokenHash(token));
  }

  toBase64(): string {
    return Buffer.from(this.bits).toString('base64');
  }
}

function halves(h: bigint): [number, number] {
  const lo = Number(h & 0xffffffffn);
  const hi = (Number(h >> 32n) | 1) >>> 0; // odd step so probes never collapse onto one bit; >>> 0 keeps it unsigned
  return [lo, hi];
}
