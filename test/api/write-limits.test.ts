// Write limits through the facade and supabase-js (supabase/schemas/24_write_limits.sql): a new account is
// stopped at its limit whichever way it writes, 8 writers at once cannot pass it, and the refusal tells a
// browser when to come back.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { refusal, signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

/** The limit of posts for an account younger than a day, as the database holds it. */
async function newAccountPostLimit(): Promise<number> {
  const [row] = await asRoot`select max_writes_new_account as n from private.write_limits where family = 'posts'`;
  return row.n;
}

/** `total` posts by `author`, `parallel` requests at a time, in order of sending. */
async function postMany(author: Account, total: number, parallel: number): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (let sent = 0; sent < total; sent += parallel) {
    const batch = Array.from(
      { length: Math.min(parallel, total - sent) },
      (_, i) =>
        api('POST', '/post/create', {
          token: author.accessToken,
          json: { body: `post ${sent + i}` },
          headers: { Origin: 'https://app.example' },
        }),
    );
    answers.push(...await Promise.all(batch));
  }
  return answers;
}

async function postsOf(author: Account): Promise<number> {
  const [row] = await asRoot`select count(*)::int as n from public.posts where author_id = ${author.id}`;
  return row.n;
}

describe.skipIf(!authIsRunning)('write limits', () => {
  let limit: number;

  beforeAll(async () => {
    limit = await newAccountPostLimit();
  });

  it('a new account sending 400 posts and 400 comments, 8 at a time, is stopped at each limit, exactly, with a 429 a browser can read', async () => {
    const author = await createAccount('flooder');
    const answers = await postMany(author, 400, 8);
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 429);
    expect(created).toHaveLength(limit);
    expect(refused).toHaveLength(400 - limit);
    expect(await postsOf(author)).toBe(limit);

    const [{ n: commentLimit }] =
      await asRoot`select max_writes_new_account as n from private.write_limits where family = 'comments'`;
    const post = created[0].body.id;
    const comments: ApiResponse[] = [];
    for (let sent = 0; sent < 400; sent += 8) {
      comments.push(
        ...await Promise.all(
          Array.from(
            { length: 8 },
            (_, i) =>
              api('POST', `/post/${post}/comment`, {
                token: author.accessToken,
                json: { body: `comment ${sent + i}` },
              }),
          ),
        ),
      );
    }
    expect(comments.filter((a) => a.status === 201)).toHaveLength(commentLimit);
    expect(comments.filter((a) => a.status === 429).every((a) => a.body.error.code === 'too_many_comments')).toBe(true);
    const [{ n: stored }] = await asRoot`select count(*)::int as n from public.comments where post_id = ${post}`;
    expect(stored).toBe(commentLimit);

    const last = refused[refused.length - 1];
    expect(last.body.error.code).toBe('too_many_posts');
    expect(last.body.error.message).toMatch(/limit of \d+ posts in 3 hours; try again in/);
    const retryAfter = Number(last.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3 * 3600);
    expect(last.headers.get('RateLimit-Limit')).toBe(String(limit));
    expect(last.headers.get('RateLimit-Remaining')).toBe('0');
    expect(last.headers.get('RateLimit-Reset')).toBe(String(retryAfter));
    const exposed = (last.headers.get('Access-Control-Expose-Headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
  });

  it('each accepted write says what is left of the limit', async () => {
    const author = await createAccount('counter');
    const named = await createAccount('named');
    const [first] = await postMany(author, 1, 1);
    expect(first.status).toBe(201);
    expect(first.headers.get('RateLimit-Limit')).toBe(String(limit));
    expect(first.headers.get('RateLimit-Remaining')).toBe(String(limit - 1));
    // A post that mentions someone also counts a mention; the answer reports the post's limit, the first written.
    const second = await api('POST', '/post/create', {
      token: author.accessToken,
      json: { body: `hi @${named.username}` },
    });
    expect(second.body.mentions).toHaveLength(1);
    expect(second.headers.get('RateLimit-Limit')).toBe(String(limit));
    expect(second.headers.get('RateLimit-Remaining')).toBe(String(limit - 2));
    expect(Number(second.headers.get('RateLimit-Reset'))).toBeGreaterThan(0);
    // A read counts against the request limits only: its headers speak of those, not of the write limits.
    const read = await api('GET', `/${author.username}/posts`, { token: author.accessToken });
    expect(read.status).toBe(200);
    const [requests] = await asRoot`select max_requests from private.request_limits where scope = 'account'`;
    expect(read.headers.get('RateLimit-Limit')).toBe(String(requests.max_requests));
  });

  it("supabase-js inserting directly meets the same count, and is refused with PostgREST's 429, with Retry-After and RateLimit-*", async () => {
    const author = await createAccount('direct');
    const half = Math.floor(limit / 2);
    expect((await postMany(author, half, 4)).every((a) => a.status === 201)).toBe(true);
    const sdk = await signedInSdk(author);
    for (let i = half; i < limit; i++) {
      const { error } = await sdk.from('posts').insert({ body: `direct ${i}` });
      expect(error).toBeNull();
    }
    const over = await sdk.from('posts').insert({ body: 'one too many' });
    expect(refusal(over)).toEqual({ status: 429, code: 'PT429', hint: 'too_many_posts' });
    const quota = JSON.parse(over.error!.details);
    expect(quota).toMatchObject({ limit, remaining: 0 });
    // PostgREST's 429 says when to come back as the facade's does: Retry-After and the RateLimit-* fields.
    const raw = await fetch(`${stack.apiUrl}/rest/v1/posts`, {
      method: 'POST',
      headers: {
        apikey: stack.anonKey,
        Authorization: `Bearer ${author.accessToken}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ body: 'one too many, again' }),
    });
    expect(raw.status).toBe(429);
    expect(await raw.json()).toMatchObject({ code: 'PT429', hint: 'too_many_posts' });
    const reset = Number(raw.headers.get('Retry-After'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(quota.reset);
    expect([
      raw.headers.get('RateLimit-Limit'),
      raw.headers.get('RateLimit-Remaining'),
      raw.headers.get('RateLimit-Reset'),
    ])
      .toEqual([String(limit), '0', String(reset)]);
    expect(await postsOf(author)).toBe(limit);
    // The facade refuses the next one too: one count, whichever way the account writes.
    const facade = await api('POST', '/post/create', {
      token: author.accessToken,
      json: { body: 'and through the facade' },
    });
    expect(facade.status).toBe(429);
  });

  it('edits of posts have a limit of their own, met by the facade and supabase-js alike', async () => {
    const [{ n: editLimit }] =
      await asRoot`select max_writes_new_account as n from private.write_limits where family = 'post_edits'`;
    const author = await createAccount('editor');
    const [created] = await postMany(author, 1, 1);
    const post = created.body.id;
    const sdk = await signedInSdk(author);
    const half = Math.floor(editLimit / 2);
    for (let i = 0; i < half; i++) {
      const { error } = await sdk.from('posts').update({ body: `edit ${i}` }).eq('id', post);
      expect(error).toBeNull();
    }
    const edits: ApiResponse[] = [];
    for (let sent = half; sent < editLimit + 8; sent += 8) {
      edits.push(
        ...await Promise.all(
          Array.from(
            { length: 8 },
            (_, i) =>
              api('PUT', `/post/${post}`, { token: author.accessToken, json: { body: `facade edit ${sent + i}` } }),
          ),
        ),
      );
    }
    expect(edits.filter((a) => a.status === 200)).toHaveLength(editLimit - half);
    const refused = edits.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.body.error.code === 'too_many_post_edits')).toBe(true);
    expect(Number(refused[0].headers.get('Retry-After'))).toBeGreaterThan(0);
    const over = await sdk.from('posts').update({ privacy: 'private' }).eq('id', post);
    expect(refusal(over)).toEqual({ status: 429, code: 'PT429', hint: 'too_many_post_edits' });
    const [row] = await asRoot`select privacy from public.posts where id = ${post}`;
    expect(row.privacy).toBe('public');
    // Editing is limited, writing is not: the account still posts, and likes its own post (a counter, no edit).
    const [another] = await postMany(author, 1, 1);
    expect(another.status).toBe(201);
    expect((await api('POST', `/post/${post}/like`, { token: author.accessToken })).status).toBe(200);
  });

  it('username changes are much rarer than profile edits, through the facade and supabase-js', async () => {
    const [{ n: renames }] =
      await asRoot`select max_writes_new_account as n from private.write_limits where family = 'username_changes'`;
    const account = await createAccount('renamer');
    const sdk = await signedInSdk(account);
    const name = (i: number) => `${account.username.slice(0, 24)}_r${i}`;
    for (let i = 0; i < renames; i++) {
      const status = i % 2 === 0
        ? (await api('PUT', '/user', { token: account.accessToken, json: { username: name(i) } })).status
        : (await sdk.from('profiles').update({ username: name(i) }).eq('id', account.id)).status;
      expect(status).toBe(i % 2 === 0 ? 200 : 204);
    }
    const facade = await api('PUT', '/user', { token: account.accessToken, json: { username: name(renames) } });
    expect(facade.status).toBe(429);
    expect(facade.body.error.code).toBe('too_many_username_changes');
    expect(Number(facade.headers.get('Retry-After'))).toBeGreaterThan(0);
    const direct = await sdk.from('profiles').update({ username: name(renames) }).eq('id', account.id);
    expect(refusal(direct)).toEqual({ status: 429, code: 'PT429', hint: 'too_many_username_changes' });
    // Other edits of the profile still pass, and keeping the same username is no change.
    const bio = await api('PUT', '/user', {
      token: account.accessToken,
      json: { bio: 'still me', username: name(renames - 1) },
    });
    expect(bio.status).toBe(200);
    expect(bio.body.profile.username).toBe(name(renames - 1));
  });

  it('profile edits stop at their limit, whichever way they come', async () => {
    const [{ n: editLimit }] =
      await asRoot`select max_writes_new_account as n from private.write_limits where family = 'profile_edits'`;
    const account = await createAccount('fiddler');
    const sdk = await signedInSdk(account);
    for (let i = 0; i < editLimit; i++) {
      const answer = i % 2 === 0
        ? (await api('PUT', '/user', { token: account.accessToken, json: { bio: `bio ${i}` } })).status
        : (await sdk.from('profiles').update({ display_name: `Name ${i}` }).eq('id', account.id)).status;
      expect(answer).toBe(i % 2 === 0 ? 200 : 204);
    }
    const facade = await api('PUT', '/resetprofilepicture', { token: account.accessToken });
    expect(facade.status).toBe(429);
    expect(facade.body.error.code).toBe('too_many_profile_edits');
    const direct = await sdk.from('profiles').update({ bio: 'one more' }).eq('id', account.id);
    expect(refusal(direct)).toEqual({ status: 429, code: 'PT429', hint: 'too_many_profile_edits' });
    // Another account edits its profile as before.
    const other = await createAccount('calm');
    expect((await api('PUT', '/user', { token: other.accessToken, json: { bio: 'hello' } })).status).toBe(200);
  });

  it("one account's limit is its own: another new account still posts", async () => {
    const flooder = await createAccount('spammer');
    await postMany(flooder, limit + 1, 8);
    const bystander = await createAccount('bystander');
    const answer = await api('POST', '/post/create', { token: bystander.accessToken, json: { body: 'hello' } });
    expect(answer.status).toBe(201);
  });
});
