import type { ReactNode } from 'react';
import { Icon } from './icons';

/**
 * A list page's filter row: a text filter, what else the page filters by (`children`), and how many
 * of the list are shown ("3 dashboards", "2 of 5 saved searches").
 */
export function ListFilter(p: {
  label: string;
  text: string;
  setText: (text: string) => void;
  shown: number;
  total: number;
  /** the noun for one and for several: ['dashboard', 'dashboards'] */
  noun: [string, string];
  children?: ReactNode;
}) {
  return (
    <div className="list-filters">
      <div className="find-box saved-filter">
        <Icon name="filter" size={14} />
        <input
          type="search"
          placeholder={p.label}
          aria-label={p.label}
          value={p.text}
          onChange={(e) => p.setText(e.target.value)}
        />
      </div>
      {p.children}
      <span className="muted small">
        {p.shown === p.total ? `${p.total}` : `${p.shown} of ${p.total}`} {p.total === 1 ? p.noun[0] : p.noun[1]}
      </span>
    </div>
  );
}
