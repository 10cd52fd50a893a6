import { useMemo, useState } from 'react';
import type { FieldInfo, FieldsResult } from '../api/types';
import { Button } from '../ui/Button';
import { count, valueText } from '../ui/format';
import { Icon } from '../ui/icons';
import { toggled } from '../ui/sets';

interface Props {
  fields: FieldsResult | null;
  loading: boolean;
  onFilter: (field: string, value: unknown, exclude: boolean) => void;
  /** Picks the field the histogram stacks by. */
  onStack: (field: string) => void;
  stackedBy: string;
  /** Live tail is on and has events: the fields are the search's, not yet the live events'. */
  live?: boolean;
  /** Closes the drawer the list is on phones. */
  onClose?: () => void;
}

const HIDDEN = new Set(['env']);
const FIRST = ['level', 'severity', 'host', 'status', 'sourcetype', 'index'];

/** Fields worth opening before the user picks: those that split the events, the usual suspects first. */
function defaultOpen(fields: FieldInfo[]): Set<string> {
  const splitting = fields.filter((f) => !HIDDEN.has(f.name) && f.top.length > 1);
  const ranked = [...splitting].sort((a, b) => rank(a.name) - rank(b.name));
  return new Set(ranked.slice(0, 2).map((f) => f.name));
}

function rank(name: string): number {
  const i = FIRST.indexOf(name);
  return i < 0 ? FIRST.length : i;
}

/** The fields of the results with their top values: click a value to filter for it, or out. */
export function FieldSidebar({ fields, loading, onFilter, onStack, stackedBy, live = false, onClose }: Props) {
  // until the user opens or closes one, the open fields follow the results
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const open = useMemo(() => picked ?? defaultOpen(fields?.fields ?? []), [picked, fields]);
  const [filter, setFilter] = useState('');
  const list = useMemo(
    () =>
      (fields?.fields ?? []).filter((f) => !HIDDEN.has(f.name) && f.name.toLowerCase().includes(filter.toLowerCase())),
    [fields, filter],
  );
  const sample = fields?.meta.matched ? Math.min(fields.meta.matched, 10_000) : 0;
  const toggle = (name: string) => setPicked(toggled(open, name));
  return (
    <aside className={loading ? 'sidebar loading' : 'sidebar'} aria-label="Fields" data-testid="fields">
      <div className="sidebar-head">
        <h2 className="sidebar-title">Fields</h2>
        {fields && <span className="muted small">{list.length}</span>}
        {onClose && (
          <Button
            size="sm"
            variant="ghost"
            icon="x"
            className="phone-only"
            aria-label="Close fields"
            onClick={onClose}
          />
        )}
      </div>
      <input
        className="sidebar-filter"
        placeholder="Filter fields"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        aria-label="Filter fields"
      />
      {sample > 0 && <p className="muted small sidebar-note">Top values of the newest {count(sample)} events</p>}
      <ul className="field-list">
        {list.map((f) => {
          const isOpen = open.has(f.name);
          return (
            <li key={f.name} className={isOpen ? 'open' : ''}>
              <button className="field-name" onClick={() => toggle(f.name)} aria-expanded={isOpen}>
                <Icon name={isOpen ? 'chevronDown' : 'chevronRight'} size={12} />
                <span className={`type type-${f.type}`}>
                  {f.type === 'number' ? '#' : f.type === 'boolean' ? 'b' : 't'}
                </span>
                <span className="name">{f.name}</span>
                <span className="muted small">{sample ? `${Math.round((f.count / sample) * 100)}%` : ''}</span>
              </button>
              {isOpen && (
                <div className="field-values">
                  {f.top.map((t, i) => {
                    const pct = f.count ? (t.count / f.count) * 100 : 0;
                    const text = valueText(t.value);
                    return (
                      <div className="field-value" key={i}>
                        <button
                          className="value-include"
                          title={`Filter for ${f.name}=${text}`}
                          onClick={() => onFilter(f.name, t.value, false)}
                        >
                          <span className="value-text">{text === '' ? <em className="muted">(empty)</em> : text}</span>
                          <span className="value-count">{count(t.count)}</span>
                          <span className="value-bar" style={{ width: `${pct}%` }} />
                        </button>
                        <Button
                          size="sm"
                          variant="ghost"
                          icon="minusCircle"
                          className="value-exclude"
                          title={`Filter out ${f.name}=${text}`}
                          aria-label={`Filter out ${f.name}=${text}`}
                          onClick={() => onFilter(f.name, t.value, true)}
                        />
                      </div>
                    );
                  })}
                  <button
                    className={stackedBy === f.name ? 'link-button on' : 'link-button'}
                    onClick={() => onStack(stackedBy === f.name ? '' : f.name)}
                  >
                    <Icon name="chart" size={12} />{' '}
                    {stackedBy === f.name ? 'Unstack histogram' : 'Stack histogram by this field'}
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {fields && list.length === 0 && (
        <p className="muted small sidebar-note" data-testid="fields-note">
          {live ? 'Fields of the live events show when the search runs again' : 'No fields'}
        </p>
      )}
    </aside>
  );
}
