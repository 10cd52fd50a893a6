import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock/clock.js';
import type { ControlReader } from '../../control/types.js';
import type { SearchService } from '../../query/types.js';
import type { EventStore } from '../../storage/types.js';
import type { SelfLog } from '../../selflog/types.js';
import type { SavedSearchService } from '../../saved-searches/service.js';

/** What the MCP server needs from the rest of svc. Built from AppDeps by the /mcp route. */
export interface McpDeps {
  /** Every search goes through here, so RBAC narrowing applies. */
  search: SearchService;
  /** Environment list. */
  control: Pick<ControlReader, 'envs'>;
  /** Index lists and event counts per env/index. */
  store: Pick<EventStore, 'partitions'>;
  /** Saved searches the caller may see, run as the caller (src/saved-searches/). */
  savedSearches: Pick<SavedSearchService, 'list' | 'run'>;
  selflog: SelfLog;
  clock: Clock;
  log: Logger;
}

export interface ToolContext {
  deps: McpDeps;
  /** The authenticated caller (API key with the MCP scope, or a user session before any MCP key exists). */
  principal: Principal;
  /** Aborted when the caller goes away: a tool that searches other than through `deps.search` passes it on. */
  signal?: AbortSignal;
}

/** A tool's answer: compact text for the model, the same data as structured content for programs. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
  /** Events, rows, buckets or entries returned: recorded in `_svcmcp`. */
  resultCount: number;
}

/** One MCP tool: its name, the description a model reads, its input schema and its work. */
export interface McpTool<S extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>> {
  name: string;
  title: string;
  description: string;
  input: S;
  run(ctx: ToolContext, args: z.infer<S>): Promise<ToolOutput>;
}

/** Erases a tool's argument type so tools of different shapes share one list. */
export function defineTool<S extends z.ZodObject<z.ZodRawShape>>(tool: McpTool<S>): McpTool {
  return tool;
}
