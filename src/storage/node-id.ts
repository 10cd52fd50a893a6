import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** SVC_NODE_ID, else an id generated once and kept in `<dataDir>/node.id`. Names every block this node writes. */
export function resolveNodeId(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = join(dataDir, 'node.id');
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[a-zA-Z0-9_-]{1,64}$/.test(id)) return id;
  }
  const id = 'n' + randomBytes(5).toString('hex');
  writeFileSync(file, id + '\n');
  return id;
}
