/**
 * The daily token budget (SVC_LLM_DAILY_TOKENS), per node and per UTC day, in memory: a restart
 * starts the day's count again (documented). Unlimited when `limit` is undefined.
 */
export class TokenBudget {
  private day = -1;
  private used = 0;

  constructor(
    private readonly limit: number | undefined,
    private readonly now: () => number,
  ) {}

  private roll(): void {
    const day = Math.floor(this.now() / 86_400_000);
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
    }
  }

  /** False once today's tokens are spent. */
  available(): boolean {
    this.roll();
    return this.limit === undefined || this.used < this.limit;
  }

  spend(tokens: number): void {
    this.roll();
    this.used += Math.max(0, tokens);
  }

  status(): { limit?: number; used: number } {
    this.roll();
    return { limit: this.limit, used: this.used };
  }
}
