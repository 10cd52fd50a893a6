import { useRef, useState, type FormEvent } from 'react';
import { ApiError, post } from '../api/client';
import { Button } from '../ui/Button';
import { Icon } from '../ui/icons';
import type { SearchParams } from './params';

/** One line of what the agent streams (POST /api/agent with Accept: application/x-ndjson). */
type AgentEvent =
  | { type: 'text'; step: number; delta: string }
  | { type: 'tool_call'; step: number; tool: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; step: number; tool: string; ok: boolean; resultCount: number; summary: string }
  | { type: 'answer'; text: string; citations: string[]; turns: number; tokens: number }
  | { type: 'error'; code: string; message: string };

interface Step {
  tool: string;
  args: Record<string, unknown>;
  result?: { ok: boolean; count: number; summary: string };
}

interface Turn {
  question: string;
  steps: Step[];
  text: string;
  citations: string[];
  error?: string;
  done: boolean;
}

/** The search page's link to one cited event: its env, index and exact time. */
function eventHref(id: string): string {
  const [env, index, time] = id.split('/');
  const to = new Date(Date.parse(time) + 1).toISOString();
  return `/ui/search?${new URLSearchParams({ q: '*', env, index, from: time, to })}`;
}

function stepText(s: Step): string {
  const a = s.args;
  const where = (['env', 'index', 'from'] as const)
    .flatMap((k) => (typeof a[k] === 'string' && a[k] ? [`${k} ${a[k]}`] : []))
    .join(', ');
  const what = typeof a.query === 'string' ? a.query : typeof a.id === 'string' ? a.id : '';
  return `${s.tool.replace('_', ' ')}${what ? ` ${what}` : ''}${where ? ` (${where})` : ''}`;
}

/** Renders the answer's text with its [event id] citations as links to the events. */
function AnswerText({ text, citations }: { text: string; citations: string[] }) {
  const parts = text.split(/(\[[^\]\s]+\/[^\]\s]+\/[^\]\s]+\/[0-9a-f]{16}\])/g);
  return (
    <p className="ask-answer">
      {parts.map((p, i) => {
        const id = p.startsWith('[') ? p.slice(1, -1) : '';
        return id && citations.includes(id) ? (
          <a key={i} href={eventHref(id)} className="ask-cite" title={id}>
            event {citations.indexOf(id) + 1}
          </a>
        ) : (
          <span key={i}>{p}</span>
        );
      })}
    </p>
  );
}

/**
 * "Ask": questions about the logs answered by the LLM agent, which searches as the signed-in user
 * and shows every query it ran; "Write the query" puts a checked query into the editor instead.
 */
export function AskPanel({
  params,
  onClose,
  onQuery,
}: {
  params: SearchParams;
  onClose: () => void;
  onQuery: (q: string) => void;
}) {
  const [question, setQuestion] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const scope = {
    env: params.env || undefined,
    index: params.index || undefined,
    from: params.from || undefined,
    to: params.to || undefined,
  };

  const update = (fn: (t: Turn) => Turn) => setTurns((all) => [...all.slice(0, -1), fn(all[all.length - 1])]);
  const apply = (e: AgentEvent) =>
    update((t) => {
      if (e.type === 'text') return { ...t, text: t.text + e.delta };
      if (e.type === 'tool_call') return { ...t, text: '', steps: [...t.steps, { tool: e.tool, args: e.arguments }] };
      if (e.type === 'tool_result') {
        const steps = [...t.steps];
        const last = steps.map((s) => s.tool).lastIndexOf(e.tool);
        if (last >= 0) steps[last] = { ...steps[last], result: { ok: e.ok, count: e.resultCount, summary: e.summary } };
        return { ...t, steps };
      }
      if (e.type === 'answer') return { ...t, text: e.text, citations: e.citations, done: true };
      return { ...t, error: e.message, done: true };
    });

  const ask = async (ev: FormEvent) => {
    ev.preventDefault();
    const q = question.trim();
    if (!q || busy) return;
    setQuestion('');
    setBusy(true);
    const conversation = turns
      .filter((t) => t.done && !t.error)
      .flatMap((t) => [
        { role: 'user', content: t.question },
        { role: 'assistant', content: t.text },
      ]);
    setTurns((all) => [...all, { question: q, steps: [], text: '', citations: [], done: false }]);
    abort.current = new AbortController();
    try {
      const res = await fetch('/api/agent', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'x-svc-request': '1' },
        body: JSON.stringify({ question: q, ...scope, conversation }),
        signal: abort.current.signal,
      });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        buf += r.value;
        const lines = buf.split('\n');
        buf = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) apply(JSON.parse(line) as AgentEvent);
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') update((t) => ({ ...t, error: (err as Error).message, done: true }));
    } finally {
      setBusy(false);
    }
  };

  const writeQuery = async () => {
    const q = question.trim();
    if (!q || busy) return;
    setBusy(true);
    try {
      const r = await post<{ query: string }>('/api/agent/query', { question: q, env: scope.env, index: scope.index });
      setQuestion('');
      onQuery(r.query);
    } catch (err) {
      setTurns((all) => [
        ...all,
        {
          question: q,
          steps: [],
          text: '',
          citations: [],
          error: err instanceof ApiError ? err.message : String(err),
          done: true,
        },
      ]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="ask-panel" aria-label="Ask about your logs">
      <header className="ask-head">
        <strong>
          <Icon name="activity" /> Ask about your logs
        </strong>
        <Button variant="ghost" icon="x" aria-label="Close" onClick={onClose} />
      </header>
      <div className="ask-turns" data-testid="ask-turns">
        {turns.length === 0 && (
          <p className="muted small ask-intro">
            Ask in words: "which hosts logged the most errors in the last hour?" The assistant searches with your access
            ({params.env || 'default'}
            {params.index ? ` / ${params.index}` : ''}) and shows every query it runs.
          </p>
        )}
        {turns.map((t, i) => (
          <div key={i} className="ask-turn">
            <div className="ask-question">{t.question}</div>
            {t.steps.map((s, j) => (
              <div key={j} className={`ask-step ${s.result && !s.result.ok ? 'ask-step-error' : ''}`}>
                <Icon name="search" size={13} />
                <span className="mono">{stepText(s)}</span>
                <span className="muted">
                  {s.result ? (s.result.ok ? `→ ${s.result.count}` : `→ ${s.result.summary}`) : '…'}
                </span>
              </div>
            ))}
            {t.text && <AnswerText text={t.text} citations={t.citations} />}
            {!t.done && !t.text && <span className="spinner" />}
            {t.error && <div className="alert alert-error small">{t.error}</div>}
          </div>
        ))}
      </div>
      <form className="ask-form" onSubmit={(e) => void ask(e)}>
        <textarea
          rows={2}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          aria-label="Question"
          placeholder="Why did logins fail on web-1 last night?"
          onKeyDown={(e) => e.key === 'Enter' && !e.shiftKey && (e.preventDefault(), void ask(e))}
        />
        <div className="ask-actions">
          <Button
            size="sm"
            onClick={() => void writeQuery()}
            disabled={busy || !question.trim()}
            title="Have the assistant write a search for this; svc checks it before it goes into the editor"
          >
            Write the query
          </Button>
          {busy ? (
            <Button size="sm" onClick={() => abort.current?.abort()}>
              Stop
            </Button>
          ) : (
            <Button size="sm" variant="primary" type="submit" disabled={!question.trim()}>
              Ask
            </Button>
          )}
        </div>
      </form>
    </aside>
  );
}
