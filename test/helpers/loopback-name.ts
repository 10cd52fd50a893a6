import { readFileSync } from 'node:fs';

/**
 * A host name other than localhost that /etc/hosts maps to a loopback address (`runsc`, `vm`, the
 * machine's name on Debian), or undefined: tests of names that resolve to loopback use it offline.
 */
export function loopbackNameInHosts(): string | undefined {
  let text: string;
  try {
    text = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!ip?.startsWith('127.')) continue;
    const name = names.find((n) => n.length > 0 && !n.includes('localhost'));
    if (name) return name;
  }
  return undefined;
}
