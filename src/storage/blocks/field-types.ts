/**
 * Field type bookkeeping. A field's observed kinds are a bit set; the column type follows from it:
 * only booleans → BOOLEAN, only integers → BIGINT, integers and/or floats → DOUBLE, anything else
 * (strings, or a mix with strings/booleans) → VARCHAR.
 */
export const T_STRING = 1;
export const T_INT = 2;
export const T_FLOAT = 4;
export const T_BOOL = 8;

export type ColumnType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';

export function kindOfValue(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? T_INT : T_FLOAT;
    case 'boolean':
      return T_BOOL;
    default:
      return T_STRING;
  }
}

/** Kind from DuckDB's json_type(); NULL counts as nothing. */
export function kindOfJsonType(t: string): number {
  switch (t) {
    case 'BIGINT':
    case 'UBIGINT':
      return T_INT;
    case 'DOUBLE':
      return T_FLOAT;
    case 'BOOLEAN':
      return T_BOOL;
    case 'NULL':
      return 0;
    default:
      return T_STRING;
  }
}

export function columnType(bits: number): ColumnType {
  if (bits === T_BOOL) return 'BOOLEAN';
  if (bits === T_INT) return 'BIGINT';
  if (bits !== 0 && (bits & ~(T_INT | T_FLOAT)) === 0) return 'DOUBLE';
  return 'VARCHAR';
}

export function bitsOfColumnType(t: string): number {
  switch (t) {
    case 'BOOLEAN':
      return T_BOOL;
    case 'BIGINT':
      return T_INT;
    case 'DOUBLE':
      return T_FLOAT;
    default:
      return T_STRING;
  }
}

/** The FieldSummary type name for a column type. */
export function summaryType(t: ColumnType): string {
  if (t === 'BOOLEAN') return 'boolean';
  if (t === 'BIGINT' || t === 'DOUBLE') return 'number';
  return 'string';
}
