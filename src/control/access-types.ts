/**
 * What a credential may reach, as the control plane stores it on users and API keys
 * (records.ts). They live here, not in auth/, so that the control plane never imports auth/:
 * auth/principal.ts builds its principals from these and re-exports them.
 */

/** What a credential may do. `admin` implies `standard`; `mcp` grants /mcp only. */
export type Scope = 'standard' | 'admin' | 'mcp';
export const SCOPES: readonly Scope[] = ['standard', 'admin', 'mcp'];

/** Allowlists; `['*']` means all. Tools apply to MCP only. */
export interface Allowlists {
  envs: string[];
  indexes: string[];
  tools: string[];
}

export const ALLOW_ALL: Allowlists = Object.freeze({ envs: ['*'], indexes: ['*'], tools: ['*'] });
