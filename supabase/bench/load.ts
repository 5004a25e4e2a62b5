// What one load run measured, whichever tool drove it (wrk for the facade, pgbench for the SQL function).
export interface Load {
  /** Completed requests or transactions per second. */
  perSecond: number;
  p50: number; // ms
  p99: number; // ms
  /** Requests that failed (non-2xx answers, socket errors) or the error that stopped pgbench. */
  failed?: string;
}

export const noLoad = (failed: string): Load => ({ perSecond: NaN, p50: NaN, p99: NaN, failed });
