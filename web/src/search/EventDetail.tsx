import { useEffect, useState } from 'react';
import { get } from '../api/client';
import type { LogEvent, SearchResult } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { valueText } from '../ui/format';

interface Props {
  event: LogEvent;
  onFilter: (field: string, value: unknown, exclude: boolean) => void;
  onContext: (event: LogEvent) => void;
  /** Field names the search's field list offers (some found in messages at search time, not stored). */
  fieldNames?: string[];
}

const CORE = new Set(['_time', 'host', 'source', 'sourcetype', 'index', 'env', 'message', '_raw']);
const bare = (n: string) => (/^[A-Za-z_@][A-Za-z0-9_.@]*$/.test(n) ? n : JSON.stringify(n));

/**
 * The fields the search finds in this event's message at search time (`pid`, `user`, `rhost` of an
 * OpenSSH line): the names the field list offers that the event does not store, read by a search of
 * the event's own microsecond (`table` finds them as any pipe does). Empty until it answers.
 */
function useSearchTimeFields(event: LogEvent, names: string[]): [string, unknown][] {
  const missing = names.filter((n) => !CORE.has(n) && !n.startsWith('_') && !(n in event.fields));
  const key = missing.join('\u0000');
  const [found, setFound] = useState<{ of: LogEvent; rows: [string, unknown][] } | null>(null);
  useEffect(() => {
    if (key === '') return;
    const names = key.split('\u0000');
    const ctl = new AbortController();
    const to = new Date(Date.parse(event.time) + 1).toISOString();
    get<SearchResult>(
      '/api/search',
      {
        q: `* | table _time, message, ${names.map(bare).join(', ')}`,
        env: event.env,
        index: event.index,
        from: event.time,
        to,
        limit: 1000,
      },
      ctl.signal,
    ).then(
      (r) => {
        const cols = r.columns ?? [];
        const row = (r.rows ?? []).find((x) => x[0] === event.time && x[1] === event.message);
        const rows: [string, unknown][] = row
          ? cols.slice(2).flatMap((c, i) => (row[i + 2] === null || row[i + 2] === undefined ? [] : [[c, row[i + 2]]]))
          : [];
        setFound({ of: event, rows });
      },
      () => undefined,
    );
    return () => ctl.abort();
  }, [event, key]);
  return found?.of === event ? found.rows : [];
}

/** Every field of one event, as a table with include/exclude/copy actions or as JSON. */
export function EventDetail({ event, onFilter, onContext, fieldNames = [] }: Props) {
  const [tab, setTab] = useState<'table' | 'json'>('table');
  const searchTime = useSearchTimeFields(event, fieldNames);
  const found = new Set(searchTime.map(([k]) => k));
  // empty core fields (a plain-text line has no source type) only add noise
  const core: [string, unknown][] = [
    ['_time', event.time],
    ['host', event.host],
    ['source', event.source],
    ['sourcetype', event.sourcetype],
    ['index', event.index],
    ['env', event.env],
  ];
  const rows = [
    ...core.filter(([, v]) => v !== ''),
    ...[...Object.entries(event.fields), ...searchTime].sort(([a], [b]) => a.localeCompare(b)),
  ];
  const json = JSON.stringify(event, null, 2);
  return (
    <div className="event-detail" onClick={(e) => e.stopPropagation()}>
      <div className="detail-bar">
        <div className="tabs small" role="tablist">
          <button
            role="tab"
            aria-selected={tab === 'table'}
            className={tab === 'table' ? 'on' : ''}
            onClick={() => setTab('table')}
          >
            Table
          </button>
          <button
            role="tab"
            aria-selected={tab === 'json'}
            className={tab === 'json' ? 'on' : ''}
            onClick={() => setTab('json')}
          >
            JSON
          </button>
        </div>
        <div className="spacer" />
        <Button size="sm" icon="context" onClick={() => onContext(event)}>
          Events around this one
        </Button>
        <CopyButton text={json} label="Copy JSON" />
      </div>
      {tab === 'table' ? (
        <table className="fields-table">
          <tbody>
            <tr>
              <th>message</th>
              <td className="mono pre">{event.message}</td>
              <td className="actions">
                <CopyButton text={event.message} label="" title="Copy message" />
              </td>
            </tr>
            {rows.map(([k, v]) => (
              <tr key={k} data-field={k}>
                <th>
                  {k}
                  {found.has(k) && (
                    <span className="muted small found-tag" title="Found in the message at search time, not stored">
                      {' '}
                      found
                    </span>
                  )}
                </th>
                <td className="mono">{valueText(v)}</td>
                <td className="actions">
                  {k !== '_time' && (
                    <>
                      <Button
                        size="sm"
                        variant="ghost"
                        icon="plusCircle"
                        title={`Filter for ${k}`}
                        aria-label={`Filter for ${k}`}
                        onClick={() => onFilter(k, v, false)}
                      />
                      <Button
                        size="sm"
                        variant="ghost"
                        icon="minusCircle"
                        title={`Filter out ${k}`}
                        aria-label={`Filter out ${k}`}
                        onClick={() => onFilter(k, v, true)}
                      />
                    </>
                  )}
                  <CopyButton text={valueText(v)} label="" title={`Copy ${k}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <pre className="json-view">{json}</pre>
      )}
    </div>
  );
}
