import type { MonitorDestination, MonitorRecord } from '../control/records.js';

// The shapes /api/monitors answers with, in one place for the server and the web UI (which
// imports them type-only, like the search answers): nothing here may import runtime code.

/** One group's outcome of a run: `host=web-1` (`,`-joined for several fields), `*` without groups. */
export interface GroupVerdict {
  group: string;
  value: number;
  triggered: boolean;
}

/** An AI monitor's judgement, as the LLM gave it and the notification carries it. */
export interface AiJudgement {
  severity: string;
  summary: string;
  evidence: string[];
}

/** The last run of a monitor, as its state keeps it. */
export interface LastRun {
  at: string;
  outcome: 'ok' | 'error';
  trigger: 'schedule' | 'manual';
  durationMs: number;
  triggered?: boolean;
  rows?: number;
  error?: string;
}

/** A monitor as the API shows it: webhooks redacted (their paths are often secrets), with its state. */
export interface MonitorView extends Omit<MonitorRecord, 'destinations'> {
  destinations: { webhook: string; format: MonitorDestination['format'] }[];
  state: 'ok' | 'firing' | 'error' | 'pending';
  firing: { group: string; since: string; value: number }[];
  lastRun?: LastRun;
}

/** What the editor's preview (POST /api/monitors/preview) finds over the window ending now. */
export interface MonitorPreview {
  from: string;
  to: string;
  rows: number;
  groups: GroupVerdict[];
  ai?: AiJudgement;
}

/** One line of a monitor's history (GET /api/monitors/{id}/runs), from its `_svclogs` records. */
export interface HistoryEntry {
  time: string;
  event: 'monitor_run' | 'monitor_fired' | 'monitor_resolved' | 'monitor_destination_failed';
  outcome?: string;
  trigger?: string;
  durationMs?: number;
  rows?: number;
  triggered?: boolean;
  groupsFiring?: number;
  group?: string;
  value?: number;
  error?: string;
  destination?: string;
  missedRuns?: number;
}
