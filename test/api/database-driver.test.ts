// The Postgres driver as the facade configures it (functions/api/lib/pool.ts), through the pooler as the facade
// reaches the primary. postgres.js 3.4.9 by default pipelines a statement onto a connection that is still
// running another; if the waiting statement is then cancelled (its client went away), the driver hands its
// answer to the statement after it, another caller's, and never settles it. The facade's options must not
// pipeline: a statement waits for a connection with nothing in flight.
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { arrayLiteral, openPool } from '../../functions/api/lib/pool.ts';
import { facadeDatabaseUrl } from '../helpers/app.ts';

/** The facade's pool of one connection, so that every statement but the first waits for it. */
const { sql } = openPool(facadeDatabaseUrl(), 1, true);
afterAll(() => sql.end({ timeout: 1 }));

/** Who answered a statement: the rows' `who`, the error's SQLSTATE, or that it never settled. */
function answerOf(statement: Promise<postgres.Row[]>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const never = new Promise<string>((resolve) => timer = setTimeout(() => resolve('never settled'), 5_000));
  const answer = statement.then(
    (rows) => `rows of ${rows.map((row) => row.who).join()}`,
    (error) => `error ${error.code}`,
  );
  return Promise.race([answer, never]).finally(() => clearTimeout(timer));
}

describe('the driver as the facade configures it', () => {
  it('gives each statement its own answer when one waiting for the connection is cancelled', async () => {
    // The connection open and idle, as in a running facade (statements sent while it opens wait anyway).
    await sql`select 1`;
    const first = sql.unsafe(`select pg_sleep(0.3), 'first' as who`).execute();
    const cancelled = sql.unsafe(`select 'cancelled' as who`).execute();
    const last = sql.unsafe(`select 'last' as who`).execute();
    // The first runs; the other two wait behind it when the second is cancelled.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await cancelled.cancel();
    expect(await Promise.all([first, cancelled, last].map(answerOf)))
      .toEqual(['rows of first', 'error 57014', 'rows of last']);
    expect(await answerOf(sql`select 'after' as who`)).toBe('rows of after');
  }, 15_000);

  it('reserves a connection of the primary pool, and sends a list to a pool opened without array types', async () => {
    // A fresh pool each: reserve() must resolve on a connection that opens for it.
    const primary = openPool(facadeDatabaseUrl(), 1, true);
    const replicaLike = openPool(facadeDatabaseUrl(), 1, false);
    try {
      const reserved = await primary.sql.reserve();
      expect(await answerOf(reserved`select 'reserved' as who`)).toBe('rows of reserved');
      reserved.release();
      const names = ['plain', 'with "quotes"', 'back\\slash', 'comma, too'];
      const rows = await replicaLike.sql`select unnest(${arrayLiteral(names)}::text[]) as name`;
      expect(rows.map((row) => row.name)).toEqual(names);
      // What the literal replaces: a JS array arrives as one malformed string.
      expect(await answerOf(replicaLike.sql`select ${names}::text[] as who`)).toBe('error 22P02');
    } finally {
      await Promise.all([primary.sql.end({ timeout: 1 }), replicaLike.sql.end({ timeout: 1 })]);
    }
  });
});
