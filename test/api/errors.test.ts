import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../functions/api/lib/error-codes.ts';
import { appWith } from '../helpers/app.ts';
import { api } from '../helpers/http.ts';
import { stack } from '../helpers/stack.ts';

/**
 * The operations of docs/API.md's endpoint tables (`| GET, PUT | \`/post/:postId\`, … | what | auth |`), as the
 * OpenAPI document names them: `GET /api/post/{postId}`.
 */
function endpointTable(markdown: string): string[] {
  return [...markdown.matchAll(/^\| ((?:GET|POST|PUT|DELETE)(?:, (?:GET|POST|PUT|DELETE))*) \| ([^|]+) \|/gm)]
    .flatMap(([, methods, paths]) =>
      methods.split(', ').flatMap((method) =>
        [...paths.matchAll(/`([^`]+)`/g)].map(([, path]) => `${method} /api${path.replace(/:(\w+)/g, '{$1}')}`)
      )
    );
}

/** Served by the app and in docs/API.md's tables, but outside the OpenAPI document: the API reference's page. */
const undocumented = ['GET /api/docs'];

describe("docs/API.md's endpoint tables", () => {
  it('name each operation of a row as the OpenAPI document does, so a missing row is named', () => {
    const rows = '| GET, DELETE | `/post/:postId` | read; delete | optional |\n' +
      '| POST | `/user/mfa/recovery/code`, `/user/mfa/recovery` | lost it | bearer |\n| rule | where | why |\n';
    expect(endpointTable(rows)).toEqual([
      'GET /api/post/{postId}',
      'DELETE /api/post/{postId}',
      'POST /api/user/mfa/recovery/code',
      'POST /api/user/mfa/recovery',
    ]);
  });
});

describe('the error envelope', () => {
  it('answers an unknown route with 404 route_not_found and a request id', async () => {
    const response = await api('GET', '/no/such/route');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'route_not_found' });
    expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
  });

  // The facade asks its client to close after these (the rest of the body is not read); through the gateway
  // the client's connection is the gateway's, which reads and drops the rest of the body itself.
  it('refuses a body over 64 KiB with 413 before any route runs, and asks its client to close', async () => {
    const response = await api('POST', '/auth/user', { body: 'x'.repeat(65 * 1024) });
    expect([response.status, response.body.error.code]).toEqual([413, 'payload_too_large']);
    const direct = await appWith({}).request('/api/auth/user', { method: 'POST', body: 'x'.repeat(65 * 1024) });
    expect([direct.status, direct.headers.get('connection')]).toEqual([413, 'close']);
    const small = await appWith({}).request('/api/auth/user', {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect([small.status === 413, small.headers.get('connection')]).toEqual([false, null]);
  });

  it('answers a body that has not arrived within 10 s with 408, and asks its client to close', async () => {
    const url = new URL(`${stack.functionsUrl}/auth/login`);
    const started = Date.now();
    // A client that announces 100 bytes and sends 5: the facade does not wait for the rest for ever.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"log`,
        );
      });
      socket.setEncoding('utf8');
      let received = '';
      socket.on('data', (data: string) => {
        received += data;
        // The whole answer: its head, then as many bytes as its Content-Length says.
        const [head, body = ''] = received.split('\r\n\r\n');
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        if (body.length >= length) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
    });
    const elapsed = Date.now() - started;
    expect([elapsed >= 9_900, elapsed < 12_000]).toEqual([true, true]);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
    // The facade itself, given the same dribble.
    const dribble = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"log')),
    });
    const direct = await appWith({}).request('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '100' },
      body: dribble,
      duplex: 'half',
    } as RequestInit);
    expect([direct.status, direct.headers.get('connection')]).toEqual([408, 'close']);
  }, 30_000);

  it('refuses a body that is not JSON with 415 unsupported_media_type, saying what to send', async () => {
    const response = await api('POST', '/auth/login', { body: 'login=a', headers: { 'Content-Type': 'text/plain' } });
    expect([response.status, response.body.error.code]).toEqual([415, 'unsupported_media_type']);
    expect(response.body.error.message).toContain('application/json');
  });

  it('answers a known path with a method it does not serve 405, naming the methods in Allow', async () => {
    // Every method some route serves on the path: /post/create is also /post/{postId} to the router.
    const wrong = await api('PATCH', '/post/create');
    expect([wrong.status, wrong.body.error.code, wrong.headers.get('allow')]).toEqual([
      405,
      'method_not_allowed',
      'DELETE, GET, POST, PUT',
    ]);
    const feed = await api('DELETE', '/feed');
    expect([feed.status, feed.headers.get('allow')]).toEqual([405, 'GET']);
    expect((await api('PATCH', '/no/such/route')).status).toBe(404);
  });

  it('challenges every 401 with WWW-Authenticate, invalid_token when a token was refused', async () => {
    const none = await api('GET', '/feed');
    expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="api"']);
    const malformed = await api('GET', '/feed', { token: 'not-a-jwt' });
    expect([malformed.status, malformed.body.error.code]).toEqual([401, 'invalid_token']);
    expect(malformed.body.error.message).toContain('not an access token');
    expect(malformed.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="api", error="invalid_token", error_description="/,
    );
    const scheme = await api('GET', '/feed', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(scheme.body.error.message).toContain('must be "Bearer <access token>"');
  });
});

