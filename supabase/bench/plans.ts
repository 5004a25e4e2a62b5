// The plans of the reads whose cost grows with the tables, as EXPLAIN (ANALYZE, BUFFERS) prints them, the
// statements inside the API functions included: auto_explain (a module of Postgres itself) logs every nested
// statement of one call as a notice to this client. Run as the reader, after one warm-up call.
import postgres from 'postgres';
import { type Identity, identitySql } from './identity.ts';

export interface PlanRead {
  name: string;
  sql: string;
}

export interface PlanResult {
  name: string;
  /** The plan of each statement that took at least `minMs`, as auto_explain prints it ("duration: … plan: …"). */
  plans: string[];
}

/** Below this, a nested statement (the session check, a cursor's decoding) says nothing about growth. */
const minMs = 0.2;

const durationMs = (plan: string) => Number(/^duration: ([\d.]+) ms/.exec(plan)?.[1] ?? 0);

const autoExplain = [
  `load 'auto_explain'`,
  `set local auto_explain.log_min_duration = 0`,
  `set local auto_explain.log_analyze = on`,
  `set local auto_explain.log_buffers = on`,
  `set local auto_explain.log_nested_statements = on`,
  `set local auto_explain.log_level = notice`,
];

export async function explainNested(
  superuserUrl: string,
  identity: Identity,
  reads: PlanRead[],
): Promise<PlanResult[]> {
  const results: PlanResult[] = [];
  for (const read of reads) {
    const notices: string[] = [];
    const sql = postgres(superuserUrl, { max: 1, onnotice: (notice) => notices.push(String(notice.message)) });
    try {
      await sql.begin(async (tx) => {
        // The module's settings are the superuser's to set; then the transaction becomes the reader's.
        for (const statement of autoExplain) await tx.unsafe(statement);
        await tx.unsafe(identitySql(identity));
        await tx.unsafe(read.sql);
        notices.length = 0;
        await tx.unsafe(read.sql);
      });
    } finally {
      await sql.end();
    }
    results.push({ name: read.name, plans: notices.filter((plan) => durationMs(plan) >= minMs) });
  }
  return results;
}
