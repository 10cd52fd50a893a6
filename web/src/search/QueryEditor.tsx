import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, insertNewlineAndIndent } from '@codemirror/commands';
import { setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { completeQuery, type CompletionData } from '../lang/complete';
import { loadHistory } from '../lang/history';
import { svcqlHighlight, svcqlLanguage } from '../lang/svcql';

export interface QueryError {
  message: string;
  position?: number;
}

interface Props {
  value: string;
  onChange: (text: string) => void;
  onRun: (text: string) => void;
  error: QueryError | null;
  completion: () => CompletionData;
  /** The editor's accessible name ('Query' on the search page). */
  label?: string;
  placeholder?: string;
  /** A form's field: the editable element's id (its <label for>), and the id of the error shown under it. */
  id?: string;
  errorId?: string;
}

export interface QueryEditorHandle {
  focus(): void;
}

/** The editable element's attributes: its name, and its error as a form field's (aria-invalid, aria-describedby). */
function contentAttrs(p: Pick<Props, 'label' | 'id' | 'errorId'>): Record<string, string> {
  const a: Record<string, string> = { 'aria-label': p.label ?? 'Query', 'data-testid': 'query-editor' };
  if (p.id) a.id = p.id;
  if (p.errorId) {
    a['aria-invalid'] = 'true';
    a['aria-describedby'] = p.errorId;
  }
  return a;
}

function setDoc(view: EditorView, text: string) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: text.length } });
}

/** CodeMirror 6 with svc's language: highlighting, completion, the parser's error underlined, history. */
export const QueryEditor = forwardRef<QueryEditorHandle, Props>(function QueryEditor(
  { value, onChange, onRun, error, completion, label, placeholder: hint, id, errorId },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const attrs = useRef(new Compartment());
  // callbacks change every render; the editor is built once and reads them through refs
  const cb = useRef({ onChange, onRun, completion });
  cb.current = { onChange, onRun, completion };

  useImperativeHandle(ref, () => ({ focus: () => view.current?.focus() }), []);

  useEffect(() => {
    let histPos = -1;
    let draft = '';
    const browse = (dir: 1 | -1) => (v: EditorView) => {
      const list = loadHistory();
      if (list.length === 0) return true;
      if (histPos === -1) draft = v.state.doc.toString();
      histPos = Math.max(-1, Math.min(list.length - 1, histPos + dir));
      setDoc(v, histPos === -1 ? draft : list[histPos]);
      return true;
    };
    const run = (v: EditorView) => {
      histPos = -1;
      cb.current.onRun(v.state.doc.toString());
      return true;
    };
    const state = EditorState.create({
      doc: value,
      extensions: [
        svcqlLanguage,
        svcqlHighlight,
        history(),
        closeBrackets(),
        autocompletion({
          override: [completeQuery(() => cb.current.completion())],
          icons: false,
          activateOnTyping: true,
          maxRenderedOptions: 60,
        }),
        Prec.high(
          keymap.of([
            { key: 'Enter', run },
            { key: 'Mod-Enter', run },
            { key: 'Shift-Enter', run: insertNewlineAndIndent },
            { key: 'Ctrl-ArrowUp', run: browse(1) },
            { key: 'Ctrl-ArrowDown', run: browse(-1) },
          ]),
        ),
        keymap.of([...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]),
        placeholder(hint ?? 'Search events: error host=web-1 | stats count by index'),
        EditorView.lineWrapping,
        // the CSP allows inline styles only with the page's nonce (src/http/ui.ts)
        EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''),
        attrs.current.of(EditorView.contentAttributes.of(contentAttrs({ label, id, errorId }))),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          cb.current.onChange(u.state.doc.toString());
          // the underline belongs to the text that was run; editing makes it stale
          u.view.dispatch(setDiagnostics(u.state, []));
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
    // the editor is made once: later props reach it through cb and the effects below, not by a new editor
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) setDoc(v, value);
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: attrs.current.reconfigure(EditorView.contentAttributes.of(contentAttrs({ label, id, errorId }))),
    });
  }, [label, id, errorId]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    if (!error || error.position === undefined) {
      v.dispatch(setDiagnostics(v.state, []));
      return;
    }
    const len = v.state.doc.length;
    const from = Math.min(error.position, len);
    const word = /^\S*/.exec(v.state.sliceDoc(from))?.[0].length ?? 0;
    const to = Math.min(len, from + Math.max(1, word));
    v.dispatch(
      setDiagnostics(v.state, [
        {
          from: from === len && len > 0 ? len - 1 : from,
          to: Math.max(to, from === len && len > 0 ? len : to),
          severity: 'error',
          message: error.message,
        },
      ]),
    );
  }, [error]);

  return <div className="query-editor" ref={host} />;
});
