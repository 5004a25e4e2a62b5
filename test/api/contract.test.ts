// The check every `api()` answer goes through (helpers/contract.ts) refuses what drifts from the served document:
// answers made up here, one per kind of drift, against real operations.
import { describe, expect, it } from 'vitest';
import { contractBreaches } from '../helpers/contract.ts';

const requestId = { 'X-Request-Id': 'a-request', 'Cache-Control': 'no-store', 'Content-Type': 'application/json' };
const factors = { aal: 'aal1', factors: [] };

describe('the contract check of every answer', () => {
  it('takes an answer as documented: a null recovery, the headers the answer declares', async () => {
    const headers = new Headers({
      ...requestId,
      'RateLimit-Limit': '600',
      'RateLimit-Remaining': '3',
      'RateLimit-Reset': '9',
    });
    expect(await contractBreaches('GET', '/user/mfa', 200, { ...factors, recovery: null }, headers)).toEqual([]);
  });

  it('refuses a status, a body, a header or a header value the document does not have', async () => {
    const breaches = async (status: number, body: unknown, headers: Record<string, string>) =>
      (await contractBreaches('GET', '/user/mfa', status, body, new Headers(headers))).join('\n');
    expect(await breaches(418, { error: { code: 'teapot', message: '' } }, requestId)).toContain(
      'status 418 is not one listFactors documents',
    );
    expect(await breaches(200, { ...factors, recovery: 'soon' }, requestId)).toContain('body/recovery');
    expect(await breaches(200, { ...factors, recovery: null, extra: 1 }, requestId)).toBe('');
    expect(await breaches(200, { factors: [], recovery: null }, requestId)).toContain(
      "must have required property 'aal'",
    );
    const { 'X-Request-Id': _, ...noId } = requestId;
    expect(await breaches(200, { ...factors, recovery: null }, noId)).toContain('no X-Request-Id header');
    expect(await breaches(200, { ...factors, recovery: null }, { ...requestId, 'X-Powered-By': 'me' })).toContain(
      'x-powered-by',
    );
    expect(await breaches(200, { ...factors, recovery: null }, { ...requestId, 'RateLimit-Remaining': 'many' }))
      .toContain('ratelimit-remaining');
    expect(await breaches(401, { error: { code: 'unauthorized', message: 'x' } }, requestId)).toContain(
      'no WWW-Authenticate header',
    );
  });

  it('leaves a request no operation serves to the tests of those', async () => {
    expect(await contractBreaches('PATCH', '/user/mfa', 405, {}, new Headers())).toEqual([]);
  });
});
