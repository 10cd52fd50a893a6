/** snappyjs ships no types; the two functions svc uses. */
declare module 'snappyjs' {
  /** Snappy block format; throws when the declared length exceeds maxLength or the stream is corrupt. */
  export function uncompress<T extends Uint8Array | ArrayBuffer>(compressed: T, maxLength?: number): T;
  export function compress<T extends Uint8Array | ArrayBuffer>(uncompressed: T): T;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
