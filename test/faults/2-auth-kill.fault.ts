// Supabase Auth killed (SIGKILL) under mixed traffic. The supervisor must bring it back; meanwhile reads with
// valid tokens keep working (the facade verifies tokens with Auth's public keys, without calling Auth), the
// auth routes answer 503, /health names Auth as down, and nothing answers 500.
import { describe, expect, it } from 'vitest';
import { createAccount, createLoadWriter } from '../helpers/accounts.ts';
import { defaultPassword } from '../helpers/users.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { failuresByCode, formatMs, internalErrors, printFigures, skipLoudly } from './helpers/figures.ts';
import { killService, servicePid } from './helpers/inject.ts';
import { call, ok, sleep, startTraffic, waitUntil } from './helpers/traffic.ts';

const steadyMs = 1_500;
const recoveryBoundMs = 30_000;

/** What the gateway answered for Auth while it was down: status and error code. */
const gatewayWhileDown: string[] = [];

async function authAnswers(): Promise<boolean> {
  try {
    const response = await fetch(`${stack.apiUrl}/auth/v1/health`, { headers: { apikey: stack.anonKey } });
    if (response.ok) {
      await response.body?.cancel();
      return true;
    }
    const body = await response.json().catch(() => ({})) as { error?: { code?: string } };
    gatewayWhileDown.push(`${response.status} ${body.error?.code}`);
    return false;
  } catch {
    gatewayWhileDown.push('no answer');
    return false;
  }
}

describe.skipIf(!authIsRunning)('Supabase Auth killed under mixed traffic', () => {
  it('is restarted by the supervisor while reads keep working and auth routes answer 503', async () => {
    const functionPid = servicePid('functions');
    const [reader, author] = await Promise.all([createAccount('reader'), createLoadWriter('author')]);
    const post = await call('setup', 'POST', '/post/create', {
      token: author.accessToken,
      json: { body: 'read during an Auth outage' },
    });
    expect(post.status).toBe(201);

    const traffic = startTraffic(4, (worker, n) => {
      if (worker === 0) {
        return call('login', 'POST', '/auth/login', { json: { login: reader.username, password: defaultPassword } });
      }
      if (worker === 1) return sleep(100).then(() => call('health', 'GET', '/health'));
      return n % 2 === 0
        ? call('read', 'GET', `/${author.username}`, { token: reader.accessToken })
        : call('read', 'GET', `/post/${post.body.id}`, { token: reader.accessToken });
    });
    await sleep(steadyMs);
    const killedAt = performance.now();
    const killedPid = killService('auth');
    // The gateway is asked at every look, also while Auth is down.
    const cameBack = await waitUntil(
      async () => await authAnswers() && servicePid('auth') !== killedPid,
      recoveryBoundMs,
    );
    const backAt = performance.now();
    await sleep(steadyMs);
    const outcomes = await traffic.stop();

    const of = (kind: string) => outcomes.filter((o) => o.kind === kind);
    const during = (kind: string) => of(kind).filter((o) => o.at > killedAt && o.at < backAt);
    const failedReads = of('read').filter((o) => !ok(o));
    const loginsDuring = during('login');
    const unexpectedLogins = of('login').filter((o) => o.status !== 200 && o.status !== 503);
    const healthSawAuthDown = during('health').some((o) => o.body?.auth === 'down');
    const healthAfter = await call('health', 'GET', '/health');
    printFigures('Supabase Auth killed (SIGKILL) under reads, logins and /health', {
      'requests': outcomes.length,
      'reads (valid tokens)': `${of('read').length}, ${failedReads.length} failed`,
      'logins during the outage': `${loginsDuring.length}: ${JSON.stringify(failuresByCode(loginsDuring))}`,
      'logins neither 200 nor 503': unexpectedLogins.length,
      'failures by kind, status and code': failuresByCode(outcomes),
      'Auth back (kill → answering again)': cameBack
        ? formatMs(backAt - killedAt)
        : `NOT BACK within ${recoveryBoundMs / 1000} s`,
      'Auth pid': `${killedPid} → ${servicePid('auth')}`,
      "the gateway's /auth/v1 during the outage": `${gatewayWhileDown.length}: ${
        [...new Set(gatewayWhileDown)].join(', ')
      }`,
      '/health during the outage': healthSawAuthDown ? 'auth: down seen' : 'auth: down NOT seen',
      '/health after': `${healthAfter.status} ${JSON.stringify(healthAfter.body)}`,
      'function process': servicePid('functions') === functionPid
        ? `the same (pid ${functionPid})`
        : `RESTARTED (pid ${functionPid} → ${servicePid('functions')})`,
    });

    expect(cameBack, 'the supervisor restarted Auth').toBe(true);
    expect(failuresByCode(failedReads), 'reads with valid tokens that failed').toEqual({});
    expect(failuresByCode(unexpectedLogins), 'logins answered neither 200 nor 503').toEqual({});
    expect(internalErrors(outcomes), 'answers with a 500').toEqual({});
    expect(healthSawAuthDown, '/health said auth: down during the outage').toBe(true);
    // The gateway answers for a service that is down, in the project's envelope.
    expect(gatewayWhileDown.length, 'the gateway was asked while Auth was down').toBeGreaterThan(0);
    expect(new Set(gatewayWhileDown), 'what the gateway answered meanwhile').toEqual(
      new Set(['503 service_unavailable']),
    );
    expect(healthAfter.status, '/health is ok again').toBe(200);
  });
});

describe.runIf(!authIsRunning)('Supabase Auth killed under mixed traffic', () => {
  it('is skipped: Auth is not running', () => {
    skipLoudly('Auth kill', `Supabase Auth is not running (${stack.authUnavailable.split('\n')[0]})`);
    expect(authIsRunning).toBe(false);
  });
});
