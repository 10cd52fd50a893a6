import { HighlightStyle, StreamLanguage, syntaxHighlighting, type StringStream } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

/**
 * Highlighting for svc's query language (docs/query-language.md): the search part (terms,
 * "phrases", field tests, AND/OR/NOT) and the pipes after `|` (command names, aggregations,
 * functions, `by`/`as`, strings, numbers). Parsing proper is the server's; this only colours.
 */
interface State {
  /** Past the first `|`. */
  inPipes: boolean;
  /** The next word is a pipe's command name. */
  atCommand: boolean;
}

const LOGIC = /^(AND|OR|NOT)\b/;
const PIPE_KEYWORDS =
  /^(by|as|over|span|limit|field|max|min|window|desc|asc|useother|otherstr|earliest|latest|output|input)\b/i;

function token(stream: StringStream, state: State): string | null {
  if (stream.eatSpace()) return null;
  if (stream.peek() === '"' || stream.peek() === "'") {
    const q = stream.next();
    while (!stream.eol()) {
      const c = stream.next();
      if (c === '\\') stream.next();
      else if (c === q) break;
    }
    return q === "'" ? 'propertyName' : 'string';
  }
  if (stream.eat('|')) {
    state.inPipes = true;
    state.atCommand = true;
    return 'punctuation';
  }
  if (state.atCommand && stream.match(/^[A-Za-z_]+/)) {
    state.atCommand = false;
    return 'keyword';
  }
  if (stream.match(LOGIC)) return 'operatorKeyword';
  if (stream.match(/^(!=|>=|<=|==|=|<|>|:(?=\S))/)) return 'operator';
  if (stream.match(/^[()[\],]/)) return 'bracket';
  if (stream.match(/^-?\d+(\.\d+)?([eE][+-]?\d+)?(?![\w.])/)) return 'number';
  if (state.inPipes) {
    if (stream.match(PIPE_KEYWORDS)) return 'modifier';
    if (stream.match(/^[A-Za-z_@][\w.@]*(?=\()/)) return 'function';
    if (stream.match(/^[A-Za-z_@][\w.@]*/)) return 'variableName';
    stream.next();
    return 'operator';
  }
  // search part: `field=`/`field:` names, `earliest=`, plain words with wildcards
  if (stream.match(/^[A-Za-z_@][\w.@-]*(?=(!=|>=|<=|=|<|>|:(?=\S)))/)) return 'propertyName';
  if (stream.match(/^-(?=\S)/)) return 'operatorKeyword';
  if (stream.match(/^[^\s()|"=<>!]+/)) return stream.current().includes('*') ? 'special' : 'content';
  stream.next();
  return null;
}

export const svcqlLanguage = StreamLanguage.define<State>({
  name: 'svcql',
  startState: () => ({ inPipes: false, atCommand: false }),
  copyState: (s) => ({ ...s }),
  token,
  languageData: { closeBrackets: { brackets: ['(', '"'] } },
});

export const svcqlHighlight = syntaxHighlighting(
  HighlightStyle.define([
    { tag: t.keyword, class: 'tok-command' },
    { tag: t.operatorKeyword, class: 'tok-logic' },
    { tag: t.modifier, class: 'tok-modifier' },
    { tag: t.string, class: 'tok-string' },
    { tag: t.number, class: 'tok-number' },
    { tag: t.propertyName, class: 'tok-field' },
    { tag: t.function(t.variableName), class: 'tok-function' },
    { tag: t.variableName, class: 'tok-var' },
    { tag: t.operator, class: 'tok-op' },
    { tag: t.punctuation, class: 'tok-pipe' },
    { tag: t.special(t.string), class: 'tok-wild' },
  ]),
);
