import type { ReactNode } from 'react';
import GridLayout, { useContainerWidth, type Layout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import type { DashboardPanel } from './dashboard-api';

/*
 * react-draggable adds a <style> element at the first drag unless one with its id is there; the
 * page's CSP refuses inline styles without the page's nonce, so an empty one with the nonce stands
 * in for it and its two rules live in styles/dashboards.css.
 */
if (!document.getElementById('react-draggable-style-el')) {
  const el = document.createElement('style');
  el.id = 'react-draggable-style-el';
  el.nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
  document.head.appendChild(el);
}

/** The grid's measures: 24 columns (the document's), rows of 36 px, 12 px between panels. */
export const COLS = 24;
export const ROW_PX = 36;
const GAP = 12;
/** Under this width the panels stack one per row, in reading order, each as tall as on the grid. */
const STACK_BELOW = 720;

type Grid = DashboardPanel['grid'];

/**
 * The panels on the dashboard's 24-column grid (react-grid-layout). In edit mode a panel moves by
 * its title bar and resizes by its corner; `onMoved` gets every panel whose place changed when a
 * drag or resize ends. On a narrow screen the panels stack instead, read-only.
 */
export function DashboardGrid({
  panels,
  editing,
  render,
  onMoved,
}: {
  panels: DashboardPanel[];
  editing: boolean;
  render: (p: DashboardPanel) => ReactNode;
  onMoved: (grids: Map<string, Grid>) => void;
}) {
  const { width, containerRef, mounted } = useContainerWidth({ initialWidth: 1200 });
  const stacked = mounted && width < STACK_BELOW;
  const layout: Layout = panels.map((p) => ({ i: p.id, ...p.grid, minW: 2, minH: 2 }));
  const changed = (next: Layout) => {
    const moved = new Map<string, Grid>();
    for (const it of next) {
      const p = panels.find((x) => x.id === it.i);
      const g = { x: it.x, y: it.y, w: it.w, h: it.h };
      if (p && (p.grid.x !== g.x || p.grid.y !== g.y || p.grid.w !== g.w || p.grid.h !== g.h)) moved.set(it.i, g);
    }
    if (moved.size) onMoved(moved);
  };
  return (
    <div ref={containerRef} className={editing ? 'dash-grid editing' : 'dash-grid'}>
      {stacked ? (
        <div className="dash-stack">
          {[...panels]
            .sort((a, b) => a.grid.y - b.grid.y || a.grid.x - b.grid.x)
            .map((p) => (
              <div key={p.id} style={{ height: Math.max(4, p.grid.h) * ROW_PX + (p.grid.h - 1) * GAP }}>
                {render(p)}
              </div>
            ))}
        </div>
      ) : (
        mounted && (
          <GridLayout
            width={width}
            layout={layout}
            gridConfig={{ cols: COLS, rowHeight: ROW_PX, margin: [GAP, GAP], containerPadding: [0, 0] }}
            dragConfig={{ enabled: editing, handle: '.panel-head', cancel: 'button' }}
            resizeConfig={{ enabled: editing, handles: ['se'] }}
            onDragStop={(l) => changed(l)}
            onResizeStop={(l) => changed(l)}
          >
            {panels.map((p) => (
              <div key={p.id}>{render(p)}</div>
            ))}
          </GridLayout>
        )
      )}
    </div>
  );
}
