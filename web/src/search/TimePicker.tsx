import { useEffect, useRef, useState } from 'react';
import { Button } from '../ui/Button';
import { localTime, timeZoneName, utcOffset } from '../ui/format';
import { Icon } from '../ui/icons';
import { Popover } from '../ui/Popover';

export const PRESETS: { from: string; label: string }[] = [
  { from: '-15m', label: 'Last 15 minutes' },
  { from: '-1h', label: 'Last hour' },
  { from: '-4h', label: 'Last 4 hours' },
  { from: '-24h', label: 'Last 24 hours' },
  { from: '-7d', label: 'Last 7 days' },
  { from: '-30d', label: 'Last 30 days' },
  { from: '-90d', label: 'Last 90 days' },
  { from: '-1y', label: 'Last year' },
  { from: '', label: 'All time' },
];

/** A relative start as the query language writes it (`-5y`, `-36h`, `-2d@d`), typed in the picker. */
export const RELATIVE_FROM = /^-\d+(s|m|min|h|d|w|mon|y)(@[a-z]+)?$/;

/**
 * The query's own time modifiers (`earliest=-10y`, `latest=now`) in its search part, which set the
 * range instead of the picker's (the server's rule, as Splunk's): empty when it has none.
 */
export function queryTimeModifiers(q: string): string[] {
  const head = q.split('|')[0];
  return [...head.matchAll(/(?:^|\s)((?:earliest|latest)=("[^"]*"|\S+))/gi)].map((m) => m[1]);
}

/** A readable name for a range: the preset's, else both ends in local time. */
export function rangeLabel(from: string, to: string): string {
  if (!to) {
    const p = PRESETS.find((x) => x.from === from);
    if (p) return p.label;
    if (/^-\d+(s|m|min|h|d|w|mon|y)$/.test(from)) return `Last ${from.slice(1)}`;
  }
  const end = (v: string, open: string) =>
    !v ? open : v.startsWith('-') || v === 'now' ? v : localTime(v).slice(0, 19);
  return `${end(from, 'the beginning')} → ${end(to, 'now')}`;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `2026-11-23T14:05:09` for a datetime-local input, in the browser's zone; `-24h` is resolved against now. */
function toInput(value: string): string {
  const rel = /^-(\d+)([smhdw])$/.exec(value);
  const iso = rel ? new Date(Date.now() - Number(rel[1]) * UNIT_MS[rel[2]]).toISOString() : value;
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime()) || iso.startsWith('-')) return '';
  const off = d.getTimezoneOffset() * 60_000;
  return new Date(d.getTime() - off).toISOString().slice(0, 19);
}

function fromInput(v: string): string {
  return v ? new Date(v).toISOString() : '';
}

/**
 * The presets as a single-select listbox (WAI-ARIA APG: choosing a value from a list, not running a
 * command, so not a menu) with a roving focus: one Tab stop, the arrows move between the presets,
 * Home and End go to the first and the last, Enter or Space picks. The selection does not follow the
 * focus, since a pick runs a search. The list takes the focus when the picker opens, on the range in
 * force.
 */
function PresetList({ current, onPick }: { current: number; onPick: (i: number) => void }) {
  const [active, setActive] = useState(Math.max(0, current));
  const items = useRef<(HTMLButtonElement | null)[]>([]);
  useEffect(() => {
    items.current[Math.max(0, current)]?.focus();
    // only when the picker opens
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const last = PRESETS.length - 1;
  const step: Record<string, (i: number) => number> = {
    ArrowDown: (i) => Math.min(last, i + 1),
    ArrowUp: (i) => Math.max(0, i - 1),
    Home: () => 0,
    End: () => last,
  };
  return (
    <div
      role="listbox"
      aria-labelledby="time-presets-label"
      className="time-options"
      onKeyDown={(e) => {
        const to = step[e.key]?.(active);
        if (to === undefined) return;
        e.preventDefault();
        setActive(to);
        items.current[to]?.focus();
      }}
    >
      {PRESETS.map((p, i) => (
        <button
          key={p.label}
          ref={(el) => {
            items.current[i] = el;
          }}
          role="option"
          aria-selected={i === current}
          tabIndex={i === active ? 0 : -1}
          className={i === current ? 'menu-item on' : 'menu-item'}
          onFocus={() => setActive(i)}
          onClick={() => onPick(i)}
        >
          {p.label}
        </button>
      ))}
    </div>
  );
}

interface Props {
  from: string;
  to: string;
  onChange: (from: string, to: string) => void;
  /** The query's own earliest=/latest=, which set the range instead of the picker's. */
  fromQuery?: string[];
}

export function TimePicker({ from, to, onChange, fromQuery = [] }: Props) {
  const [absFrom, setAbsFrom] = useState(toInput(from));
  const [absTo, setAbsTo] = useState(toInput(to));
  const [typed, setTyped] = useState(RELATIVE_FROM.test(from) && !PRESETS.some((p) => p.from === from) ? from : '');
  const overridden = fromQuery.length > 0;
  const label = overridden ? `${fromQuery.join(' ')} (in the query)` : rangeLabel(from, to);
  return (
    <Popover
      align="right"
      trigger={(toggle, open) => (
        <button
          className={`time-button${open ? ' open' : ''}${overridden ? ' from-query' : ''}`}
          onClick={toggle}
          aria-label={`Time range: ${label}`}
          aria-haspopup="dialog"
          aria-expanded={open}
          title={
            overridden ? 'The query sets the time range: its earliest= and latest= win over this picker' : undefined
          }
          data-testid="time-range"
        >
          <Icon name="clock" />
          <span>{label}</span>
          <Icon name="chevronDown" size={14} />
        </button>
      )}
    >
      {(close) => (
        <div role="dialog" aria-label="Time range">
          {overridden && (
            <p className="time-note small" data-testid="time-from-query">
              The query sets the time range ({fromQuery.join(' ')}); remove it from the query to use this picker.
            </p>
          )}
          <div className="time-panel">
            <div className="time-presets">
              <div className="menu-label" id="time-presets-label">
                Relative
              </div>
              <PresetList
                current={to ? -1 : PRESETS.findIndex((p) => p.from === from)}
                onPick={(i) => {
                  onChange(PRESETS[i].from, '');
                  close();
                }}
              />
              <form
                className="time-typed"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (!RELATIVE_FROM.test(typed.trim())) return;
                  onChange(typed.trim(), '');
                  close();
                }}
              >
                <input
                  value={typed}
                  onChange={(e) => setTyped(e.target.value)}
                  placeholder="-5y, -36h"
                  aria-label="Relative start"
                  aria-invalid={typed.trim() !== '' && !RELATIVE_FROM.test(typed.trim())}
                />
                <Button type="submit" size="sm" disabled={!RELATIVE_FROM.test(typed.trim())}>
                  Go
                </Button>
              </form>
            </div>
            <form
              className="time-absolute"
              onSubmit={(e) => {
                e.preventDefault();
                onChange(fromInput(absFrom), fromInput(absTo));
                close();
              }}
            >
              <div className="menu-label">Absolute</div>
              <label className="field">
                <span>From</span>
                <input
                  type="datetime-local"
                  step="1"
                  value={absFrom}
                  onChange={(e) => setAbsFrom(e.target.value)}
                  aria-label="From"
                />
              </label>
              <label className="field">
                <span>To (empty: now)</span>
                <input
                  type="datetime-local"
                  step="1"
                  value={absTo}
                  onChange={(e) => setAbsTo(e.target.value)}
                  aria-label="To"
                />
              </label>
              <Button type="submit" variant="primary" size="sm">
                Apply
              </Button>
              <p className="muted small">
                Times are in {timeZoneName()} (UTC{utcOffset()}).
              </p>
            </form>
          </div>
        </div>
      )}
    </Popover>
  );
}
