/**
 * Light and dark follow the system unless the user picked one (kept in this browser only).
 * The theme in force is always written to html[data-theme], so the CSS has one rule per theme.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'svc.theme';
const dark = matchMedia('(prefers-color-scheme: dark)');

export function storedTheme(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

function resolve(choice: ThemeChoice): 'light' | 'dark' {
  return choice === 'system' ? (dark.matches ? 'dark' : 'light') : choice;
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  document.documentElement.dataset.theme = resolve(choice);
  window.dispatchEvent(new Event('svc-theme'));
}

// the system switching (e.g. at dusk) re-applies when the user follows it
dark.addEventListener('change', () => {
  if (storedTheme() === 'system') applyTheme('system');
});