describe('browsers on other origins', () => {
  it('get a CORS preflight answer and the CORS headers on every response', async () => {
    const preflight = await fetch(`${stack.functionsUrl}/post/create`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
    const refused = await api('GET', '/no/such/route', { headers: { Origin: 'https://app.example' } });
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id,Retry-After,WWW-Authenticate,Allow,RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,Content-Disposition,ETag',
    );
  });
});

describe('GET /openapi.json', () => {
  it('documents every route, error responses included', async () => {
    const response = await api('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const documented = Object.entries(response.body.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`)
    );
    // The document lists what the app mounts (functions/api/app.ts), so no list of operations is kept here: each
    // one is a row of docs/API.md's endpoint tables, and each row an operation.
    const table = endpointTable(readFileSync('docs/API.md', 'utf8'));
    expect(documented.length).toBeGreaterThan(70);
    expect(
      documented.filter((operation) => !table.includes(operation)),
      "documented operations without a row in docs/API.md's endpoint tables: add each (method, path, what, auth)",
    ).toEqual([]);
    expect(
      table.filter((operation) => !documented.includes(operation) && !undocumented.includes(operation)),
      "rows of docs/API.md's endpoint tables that the OpenAPI document lacks: remove them, or mount the route",
    ).toEqual([]);
    type Operation = { responses: Record<string, unknown>; requestBody?: unknown; security?: object[] };
    for (const [path, methods] of Object.entries(response.body.paths)) {
      for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
        const statuses = Object.keys(operation.responses);
        // What the middleware adds to every route: a body can be malformed, too big, too slow or not JSON; a token
        // can be invalid wherever one is read; anything can meet a database that is down.
        const expected = ['500', '503'];
        if (operation.requestBody) expected.push('400', '408', '413', '415');
        if (operation.security?.some((scheme) => 'bearerAuth' in scheme)) expected.push('401');
        expect([method, path, expected.filter((status) => !statuses.includes(status))]).toEqual([method, path, []]);
        // Every error answer is the one envelope, naming codes of its status: all of them (Error404), or those its
        // operation can answer (GetPostError404). Health's 503 is its own report of the services.
        for (const status of statuses.filter((code) => code >= '400' && !(path === '/api/health' && code === '503'))) {
          const answer = operation.responses[status] as {
            content: { 'application/json': { schema: { $ref: string } } };
          };
          const ref = answer.content['application/json'].schema.$ref;
          expect([method, path, status, ref]).toEqual([
            method,
            path,
            status,
            expect.stringMatching(new RegExp(`^#/components/schemas/(\\w+)?Error${status}$`)),
          ]);
          const codes: string[] =
            response.body.components.schemas[ref.split('/').pop()!].properties.error.properties.code.enum;
          const ofStatus = errorCodes[Number(status)].codes;
          expect([method, path, status, codes.filter((code) => !ofStatus.includes(code))]).toEqual([
            method,
            path,
            status,
            [],
          ]);
        }
      }
    }
    // Each envelope lists codes of its status, from supabase/ERRORS.md, with a real example.
    const notFound = response.body.components.schemas.GetPostError404;
    expect(notFound.example.error).toMatchObject({ code: 'post_not_found', message: 'Post not found' }); // as GET /post/{postId} answers it
    // An operation's answer names only the codes it can answer (lib/operation-codes.ts, read from the facade and
    // the SQL): a post's 404 is about posts, a create's 429 about posts.
    const codesOf = (path: string, method: string, status: string): string[] => {
      const ref: string = response.body.paths[path][method].responses[status].content['application/json'].schema.$ref;
      return response.body.components.schemas[ref.split('/').pop()!].properties.error.properties.code.enum;
    };
    expect(codesOf('/api/post/{postId}', 'get', '404')).toContain('post_not_found');
    expect(codesOf('/api/post/{postId}', 'get', '404')).not.toContain('user_not_found');
    expect(codesOf('/api/{username}/follow', 'post', '404')).toContain('user_not_found');
    expect(codesOf('/api/post/create', 'post', '429')).toEqual(
      expect.arrayContaining(['too_many_posts', 'too_many_mentions', 'too_many_requests']),
    );
    expect(codesOf('/api/post/create', 'post', '429')).not.toContain('too_many_follows');
    expect(codesOf('/api/feed', 'get', '400')).toContain('invalid_cursor');
    expect(codesOf('/api/post/{postId}', 'get', '400')).not.toContain('invalid_cursor');
    const profile = response.body.paths['/api/{username}'].get;
    expect(profile.security).toEqual([{}, { bearerAuth: [] }]);
    expect(Object.keys(profile.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
  });
});
