import { useEffect, useEffectEvent, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export type Built = { opts: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData };

/**
 * A uPlot chart filling its box (a panel's body, whatever size the grid gives it): drawn again when
 * `built` changes (its caller builds it again for a new theme: a canvas keeps the colours it was
 * drawn with), resized in place when the box does. `onPick` gets the plot at a click
 * on the plot area, to read the cursor's point.
 */
export function UplotChart({ built, onPick, label }: { built: Built; onPick?: (u: uPlot) => void; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const pick = useEffectEvent((u: uPlot) => onPick?.(u));
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const size = () => ({ width: Math.max(80, el.clientWidth), height: Math.max(60, el.clientHeight) });
    let last = size();
    const u = new uPlot({ ...built.opts, ...last }, built.data, el);
    const click = () => pick(u);
    u.over.addEventListener('click', click);
    // the observer also calls back once at the start: an unchanged size needs no second draw
    const ro = new ResizeObserver(() => {
      const now = size();
      if (now.width === last.width && now.height === last.height) return;
      last = now;
      u.setSize(now);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.over.removeEventListener('click', click);
      u.destroy();
    };
  }, [built]);
  return <div className="viz-plot" ref={box} role="img" aria-label={label} />;
}
