// What a client or a cache may keep of an answer (docs/API.md, "Caching"): Cache-Control on every answer, an ETag
// on a read's JSON, and a 304 without a body when If-None-Match names it. `api()` checks each answer, the 304s
// included, against the document.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe('caching', () => {
  it('revalidates the OpenAPI document: an ETag, and a 304 with no body for it', async () => {
    const first = await api('GET', '/openapi.json');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, no-cache');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const again = await api('GET', '/openapi.json', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, no-cache');
    // What a page on another origin reads stays readable on a 304.
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(again.headers.get('access-control-expose-headers')).toContain('ETag');
    expect(again.headers.get('x-request-id')).toBeTruthy();
    // A list of tags, a weak one, or * name it too; another tag does not.
    expect((await api('GET', '/openapi.json', { headers: { 'If-None-Match': `"other", W/${etag}` } })).status).toBe(
      304,
    );
    expect((await api('GET', '/openapi.json', { headers: { 'If-None-Match': '*' } })).status).toBe(304);
    expect((await api('GET', '/openapi.json', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it.skipIf(!authIsRunning)(
    'a public read is public, a signed-in one private, both revalidated; a change makes a new ETag',
    async () => {
      const [author, reader] = await Promise.all([createAccount('cached'), createAccount('reader')]);
      const anonymous = await api('GET', `/${author.username}`);
      expect(anonymous.headers.get('cache-control')).toBe('public, no-cache');
      expect(anonymous.headers.get('vary')).toContain('Authorization');
      const etag = anonymous.headers.get('etag')!;
      const unchanged = await api('GET', `/${author.username}`, { headers: { 'If-None-Match': etag } });
      expect(unchanged.status).toBe(304);
      // The read still counts against the request limits, and says so.
      expect(unchanged.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);

      const personal = await api('GET', `/${author.username}`, { token: reader.accessToken });
      expect(personal.headers.get('cache-control')).toBe('private, no-cache');
      expect(personal.headers.get('etag')).not.toBe(etag);

      const created = await api('POST', '/post/create', { token: author.accessToken, json: { body: 'A new day' } });
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      expect(created.headers.get('etag')).toBeNull();
      const changed = await api('GET', `/${author.username}`, { headers: { 'If-None-Match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.body.posts_count).toBe(1);
      expect(changed.headers.get('etag')).not.toBe(etag);
    },
  );

  it.skipIf(!authIsRunning)("keeps no copy of the account's secrets, nor of a refusal", async () => {
    const member = await createAccount('secret');
    for (const path of ['/auth/user', '/user/sessions', '/user/mfa']) {
      const read = await api('GET', path, { token: member.accessToken });
      expect([path, read.status, read.headers.get('cache-control'), read.headers.get('etag')]).toEqual([
        path,
        200,
        'no-store',
        null,
      ]);
    }
    const missing = await api('GET', '/post/00000000-0000-4000-8000-000000000000');
    expect([missing.status, missing.headers.get('cache-control'), missing.headers.get('etag')]).toEqual([
      404,
      'no-store',
      null,
    ]);
  });
});
