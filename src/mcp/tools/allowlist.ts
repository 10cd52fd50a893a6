import type { Principal } from '../../auth/principal.js';
import { canUseTool } from '../../auth/rbac.js';
import { TOOLS } from './index.js';
import type { McpTool } from './types.js';

/**
 * The MCP tool allowlist of a key (`allow.tools`, `*` for all): tools/list shows only these, and a
 * call to any other is refused as if the tool did not exist for this key (the decision itself is
 * auth/rbac.ts's canUseTool).
 */
export function visibleTools(principal: Principal): McpTool[] {
  return TOOLS.filter((t) => canUseTool(principal, t.name));
}

/** The tool a call names, when it exists and the key may use it; `hidden` when it exists but is not on the list. */
export function allowedTool(
  principal: Principal,
  name: string,
): { tool: McpTool } | { refused: 'unknown_tool' | 'tool_hidden' } {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return { refused: 'unknown_tool' };
  return canUseTool(principal, name) ? { tool } : { refused: 'tool_hidden' };
}
