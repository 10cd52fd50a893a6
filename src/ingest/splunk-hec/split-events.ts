/**
 * HEC event bodies: JSON objects concatenated with or without whitespace between them
 * (`{"event":"a"}{"event":"b"}`), as splunk-logging and the forwarders send. Pure scanning.
 */

export interface SplitResult {
  /** The JSON text of each top-level object, in order. */
  objects: string[];
  /** Set when the body does not continue with a complete object: number of the bad event (0-based). */
  invalidAt?: number;
}

function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** End (exclusive) of the object starting at `start`, or -1 if unbalanced. Strings respected. */
function objectEnd(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

export function splitConcatenatedJson(s: string): SplitResult {
  const objects: string[] = [];
  let i = skipWs(s, 0);
  while (i < s.length) {
    if (s.charCodeAt(i) !== 0x7b) return { objects, invalidAt: objects.length };
    const end = objectEnd(s, i);
    if (end < 0) return { objects, invalidAt: objects.length };
    objects.push(s.slice(i, end));
    i = skipWs(s, end);
  }
  return { objects };
}
