import { useEffect, useState } from 'react';
import type { ApiError } from '../api/client';
import type { SearchMeta } from '../api/types';
import { Button } from '../ui/Button';
import { duration, localTime } from '../ui/format';
import { Icon } from '../ui/icons';
import type { SearchParams } from './params';
import { LIVE_CAP } from './useSearchState';

/** Why the search has no answer: an error, or (in blue) that it was cancelled. */
export function SearchError({ error }: { error: ApiError | null }) {
  if (!error || unconfirmedWrite(error) !== null) return null;
  const cancelled = error.code === 'cancelled';
  return (
    <div className={cancelled ? 'alert alert-info' : 'alert alert-error'} role="alert" data-testid="search-error">
      <Icon name={cancelled ? 'info' : 'alert'} />
      <span>{error.message}</span>
    </div>
  );
}

/**
 * What a search would write ("lookup table users", "events into index summary"), when the server
 * refused it for want of the user's confirmation (outputlookup names a table, collect an index).
 */
export function unconfirmedWrite(error: ApiError | null): string | null {
  if (error?.code !== 'invalid_query' || error.details.confirm !== 'writes=allow') return null;
  if (typeof error.details.table === 'string') return `lookup table ${error.details.table}`;
  return typeof error.details.index === 'string' ? `events into index ${error.details.index}` : null;
}

/**
 * A search that writes (a lookup table, events), opened from a link (or back/forward) rather than run by the
 * user: the server's reason, and a button that runs it with the user's leave to write.
 */
export function ConfirmWrite({ error, onConfirm }: { error: ApiError | null; onConfirm: () => void }) {
  const table = unconfirmedWrite(error);
  if (!error || table === null) return null;
  return (
    <div className="alert alert-warn" role="alert" data-testid="confirm-write">
      <Icon name="alert" />
      <div className="confirm-write">
        <p>{error.message}</p>
        <Button size="sm" variant="primary" onClick={onConfirm} data-testid="confirm-write-run">
          Run and write {table}
        </Button>
      </div>
    </div>
  );
}

/** Shows progress and Cancel once a search has run for this long: quick ones do not flicker it. */
const PROGRESS_AFTER_MS = 300;

/** "Searching… 1.2 s" with Cancel, while the run `running` (null: none) goes on. */
export function SearchProgress({ running, onCancel }: { running: string | null; onCancel: () => void }) {
  const elapsed = useElapsed(running);
  if (elapsed <= PROGRESS_AFTER_MS) return null;
  return (
    <div className="progress" data-testid="progress">
      <div className="progress-bar" />
      <span className="muted small">Searching… {duration(elapsed)}</span>
      <Button size="sm" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}

/** Milliseconds since `running` started, ticking while it is set; 0 until its first tick. */
function useElapsed(running: string | null): number {
  const [tick, setTick] = useState<{ of: string; ms: number } | null>(null);
  useEffect(() => {
    if (running === null) return;
    const t0 = performance.now();
    const t = setInterval(() => setTick({ of: running, ms: performance.now() - t0 }), 100);
    return () => clearInterval(t);
  }, [running]);
  return running !== null && tick?.of === running ? tick.ms : 0;
}

export function LiveNote({ paused }: { paused: boolean }) {
  return (
    <div className="live-note small" data-testid="live-note">
      <span className={paused ? 'live-dot paused' : 'live-dot'} />{' '}
      {paused ? 'Paused' : 'Live: new events appear at the top'} · keeps the newest {LIVE_CAP.toLocaleString()}
    </div>
  );
}

/** Why nothing matched, and when the events outside the range are, a button to search where they are. */
export function EmptyHint({
  hint,
  onRange,
}: {
  hint: NonNullable<SearchMeta['hint']>;
  onRange: (patch: Pick<SearchParams, 'from' | 'to'>) => void;
}) {
  const { earliest, latest } = hint;
  return (
    <div className="empty-hint" data-testid="hint">
      <Icon name="info" />
      <div>
        <p>{hint.message}</p>
        {earliest && latest && hint.eventsOutsideRange > 0 && (
          <Button
            size="sm"
            variant="primary"
            onClick={() => onRange({ from: earliest, to: new Date(Date.parse(latest) + 1000).toISOString() })}
          >
            Search {localTime(earliest).slice(0, 16)} → {localTime(latest).slice(0, 16)}
          </Button>
        )}
      </div>
    </div>
  );
}

/** What the answer left out or could not honour (meta.warnings): unreadable data, a cut subsearch, a Splunk tag. */
export function SearchWarnings({ warnings }: { warnings: string[] | undefined }) {
  if (!warnings || warnings.length === 0) return null;
  return (
    <div className="alert alert-warn search-warnings" role="status" data-testid="search-warnings">
      <Icon name="alert" />
      <div>
        {warnings.map((w) => (
          <p key={w}>{w}</p>
        ))}
      </div>
    </div>
  );
}
