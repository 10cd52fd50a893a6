import { doc } from '../doc.js';
import { toStr } from '../expr/coerce.js';
import { pushFound } from '../extract/extract-stage.js';
import { reEscape, str } from '../sql.js';
import { printListName } from './field-names.js';
import { oneField } from './pipe-nomv.js';
import { CORE_KEYS, setCoreFields } from './pipe-fromjson.js';
import type { PipeDef } from './pipe.js';

/**
 * `xmlkv [<field>]` (Splunk's xmlkv, message by default): each element holding only text,
 * `<Name attr="…">value</Name>`, gives the field Name that text; of elements of one name the last
 * wins (Splunk's script assigns each in turn). As Splunk's, it first undoes the escapes `&lt;`,
 * `&gt;` and `&amp;` (again until none is left, so an XML document escaped inside another, such as
 * a scheduled task's in a Windows event's Message, is read too) and writes the field back so
 * unescaped. As svc's other extractors (spath, kv), it sets the fields later pipes read; where the
 * text has no such element the field keeps its value. A name must be a tag name (no spaces, `<`,
 * `>`, `/` or quotes). `maxinputs=N` (the batch size of Splunk's script) is accepted and changes nothing.
 */
export interface XmlkvPipe {
  kind: 'xmlkv';
  field?: string;
}

/** A tag name as Splunk's regex reads one that an element closes with the same name. */
const TAG_NAME = /^[^\s<>/"'=]+$/;

/** The text with `&lt;` `&gt;` `&amp;` undone until none is left (Python's sax.unescape in a loop, in closed form). */
function unescapedSql(text: string): string {
  const lt = `regexp_replace(${text}, '&(?:amp;)*lt;', '<', 'g')`;
  const gt = `regexp_replace(${lt}, '&(?:amp;)*gt;', '>', 'g')`;
  return `regexp_replace(${gt}, '&(?:amp;)+', '&', 'g')`;
}

export const xmlkvPipe: PipeDef<XmlkvPipe> = {
  name: 'xmlkv',
  doc: doc(
    'xmlkv [<field>] [maxinputs=<N>]',
    'Reads <Name>value</Name> elements of XML in a field (message by default) into the fields later pipes read, after undoing &lt; &gt; &amp;.',
    '* | xmlkv Message | stats count by Arguments',
  ),
  parse(p) {
    // Splunk's maxinputs= only sizes the batches its script reads: it changes no answer
    const readMaxinputs = () => {
      if (!p.acceptKeyword('maxinputs')) return;
      p.expectOp('=', 'expr');
      p.positiveInt('a batch size after "maxinputs="');
    };
    readMaxinputs();
    const n: XmlkvPipe = p.atPipeEnd()
      ? { kind: 'xmlkv' }
      : { kind: 'xmlkv', field: oneField(p, 'xmlkv', 'a field holding XML', ['maxinputs']) };
    readMaxinputs();
    return n;
  },
  print: (n) => `xmlkv${n.field !== undefined ? ` ${printListName(n.field)}` : ''}`,
  reads: (n) => [n.field ?? 'message'],
  writes: (n) => [n.field ?? 'message'],
  compile(n, b) {
    const field = n.field ?? 'message';
    const col = b.col(field);
    if (col.sql === 'NULL') return;
    // `_raw` is the message (schema.ts, RAW): the column written back is the one read
    const target = b.schema.has(field) ? field : 'message';
    b.setColumns([
      { name: target, sql: unescapedSql(toStr(col)), type: b.schema.get(target) === 'str' ? 'str' : 'any' },
    ]);
    const text = toStr(b.col(target));
    const valueOf = (name: string) => {
      const tag = reEscape(name);
      const all = `regexp_extract_all(${text}, ${str(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`)}, 1)`;
      // fast path: the closing tag must be in the text for any element of the name to be
      return `CASE WHEN contains(${text}, ${str(`</${name}>`)}) THEN ${all}[-1] END`;
    };
    pushFound(
      b,
      b.readLater
        .filter((name) => TAG_NAME.test(name) && name !== target)
        .map((name) => ({ name, sql: valueOf(name) })),
    );
    setCoreFields(
      b,
      CORE_KEYS.filter((name) => name !== target),
      valueOf,
    );
  },
};
