// The local gateway in front of PostgREST, as the hosted one: /rest/v1 takes a request only with one of the
// project's API keys, a request without a user token runs as the key's role, and a path it does not serve
// answers the project's error envelope.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { stack } from '../helpers/stack.ts';

const rest = `${stack.apiUrl}/rest/v1`;

/** The gateway's envelope ({ error }) or PostgREST's own error ({ code }). */
type Answer = { error?: { code: string; message: string }; code?: string };

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() as Answer };
}

/** A request sent as written (fetch would resolve `..` and refuses TRACE): status, content type and body. */
function raw(method: string, path: string): Promise<{ status: number; type: string; body: Answer }> {
  const url = new URL(stack.apiUrl);
  return new Promise((resolve, reject) => {
    const sent = request({ host: url.hostname, port: url.port, method, path }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body: JSON.parse(text) }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('the gateway', () => {
  it('refuses /rest/v1 without an API key, or with one that is not the project\'s', async () => {
    const none = await get(`${rest}/profiles?select=username&limit=1`);
    expect(none.status).toBe(401);
    expect(none.body.error?.code).toBe('no_api_key');
    const forged = await get(`${rest}/profiles?select=username&limit=1`, { apikey: 'not-a-key' });
    expect(forged.status).toBe(401);
    expect(forged.body.error?.code).toBe('invalid_api_key');
  });

  it('runs a request with the anon key and no user token as anon', async () => {
    const answer = await get(`${rest}/rpc/nothing_here`, { apikey: stack.anonKey });
    // PostgREST answered (its own error shape), so the key passed and was taken as the bearer.
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('PGRST202');
    const asAnon = await fetch(`${rest}/`, { method: 'HEAD', headers: { apikey: stack.anonKey } });
    expect(asAnon.status).toBe(200);
  });

  it('answers a path it does not serve with 404 not_found in the error envelope', async () => {
    for (const path of ['/', '/rest/v2/posts', '/storage/v1/object/avatars/x.png']) {
      const answer = await get(`${stack.apiUrl}${path}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
      expect(answer.body.error?.message).toContain('/rest/v1');
    }
  });

  it('answers what it refuses itself in the error envelope, never in an HTML page of its own', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['GET', '/functions/v1/api/post/00000000-0000-4000-8000-000000000000%00', 400, 'bad_request'],
      ['TRACE', '/functions/v1/api/health', 405, 'method_not_allowed'],
      // No e-mail templates either: the Send Email hook renders them in the function, Auth fetches none.
      ['GET', '/email/confirmation.html', 404, 'not_found'],
      ['GET', '/rest/v2/page.html', 404, 'not_found'],
      // A path that only normalises into /rest/v1 is not /rest/v1's: refused, not forwarded with or without a key.
      ['GET', '/x/../rest/v1/profiles', 404, 'not_found'],
    ];
    for (const [method, path, status, code] of cases) {
      const answer = await raw(method, path);
      expect([method, path, answer.status, answer.type, answer.body.error?.code]).toEqual([method, path, status, 'application/json', code]);
    }
    // The same paths written plainly are served.
    expect((await raw('GET', '/functions/v1/api/health')).body).toHaveProperty('status');
  });
});
