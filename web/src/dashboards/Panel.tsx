import { useState } from 'react';
import { useLocation } from 'wouter';
import type { HistogramResult, SearchResult } from '../api/types';
import { EventsList } from '../search/EventsList';
import { Histogram } from '../search/Histogram';
import { TableResults } from '../search/TableResults';
import { Button } from '../ui/Button';
import { Icon } from '../ui/icons';
import type { DashboardPanel, PanelAnswer, RunBody } from './dashboard-api';
import { drillUrl, rowFilters, splitField } from './drilldown';
import { usePanelRun } from './usePanelRun';
import { useElementHeight } from './useElementHeight';
import { BarViz } from './viz/BarViz';
import { PieViz } from './viz/PieViz';
import { SingleViz, singleValue } from './viz/SingleViz';
import { TimeseriesViz } from './viz/TimeseriesViz';
import type { DrillValue } from './viz/types';

interface Props {
  dashId: string;
  panel: DashboardPanel;
  body: RunBody | null;
  editing: boolean;
  onEdit: () => void;
  onRemove: () => void;
}

/**
 * One panel: its title bar, its answer drawn by its type, its own loading and error (a panel whose
 * saved search is gone says so here, the others draw as usual) and what the viewer's access hides.
 * The root carries `data-testid="dash-panel"`, `data-panel-id` and `data-status` (loading, ready,
 * error) for tests and the bench.
 */
export function Panel({ dashId, panel, body, editing, onEdit, onRemove }: Props) {
  const run = usePanelRun(dashId, panel, body);
  const [, navigate] = useLocation();
  const a = run.answer;
  const drill = (value: DrillValue, range?: { from: number; to: number }) => {
    if (!a) return;
    const by = splitField(a.source.query);
    const filters =
      value === null ? [] : typeof value === 'string' ? (by ? [[by, value] as [string, unknown]] : []) : value;
    const r = range ? { from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() } : a.range;
    navigate(drillUrl(a.source, filters, r), { replace: false });
  };
  const title = panel.title || panel.id;
  return (
    <section
      className={`dash-panel panel-${panel.type}`}
      data-testid="dash-panel"
      data-panel-id={panel.id}
      data-status={run.status}
      aria-label={title}
    >
      <header className="panel-head">
        {editing && <Icon name="layers" size={14} className="panel-grip" />}
        <h2 className="panel-title" title={title}>
          {title}
        </h2>
        {run.status === 'loading' && <span className="spinner spinner-sm" role="status" aria-label="Loading" />}
        {a?.meta.hidden && (
          <span className="panel-hidden" data-testid="panel-hidden" title={a.meta.hidden}>
            <Icon name="lock" size={13} />
            <span className="panel-hidden-text">{a.meta.hidden}</span>
          </span>
        )}
        <span className="grow" />
        {editing ? (
          <>
            <Button size="sm" variant="ghost" icon="pencil" aria-label={`Edit panel ${title}`} onClick={onEdit} />
            <Button size="sm" variant="ghost" icon="trash" aria-label={`Remove panel ${title}`} onClick={onRemove} />
          </>
        ) : (
          a && (
            <Button
              size="sm"
              variant="ghost"
              icon="external"
              aria-label={`Open ${title} in search`}
              title="Open in search"
              onClick={() => drill(null)}
            />
          )
        )}
      </header>
      <div className="panel-body">
        {run.status === 'error' ? (
          <div className="panel-error" role="alert" data-testid="panel-error">
            <Icon name="alert" size={16} />
            <span>{run.error}</span>
          </div>
        ) : a ? (
          <Viz panel={panel} answer={a} previous={run.previous} drill={drill} />
        ) : (
          <div className="panel-skeleton" aria-hidden="true" />
        )}
      </div>
      {a?.meta.warnings?.map((w) => (
        <p key={w} className="panel-note small">
          {w}
        </p>
      ))}
    </section>
  );
}

function Viz({
  panel,
  answer,
  previous,
  drill,
}: {
  panel: DashboardPanel;
  answer: PanelAnswer;
  previous: number | null | undefined;
  drill: (v: DrillValue, range?: { from: number; to: number }) => void;
}) {
  const title = panel.title || panel.id;
  if (panel.type === 'histogram') return <HistogramViz data={answer as unknown as HistogramResult} drill={drill} />;
  const r = answer as unknown as SearchResult;
  if (panel.type === 'single')
    return (
      <SingleViz
        value={singleValue(r)}
        previous={previous}
        trend={!!panel.options?.trend}
        thresholds={panel.options?.thresholds}
        label={title}
        onDrill={() => drill(null)}
      />
    );
  if (panel.type === 'events') return <EventsViz events={r.events} drill={drill} />;
  if (!r.columns || !r.rows)
    return (
      <p className="viz-empty muted">This query answers events: end it with a table pipe (| stats count by host).</p>
    );
  const rows = r.rows;
  const columns = r.columns;
  if (rows.length === 0) return <p className="viz-empty muted">Nothing in this range.</p>;
  if (panel.type === 'timeseries')
    return (
      <TimeseriesViz
        columns={columns}
        rows={rows}
        style={panel.options?.style ?? 'line'}
        range={answer.range}
        title={title}
        onDrill={(v, range) => drill(v === 'OTHER' ? null : v, range)}
      />
    );
  if (panel.type === 'bar') return <BarViz columns={columns} rows={rows} onDrill={drill} />;
  if (panel.type === 'pie') return <PieViz columns={columns} rows={rows} onDrill={drill} />;
  return <TableResults columns={columns} rows={rows} onRow={(row) => drill(rowFilters(columns, row))} />;
}

function HistogramViz({
  data,
  drill,
}: {
  data: HistogramResult;
  drill: (v: DrillValue, range?: { from: number; to: number }) => void;
}) {
  const [ref, height] = useElementHeight();
  return (
    <div className="viz-fill" ref={ref}>
      {height > 0 && (
        <Histogram
          data={data}
          loading={false}
          height={Math.max(60, height - (data.series?.length ? 28 : 4))}
          onZoom={(from, to) => drill(null, { from, to })}
        />
      )}
    </div>
  );
}

function EventsViz({
  events,
  drill,
}: {
  events: SearchResult['events'];
  drill: (v: DrillValue, range?: { from: number; to: number }) => void;
}) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  if (events.length === 0) return <p className="viz-empty muted">No events in this range.</p>;
  return (
    <EventsList
      events={events}
      expanded={open}
      onToggle={(i) =>
        setOpen((s) => {
          const n = new Set(s);
          if (!n.delete(i)) n.add(i);
          return n;
        })
      }
      wrap={false}
      terms={null}
      find={null}
      current={null}
      showIndex={false}
      showHost
      onFilter={(field, value, exclude) => drill([[exclude ? `!${field}` : field, value]])}
      onContext={(e) => {
        const t = Date.parse(e.time);
        drill(null, { from: t - 300_000, to: t + 300_000 });
      }}
    />
  );
}
