import { useEffect, type RefObject } from 'react';
import type { QueryEditorHandle } from './QueryEditor';

/** The search page's keys, as the shortcut sheet (`?`) lists them. */
export const SHORTCUTS: [string, string][] = [
  ['/', 'Focus the query'],
  ['Ctrl+Enter', 'Run the query (in the editor; Enter too when no completion is open)'],
  ['j or ↓', 'Next event'],
  ['k or ↑', 'Previous event'],
  ['Enter or Space', 'Open or close the event'],
  ['Ctrl+F', 'Find in the results'],
  ['Esc', 'Close a dialog, a menu, the time picker or the open event (the focus goes back)'],
  ['↑ ↓ Home End', 'In the time picker: move between the presets (Enter picks)'],
  ['?', 'This list'],
];

/** Moves the focus to the event row `step` away from the focused one (the first when none is), in view. */
function stepRow(step: 1 | -1): boolean {
  const rows = [...document.querySelectorAll<HTMLElement>('.event-line')];
  if (rows.length === 0) return false;
  const at = rows.indexOf(document.activeElement as HTMLElement);
  const next = at < 0 ? rows[0] : rows[Math.min(rows.length - 1, Math.max(0, at + step))];
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
  return true;
}

/**
 * `/` focuses the query editor (unless the user is typing somewhere), Ctrl+F (Cmd+F) the page's
 * find while it has events to search (the browser's own cannot see virtualised rows), j/k (and the
 * arrows on a row) walk the events, `?` opens the shortcut sheet.
 */
export function useSearchKeys(
  editor: RefObject<QueryEditorHandle | null>,
  findInput: RefObject<HTMLInputElement | null>,
  canFind: boolean,
  onHelp: () => void,
) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const typing = e.target instanceof Element && e.target.closest('input, textarea, select, .cm-editor, dialog');
      const onRow = e.target instanceof Element && e.target.classList.contains('event-line');
      const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
      if (e.key === '/' && !typing) {
        e.preventDefault();
        editor.current?.focus();
      } else if ((e.ctrlKey || e.metaKey) && e.key === 'f' && canFind) {
        e.preventDefault();
        findInput.current?.focus();
        findInput.current?.select();
      } else if (plain && !typing && (e.key === 'j' || e.key === 'k')) {
        if (stepRow(e.key === 'j' ? 1 : -1)) e.preventDefault();
      } else if (plain && onRow && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
        if (stepRow(e.key === 'ArrowDown' ? 1 : -1)) e.preventDefault();
      } else if (e.key === '?' && !typing) {
        e.preventDefault();
        onHelp();
      }
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [editor, findInput, canFind, onHelp]);
}
