import { useEffect, type RefObject } from 'react';
import type { QueryEditorHandle } from './QueryEditor';

/**
 * `/` focuses the query editor (unless the user is typing somewhere), Ctrl+F (Cmd+F) the page's
 * find while it has events to search: the browser's own cannot see virtualised rows.
 */
export function useSearchKeys(
  editor: RefObject<QueryEditorHandle | null>,
  findInput: RefObject<HTMLInputElement | null>,
  canFind: boolean,
) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const typing = e.target instanceof Element && e.target.closest('input, textarea, select, .cm-editor');
      if (e.key === '/' && !typing) {
        e.preventDefault();
        editor.current?.focus();
      } else if ((e.ctrlKey || e.metaKey) && e.key === 'f' && canFind) {
        e.preventDefault();
        findInput.current?.focus();
        findInput.current?.select();
      }
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [editor, findInput, canFind]);
}
