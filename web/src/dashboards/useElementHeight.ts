import { useEffect, useRef, useState } from 'react';

/** A box's height, followed as it changes (a panel resized on the grid, a phone turned). */
export function useElementHeight(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [height, setHeight] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(Math.round(el.clientHeight)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, height];
}
