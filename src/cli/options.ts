import { InvalidArgumentError, Option } from 'commander';

/** Option values checked where commander reads them, so a bad one is a usage error (exit 2) naming the flag. */

export function intIn(min: number, max: number): (v: string) => number {
  return (v) => {
    if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError(`want an integer from ${min} to ${max}`);
    const n = Number(v.trim());
    if (n < min || n > max) throw new InvalidArgumentError(`want an integer from ${min} to ${max}`);
    return n;
  };
}

export function choice<T extends string>(flags: string, description: string, values: readonly T[], dflt?: T): Option {
  const o = new Option(flags, description).choices(values);
  return dflt === undefined ? o : o.default(dflt);
}

/** A whole number from 1 up (a line number). */
export function positiveInt(v: string): number {
  const n = Number(v.trim());
  if (!/^\d+$/.test(v.trim()) || n < 1 || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('want a whole number from 1 up');
  return n;
}

/** Collects a repeatable option into a list (`--scope standard --scope mcp`). */
export function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

/** The options every search-like command shares. */
export interface ScopeOptions {
  env?: string;
  index?: string;
}
