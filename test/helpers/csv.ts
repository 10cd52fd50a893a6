/** A strict RFC 4180 reader: CRLF between records, quoted fields with doubled quotes; anything else throws. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quoted field at ${i}`);
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    } else {
      const m = /[",\r\n]/g;
      m.lastIndex = i;
      const hit = m.exec(text);
      const end = hit ? hit.index : text.length;
      if (
        hit &&
        (hit[0] === '"' || (hit[0] === '\n' && text[end - 1] !== '\r') || (hit[0] === '\r' && text[end + 1] !== '\n'))
      )
        throw new Error(`stray ${JSON.stringify(hit[0])} at ${end}`);
      field = text.slice(i, end);
      i = end;
    }
    row.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
      if (i === text.length) return rows;
      continue;
    }
    if (i === text.length) throw new Error('the last record has no CRLF');
    throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
}

/** A small deterministic generator (xorshift). */
