import { ApiError } from '../api/client';

/** A lookup table as GET /api/admin/lookups lists it (docs/lookups.md). */
export interface Lookup {
  name: string;
  columns: string[];
  rows: number;
  bytes: number;
  updatedAt: string;
  updatedBy: string;
}

export interface LookupPreview {
  lookup: Lookup;
  columns: string[];
  rows: (string | null)[][];
}

export const lookupPath = (name: string) => `/api/admin/lookups/${encodeURIComponent(name)}`;

/**
 * PUT a file as the table `name`. Not through api(): the body is the CSV itself, not JSON. Same
 * headers otherwise (the session cookie and X-Svc-Request, which svc requires of cookie writes).
 */
export async function uploadLookup(name: string, file: Blob): Promise<{ lookup: Lookup; created: boolean }> {
  const res = await fetch(lookupPath(name), {
    method: 'PUT',
    headers: { accept: 'application/json', 'content-type': 'text/csv', 'x-svc-request': '1' },
    credentials: 'same-origin',
    body: file,
  });
  const body = (await res.json().catch(() => undefined)) as
    (Lookup & { error?: { code: string; message: string } }) | undefined;
  if (!res.ok)
    throw new ApiError(
      res.status,
      body?.error?.code ?? 'http_error',
      body?.error?.message ?? `${res.status} ${res.statusText}`,
    );
  return { lookup: body as Lookup, created: res.status === 201 };
}

/** `users.csv` → `users`; characters a table name cannot hold become `-`. */
export function nameFromFile(fileName: string): string {
  return fileName
    .replace(/\.(csv|txt)$/i, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
}

/** `12.4 KB`, `3.1 MB`: sizes as people read them. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The query a table is most likely used with: match on its first column, output the others. */
export function exampleQuery(l: Pick<Lookup, 'name' | 'columns'>): string {
  const [key, ...rest] = l.columns;
  const bare = (c: string) =>
    /^[A-Za-z_@][A-Za-z0-9_.@-]*$/.test(c) && !['as', 'output', 'outputnew', 'by'].includes(c.toLowerCase())
      ? c
      : JSON.stringify(c);
  return `* | lookup ${l.name} ${bare(key)}${rest.length ? ` output ${rest.slice(0, 4).map(bare).join(', ')}` : ''}`;
}
