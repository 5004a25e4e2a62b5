// The local gateway in front of PostgREST, as the hosted one: /rest/v1 takes a request only with one of the
// project's API keys, a request without a user token runs as the key's role, and a path it does not serve
// answers the project's error envelope.
import { request } from 'node:http';
import { connect } from 'node:net';
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
      response.on(
        'end',
        () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type']),
            body: JSON.parse(text),
          }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** A request written byte for byte (non-ASCII bytes in its path and headers as they are): status, content type and body. */
function bytes(head: string): Promise<{ status: number; type: string; body: Answer }> {
  const url = new URL(stack.apiUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => socket.end(Buffer.from(`${head}\r\n`, 'latin1')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [header, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const type = /^content-type: *(.*)$/im.exec(header)?.[1] ?? '';
      resolve({
        status: Number(header.split(' ')[1]),
        type,
        body: type.startsWith('application/json') ? JSON.parse(body) : { code: body },
      });
    });
  });
}

/** A GET of `path` with `headers` (lines "Name: value\r\n"), each string's characters taken as bytes (HTTP/1.0: no chunks). */
const getBytes = (path: string, headers = '') =>
  bytes(`GET ${path} HTTP/1.0\r\nHost: ${new URL(stack.apiUrl).host}\r\napikey: ${stack.anonKey}\r\n${headers}`);

describe('the gateway', () => {
  it("refuses /rest/v1 without an API key, or with one that is not the project's", async () => {
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
      expect([method, path, answer.status, answer.type, answer.body.error?.code]).toEqual([
        method,
        path,
        status,
        'application/json',
        code,
      ]);
    }
    // The same paths written plainly are served.
    expect((await raw('GET', '/functions/v1/api/health')).body).toHaveProperty('status');
  });

  it('answers a request that is not UTF-8 (a path, a query value or a header) with 400 invalid_encoding, whichever service it is for', async () => {
    const notUtf8: Array<[string, string]> = [
      ['/rest/v1/profiles%FF', ''],
      ['/rest/v1/profiles?select=username&username=eq.%FF', ''],
      ['/rest/v1/profiles?select=username&username=eq.%C3', ''], // the first byte of a character alone
      ['/rest/v1/profiles?select=username&username=eq.%ED%A0%80', ''], // a surrogate, encoded
      ['/rest/v1/profiles?select=username&username=eq.\xff', ''], // a byte sent as it is
      ['/rest/v1/profiles?select=username', 'X-Client-Info: caf\xe9\r\n'], // Latin-1, not UTF-8
      ['/functions/v1/api/search?q=%FF', ''],
      ['/functions/v1/api/post/%C0%AF', ''],
      ['/functions/v1/api/health', 'X-Client-Info: \xff\r\n'],
      ['/auth/v1/health?x=%FE', ''],
    ];
    for (const [path, headers] of notUtf8) {
      const answer = await getBytes(path, headers);
      expect([path, headers, answer.status, answer.type, answer.body.error?.code]).toEqual([
        path,
        headers,
        400,
        'application/json',
        'invalid_encoding',
      ]);
    }
    // The same requests in UTF-8 reach the service: é encoded, é sent as its two bytes, a % that escapes nothing.
    const utf8: Array<[string, string, number]> = [
      ['/rest/v1/profiles?select=username&username=eq.%C3%A9', '', 200],
      ['/rest/v1/profiles?select=username&username=eq.\xc3\xa9%zz', '', 200],
      ['/rest/v1/profiles?select=username', 'X-Client-Info: caf\xc3\xa9 100%FF\r\n', 200],
      ['/functions/v1/api/health', 'X-Client-Info: \xc3\xa9\r\n', 200],
      ['/auth/v1/health?x=%C3%A9', '', 200],
    ];
    for (const [path, headers, status] of utf8) {
      const answer = await getBytes(path, headers);
      expect([path, headers, answer.status]).toEqual([path, headers, status]);
    }
  });
});
