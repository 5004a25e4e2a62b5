// What the fault suite prints for each fault: how many requests, how many acknowledged, the failures by
// status and code, and how long the facade took to recover. Printed before any assertion, so a failing
// run still shows its figures.
import { ok, type Outcome } from './traffic.ts';

/** Failures counted by "kind status code" (e.g. "post 503 database_unavailable", "read 0 TypeError": no answer). */
export function failuresByCode(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes.filter((o) => !ok(o))) {
    const key = `${outcome.kind} ${outcome.status} ${outcome.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The 500s (and other 5xx no client should see: not 502, 503 or 504), counted by kind, status and code. */
export function internalErrors(outcomes: Outcome[]): Record<string, number> {
  return failuresByCode(outcomes.filter((o) => o.status >= 500 && ![502, 503, 504].includes(o.status)));
}

/**
 * The outage the clients saw: from the first failed answer after `since` to the first success after it
 * (undefined when nothing failed; Infinity when nothing succeeded after).
 */
export function outageMs(outcomes: Outcome[], since = 0): number | undefined {
  const firstFailure = outcomes.find((o) => o.at >= since && !ok(o));
  if (!firstFailure) return undefined;
  const recovery = outcomes.find((o) => o.at > firstFailure.at && ok(o));
  return recovery ? recovery.at - firstFailure.at : Infinity;
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return 'none (no request failed)';
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'NO RECOVERY (no success after the first failure)';
}

/** Prints one block of figures under a title. */
export function printFigures(title: string, figures: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(figures).map((name) => name.length));
  const lines = Object.entries(figures).map(([name, value]) =>
    `  ${name.padEnd(width)}  ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`
  );
  console.log(`\n── ${title}\n${lines.join('\n')}\n`);
}

/** Says loudly that a part of the suite did not run, and why. */
export function skipLoudly(part: string, why: string): void {
  console.warn(`\n!! SKIPPED: ${part}: ${why}\n`);
}
