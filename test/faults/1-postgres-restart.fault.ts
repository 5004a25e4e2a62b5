// Postgres restarted by an operator (`pg_ctl restart -m fast`) while 4 writers create posts through the
// facade. Every acknowledged post (2xx) must be in the database afterwards, the facade must recover without
// its process being restarted, no answer may be a 500, and the stack must adopt the new postmaster. Supabase
// Auth must sign accounts in again once Postgres is back, with no connection it kept from before the restart.
import { describe, expect, it } from 'vitest';
import { createLoadWriter } from '../helpers/accounts.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword } from '../helpers/users.ts';
import { failuresByCode, formatMs, internalErrors, outageMs, printFigures, skipLoudly } from './helpers/figures.ts';
import { postmasterPid, restartPostgres, servicePid, withDatabase } from './helpers/inject.ts';
import { call, ok, type Outcome, sleep, startTraffic, waitUntil } from './helpers/traffic.ts';

const writers = 4;
/** Load before the restart, and after the first success that follows it. */
const steadyMs = 1_500;
/** The longest the suite waits for the facade to write again after the restart. */
const recoveryBoundMs = 30_000;
/** More than the idle connections Supabase Auth keeps (supabase/stack/auth-env.ts): one held over the restart
 * would fail a sign-in. */
const signInsAfter = 12;

/** Restarts Postgres under `traffic`, then keeps it going until a success after the restart (bounded). */
async function restartUnder(outcomes: Outcome[]) {
  await sleep(steadyMs);
  const restartedAt = performance.now();
  await restartPostgres();
  const restartedIn = performance.now() - restartedAt;
  await waitUntil(() => outcomes.some((o) => o.at > restartedAt + restartedIn && ok(o)), recoveryBoundMs);
  await sleep(steadyMs);
  return { restartedAt, restartedIn };
}

describe('Postgres restarted with pg_ctl under a write load', () => {
  it('keeps every acknowledged write, recovers without restarting the facade or Auth, adopts the new postmaster', async () => {
    const functionPid = servicePid('functions');
    const postmasterBefore = servicePid('postgres');
    if (!authIsRunning) {
      // Without Auth there is no app schema to write to: the restart is still made, watched through /health.
      skipLoudly(
        'acknowledged-writes check under a Postgres restart',
        `Supabase Auth is not running (${stack.authUnavailable.split('\n')[0]})`,
      );
    }
    const accounts = authIsRunning
      ? await Promise.all(Array.from({ length: writers }, () => createLoadWriter('writer')))
      : [];
    const run = Date.now().toString(36);
    const traffic = authIsRunning
      ? startTraffic(
        writers,
        (w, n) =>
          call('post', 'POST', '/post/create', {
            token: accounts[w].accessToken,
            json: { body: `fault ${run} ${w} ${n}` },
          }),
      )
      : startTraffic(1, async () => {
        await sleep(50);
        const health = await call('health', 'GET', '/health');
        // Without Auth /health is a 503 anyway: what counts here is whether the facade reaches the database.
        return health.body?.database === 'up' ? { ...health, status: 200 } : { ...health, code: 'database_down' };
      });
    const { restartedAt, restartedIn } = await restartUnder(traffic.outcomes);
    const outcomes = await traffic.stop();

    const acknowledged = outcomes.filter(ok);
    const ids: string[] = authIsRunning ? acknowledged.map((o) => o.body.id) : [];
    const { found, rows } = await withDatabase(async (sql) => {
      if (!authIsRunning) return { found: [] as string[], rows: 0 };
      const present = await sql`select id from public.posts where id = any(${ids}::uuid[])`;
      const [{ n }] = await sql`select count(*)::int as n from public.posts where body like ${`fault ${run} %`}`;
      return { found: present.map((row) => row.id as string), rows: n as number };
    });
    const lost = ids.filter((id) => !found.includes(id));
    const signIns = await Promise.all(
      Array.from(
        { length: authIsRunning ? signInsAfter : 0 },
        (_, i) => authClient().signInWithPassword({ email: accounts[i % writers].email, password: defaultPassword }),
      ),
    );
    const failedSignIns = signIns.flatMap((answer) => answer.error ? [answer.error.message] : []);
    const functionPidAfter = servicePid('functions');
    const postmasterAfter = postmasterPid();
    const healthAfter = await call('health', 'GET', '/health');
    printFigures(
      `Postgres restart (pg_ctl restart -m fast) under ${
        authIsRunning ? `${writers} writers` : '/health polling only'
      }`,
      {
        'requests': outcomes.length,
        ...(authIsRunning
          ? {
            'acknowledged (2xx)': acknowledged.length,
            'acknowledged rows found': `${found.length} of ${ids.length}`,
            'lost acknowledged writes': lost.length,
            'rows written in all': `${rows} (more than acknowledged = written, but the answer failed)`,
            'sign-ins through Supabase Auth after': `${signIns.length - failedSignIns.length} of ${signIns.length}`,
          }
          : { '/health reaching the database': acknowledged.length }),
        'failures by kind, status and code': failuresByCode(outcomes),
        'pg_ctl restart took': formatMs(restartedIn),
        'outage (first failure → first success)': formatMs(outageMs(outcomes, restartedAt)),
        'function process': functionPidAfter === functionPid
          ? `the same (pid ${functionPid})`
          : `RESTARTED (pid ${functionPid} → ${functionPidAfter})`,
        'postmaster': `${postmasterBefore} → ${postmasterAfter}; the stack watches ${servicePid('postgres')}`,
        '/health after': `${healthAfter.status} ${JSON.stringify(healthAfter.body)}`,
      },
    );

    expect(lost, 'acknowledged posts missing from the database').toEqual([]);
    expect(internalErrors(outcomes), 'answers with a 500').toEqual({});
    expect(failedSignIns, 'sign-ins through Supabase Auth once Postgres is back').toEqual([]);
    expect(outcomes.some((o) => o.at > restartedAt + restartedIn && ok(o)), 'a success after the restart').toBe(true);
    expect(functionPidAfter, 'the function process survived the restart').toBe(functionPid);
    expect(postmasterAfter).not.toBe(postmasterBefore);
    expect(healthAfter.body?.database, '/health reaches the database again').toBe('up');
    expect(servicePid('postgres'), 'the supervisor adopted the new postmaster').toBe(postmasterAfter);
  });
});
