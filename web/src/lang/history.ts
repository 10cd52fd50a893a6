/** Queries the user ran, newest first, kept in this browser (Ctrl+↑/↓ in the editor). */
const KEY = 'svc.history';
const MAX = 100;

export function loadHistory(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function remember(query: string): void {
  const q = query.trim();
  if (!q) return;
  const list = [q, ...loadHistory().filter((x) => x !== q)].slice(0, MAX);
  localStorage.setItem(KEY, JSON.stringify(list));
}
