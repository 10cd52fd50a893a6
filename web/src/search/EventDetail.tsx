import { useState } from 'react';
import type { LogEvent } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { valueText } from '../ui/format';

interface Props {
  event: LogEvent;
  onFilter: (field: string, value: unknown, exclude: boolean) => void;
  onContext: (event: LogEvent) => void;
}

/** Every field of one event, as a table with include/exclude/copy actions or as JSON. */
export function EventDetail({ event, onFilter, onContext }: Props) {
  const [tab, setTab] = useState<'table' | 'json'>('table');
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
    ...Object.entries(event.fields).sort(([a], [b]) => a.localeCompare(b)),
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
              <tr key={k}>
                <th>{k}</th>
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
