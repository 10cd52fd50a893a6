import { Counter, type Registry } from 'prom-client';

/** What the LLM provider reports (llm/provider.ts); `feature` and `reason` are its closed lists. */
export interface LlmObserver {
  /** A request is being sent to the provider. */
  call(feature: string): void;
  /** A call failed or was not made (budget spent, circuit open), as recorded in `llm_error`. */
  error(feature: string, reason: string): void;
}

/** LLM calls and errors. */
export class LlmMetrics implements LlmObserver {
  private readonly calls: Counter<'feature'>;
  private readonly errors: Counter<'feature' | 'reason'>;

  constructor(registers: Registry[]) {
    this.calls = new Counter({
      name: 'svc_llm_calls_total',
      help: 'Requests sent to the LLM provider, by feature (monitor, agent).',
      labelNames: ['feature'],
      registers,
    });
    this.errors = new Counter({
      name: 'svc_llm_errors_total',
      help: 'LLM failures as recorded in llm_error, by feature and reason (timeout, unreachable, rate_limited, server_error, refused, invalid_output, budget_exhausted, circuit_open, error).',
      labelNames: ['feature', 'reason'],
      registers,
    });
  }

  call(feature: string): void {
    this.calls.inc({ feature });
  }

  error(feature: string, reason: string): void {
    this.errors.inc({ feature, reason });
  }
}
