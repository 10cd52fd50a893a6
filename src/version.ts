import { readFileSync } from 'node:fs';
import { carriedVersion } from './packaged/carried.js';

/** svc's version, read once from package.json (works from src/ under tsx and from dist/src/). */
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svc' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
}

/** From the executable's manifest when svc runs as one (it has no package.json beside it), else package.json. */
export const VERSION = carriedVersion() ?? readVersion();
export const API_VERSION = 1;
