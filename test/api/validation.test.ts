// What the facade refuses before it asks the database or Auth anything: missing tokens, malformed JSON,
// wrong types, malformed ids and dates, out-of-range limits, unknown redirect targets, a path, query or header
// that is not UTF-8. Needs no Auth.
import { describe, expect, it } from 'vitest';
import { appWith } from '../helpers/app.ts';
import { api } from '../helpers/http.ts';
import { stack } from '../helpers/stack.ts';

const id = '3f1c7a52-5b1e-4c8e-9a55-0c6a1f2b9d10';

describe('routes for signed-in users refuse anonymous callers with 401', () => {
  const routes: [string, string][] = [
    ['POST', '/auth/logout'],
    ['POST', '/auth/requestdeletecode'],
    ['PUT', '/user'],
    ['DELETE', '/user'],
    ['PUT', '/resetprofilepicture'],
    ['GET', '/follow_requests'],
    ['GET', '/close_friends'],
    ['GET', '/blocks'],
    ['POST', '/close_friends/someone'],
    ['POST', '/someone/follow'],
    ['POST', '/someone/respond_follow'],
    ['DELETE', '/someone/follower'],
    ['POST', '/someone/block'],
    ['POST', '/someone/report'],
    ['POST', '/post/create'],
    ['PUT', `/post/${id}`],
    ['DELETE', `/post/${id}`],
    ['POST', `/post/${id}/like`],
    ['POST', `/post/${id}/report`],
    ['POST', `/post/${id}/comment`],
    ['POST', `/post/comment/${id}/reply`],
    ['POST', `/post/comment/${id}/like`],
    ['DELETE', `/post/comment/${id}`],
    ['POST', `/post/comment/${id}/report`],
    ['GET', '/admin/reports'],
    ['DELETE', `/admin/report/${id}`],
    ['GET', '/admin/bans'],
    ['GET', `/admin/banHistory/${id}`],
    ['GET', '/admin/banHistoryByAdmin/someone'],
    ['POST', '/admin/user/someone/ban'],
    ['DELETE', '/admin/user/someone'],
    ['POST', `/admin/post/${id}/ban`],
    ['DELETE', `/admin/post/${id}`],
  ];
  for (const [method, path] of routes) {
    it(`${method} ${path}`, async () => {
      const response = await api(method, path, method === 'GET' ? {} : { json: {} });
      expect([response.status, response.body.error.code]).toEqual([401, 'unauthorized']);
    });
  }
});

describe('malformed input is a 400 with the field named', () => {
  it('malformed JSON', async () => {
    const response = await api('POST', '/auth/login', {
      body: '{"login": "a",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect([response.status, response.body.error.code]).toEqual([400, 'malformed_json']);
  });

  it('wrong types and missing fields', async () => {
    const response = await api('POST', '/auth/register', { json: { username: ['x'], password: 12345678 } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'email',
      'password',
      'username',
    ]);
  });

  it('oversized and undersized values', async () => {
    for (
      const json of [
        { username: 'ok_name', email: 'a@example.test', password: 'x'.repeat(73) },
        { username: 'x'.repeat(31), email: 'a@example.test', password: 'long enough' },
        { username: 'ok_name', email: `${'a'.repeat(250)}@example.test`, password: 'long enough' },
      ]
    ) {
      expect((await api('POST', '/auth/register', { json })).status).toBe(400);
    }
    expect((await api('POST', '/auth/confirm_email', { json: { email: 'a@example.test', code: '12345' } })).status)
      .toBe(400);
  });

  it('ids, usernames, dates and limits in the wrong format', async () => {
    for (
      const path of [
        '/post/not-a-uuid',
        '/post/comment/123',
        `/post/${id}x/likes`,
        '/Not-A-Name!',
        '/ab',
        '/someone/posts?limit=1000',
        '/someone/posts?limit=0',
        '/someone/followers?limit=abc',
        '/someone/calendar?from=2026-02-30',
        '/someone/calendar?to=yesterday',
        '/date?day=2026-13-01',
        '/date',
      ]
    ) {
      const response = await api('GET', path);
      expect([path, response.status, response.body.error.code]).toEqual([path, 400, 'validation_failed']);
    }
  });
});

describe('GET /auth/google', () => {
  it('redirects to Supabase Auth for an allowed redirect_to, and refuses any other', async () => {
    const allowed = 'http://127.0.0.1:3000/auth/callback';
    const response = await fetch(`${stack.functionsUrl}/auth/google?redirect_to=${encodeURIComponent(allowed)}`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${stack.apiUrl}/auth/v1/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({ provider: 'google', redirect_to: allowed });
    const evil = await api('GET', `/auth/google?redirect_to=${encodeURIComponent('https://evil.example/steal')}`);
    expect([evil.status, evil.body.error.code]).toEqual([400, 'redirect_not_allowed']);
    const lookalike = await api(
      'GET',
      `/auth/google?redirect_to=${encodeURIComponent('http://127.0.0.1:3000/auth/callback/../../evil')}`,
    );
    expect(lookalike.status).toBe(400);
    expect((await api('GET', '/auth/google')).status).toBe(400);
  });
});

describe('a path, query or header that is not UTF-8', () => {
  // In-process, as a hosted project runs the facade: no gateway of ours in front (through the local gateway the
  // same requests get the gateway's same answer, test/sdk/gateway.test.ts).
  const app = appWith({});

  it('is a 400 invalid_encoding, before any route reads it', async () => {
    for (
      const path of [
        '/api/search?type=posts&q=%FF',
        '/api/search?type=posts&q=caf%E9',
        '/api/post/%C0%AF',
        '/api/%ED%A0%80',
      ]
    ) {
      const response = await app.request(path);
      expect([path, response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
        path,
        400,
        'invalid_encoding',
      ]);
    }
    // A header's value is its bytes, one character each: é in Latin-1 is not UTF-8.
    const latin1 = await app.request('/api/search?type=posts&q=cafe', { headers: { 'X-Client-Info': 'caf\xe9' } });
    expect([latin1.status, ((await latin1.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_encoding',
    ]);
  });

  it('in UTF-8, encoded or not, reaches its route', async () => {
    for (const path of ['/api/search?type=posts&q=caf%C3%A9', '/api/search?type=posts&q=café 100%']) {
      const response = await app.request(path);
      expect([path, response.status]).toEqual([path, 200]);
    }
    const utf8Header = await app.request('/api/search?type=posts&q=cafe', {
      headers: { 'X-Client-Info': 'caf\xc3\xa9' },
    });
    expect(utf8Header.status).toBe(200);
  });
});
