// PgBouncer killed (SIGKILL) under a write load through the facade, and started again by the supervisor. Every
// acknowledged post must be in the database afterwards, nothing may answer 500, and the facade must write
// again without its process being restarted.
import { describe, expect, it } from 'vitest';
import { createLoadWriter } from '../helpers/accounts.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { failuresByCode, formatMs, internalErrors, outageMs, printFigures, skipLoudly } from './helpers/figures.ts';
import { killService, servicePid, withDatabase } from './helpers/inject.ts';
import { call, ok, sleep, startTraffic, waitUntil } from './helpers/traffic.ts';

const writers = 4;
const steadyMs = 1_500;
const recoveryBoundMs = 30_000;

describe.skipIf(!authIsRunning || !stack.poolerUrl)('PgBouncer killed under a write load', () => {
  it('keeps every acknowledged write, answers no 500, and writes again once it is back', async () => {
    const functionPid = servicePid('functions');
    const authors = await Promise.all(Array.from({ length: writers }, (_, i) => createLoadWriter(`pooled${i}`)));
    const traffic = startTraffic(
      writers,
      (worker, n) =>
        call('post', 'POST', '/post/create', {
          token: authors[worker].accessToken,
          json: { body: `post ${n} of writer ${worker}` },
        }),
    );
    await sleep(steadyMs);
    const killedAt = performance.now();
    const killedPid = killService('pgbouncer');
    const cameBack = await waitUntil(
      () => traffic.outcomes.some((o) => o.at > killedAt && ok(o)) && servicePid('pgbouncer') !== killedPid,
      recoveryBoundMs,
    );
    await sleep(steadyMs);
    const outcomes = await traffic.stop();

    const acknowledged = outcomes.filter(ok).map((o) => o.body.id as string);
    const kept = await withDatabase(async (sql) =>
      (await sql`select count(*)::int as kept from public.posts where id = any(${acknowledged}::uuid[])`)[0]
        .kept as number
    );
    printFigures('PgBouncer killed (SIGKILL) under 4 writers', {
      'requests': outcomes.length,
      'acknowledged posts': acknowledged.length,
      'acknowledged posts in the database': kept,
      'failures by kind, status and code': failuresByCode(outcomes),
      'outage seen by clients': formatMs(outageMs(outcomes, killedAt)),
      'PgBouncer pid': `${killedPid} → ${servicePid('pgbouncer')}`,
      'function process': servicePid('functions') === functionPid ? `the same (pid ${functionPid})` : 'RESTARTED',
    });

    expect(cameBack, 'the facade wrote again after the restart').toBe(true);
    expect(kept, 'acknowledged posts in the database').toBe(acknowledged.length);
    expect(internalErrors(outcomes), 'answers with a 500').toEqual({});
    expect(outcomes.filter((o) => !ok(o) && o.status !== 503), 'failures other than 503').toEqual([]);
    expect(servicePid('functions'), 'the function process was not restarted').toBe(functionPid);
  });
});

describe.runIf(!authIsRunning || !stack.poolerUrl)('PgBouncer killed under a write load', () => {
  it('is skipped: Auth or the pooler is not running', () => {
    skipLoudly('PgBouncer kill', stack.poolerUrl ? 'Supabase Auth is not running' : 'the stack runs no pooler');
    expect(authIsRunning && stack.poolerUrl).toBeFalsy();
  });
});
