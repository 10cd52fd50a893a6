import { doc } from '../doc.js';
import type { Subquery } from '../parser-api.js';
import { pipeError } from '../stages.js';
import { appendRows } from './pipe-append.js';
import type { PipeDef } from './pipe.js';

/**
 * `appendpipe [<pipeline>]` (Splunk's appendpipe): the pipeline runs over the current rows and its
 * output rows come after them (`stats count by a, b | appendpipe [stats sum(count) as count by a]`
 * adds subtotals). The pipeline reads the rows, not the events; one started by a generating
 * command (`appendpipe [| inputlookup users | …]`) reads that command's rows instead, as in Splunk.
 */
export interface AppendpipePipe {
  kind: 'appendpipe';
  pipes: Subquery['pipes'];
}

/** What appendpipe needs of the registry that lists it (registry.ts): printing and inspecting its pipeline. */
export interface PipelineHelpers {
  print(pipes: Subquery['pipes']): string;
  /** Fields the pipeline reads from its input rows, as PipeDef.reads says. */
  reads(pipes: Subquery['pipes']): string[] | '*';
  /** Fields the pipeline writes, or 'all' when its output replaces its input (stats). */
  writes(pipes: Subquery['pipes']): string[] | 'all';
}

export function appendpipePipeWith(h: PipelineHelpers): PipeDef<AppendpipePipe> {
  return {
    name: 'appendpipe',
    doc: doc(
      'appendpipe [<pipeline>]',
      'Runs the pipeline over the current rows and adds its output rows after them (subtotals, a row when there is none).',
      'status>=400 | stats count by host, status | appendpipe [stats sum(count) as count by host]',
    ),
    parse: (p) => ({ kind: 'appendpipe', pipes: p.subpipeline('appendpipe pipeline') }),
    print: (n) => `appendpipe [${h.print(n.pipes)}]`,
    reads: (n) => h.reads(n.pipes),
    writes: (n) => h.writes(n.pipes),
    compile(n, b) {
      if (!b.runPipes) throw new Error('BUG: appendpipe outside compile()');
      const sub = b.fork();
      b.runPipes(n.pipes, sub);
      if (sub.timechart) throw pipeError('appendpipe', 'timechart and chart cannot end its pipeline');
      appendRows('appendpipe', b, sub);
    },
  };
}
