/**
 * A drill-down from a panel: the clicked series' or row's value (null: none, the whole panel) and,
 * for a point of a time series, that bucket's range in epoch milliseconds.
 */
export type Drill = (value: DrillValue, range?: { from: number; to: number }) => void;

/** A series name (`timechart … by` field's value), the name-value pairs of a table row, or none. */
export type DrillValue = string | [string, unknown][] | null;
