import { numericColumns } from '../../search/chart-data';
import { valueText } from '../../ui/format';
import { seriesColor } from '../../ui/palette';
import { rowFilters } from '../drilldown';

/** One row of a stats answer as a bar or a slice: its label, its number, its colour and what it filters by. */
export interface Category {
  label: string;
  value: number;
  color: string;
  filters: [string, unknown][];
}

/** At most this many bars or slices: a pie of 200 slices says nothing, a long bar list scrolls. */
export const MAX_CATEGORIES = 50;

/**
 * The rows of a table answer (`stats count by host`) as categories: the label from the columns
 * that are not numbers, the value from the first number column. Null when it has none.
 */
export function categoriesOf(columns: string[], rows: unknown[][]): { metric: string; items: Category[] } | null {
  const nums = numericColumns(columns, rows);
  if (nums.length === 0) return null;
  const col = nums[0];
  const items = rows.slice(0, MAX_CATEGORIES).map((r, i) => {
    const filters = rowFilters(columns, r).filter(([c]) => !nums.includes(columns.indexOf(c)));
    const label = filters.map(([, v]) => valueText(v)).join(' · ') || columns[col];
    return { label, value: typeof r[col] === 'number' ? r[col] : 0, color: seriesColor(label, i), filters };
  });
  return { metric: columns[col], items };
}
