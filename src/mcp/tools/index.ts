import { aggregateTool } from './tool-aggregate.js';
import { discoverFieldsTool } from './tool-discover-fields.js';
import { getEventTool } from './tool-get-event.js';
import { histogramTool } from './tool-histogram.js';
import { listEnvironmentsTool } from './tool-list-environments.js';
import { listIndexesTool } from './tool-list-indexes.js';
import { searchTool } from './tool-search.js';
import { listSavedSearchesTool } from './tool-list-saved-searches.js';
import { runSavedSearchTool } from './tool-run-saved-search.js';
import type { McpTool } from './types.js';

/** Every MCP tool, in the order tools/list shows them. Names are what key tool allowlists hold. */
export const TOOLS: readonly McpTool[] = [
  searchTool,
  aggregateTool,
  histogramTool,
  listEnvironmentsTool,
  listIndexesTool,
  discoverFieldsTool,
  getEventTool,
  listSavedSearchesTool,
  runSavedSearchTool,
];

export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);
