// Idempotency-Key on the operations that create (supabase/schemas/25_idempotent_creates.sql): a retry with the
// same key gets the first answer and creates nothing, even when the retries race; the same key with another
// request is a 409; keys are each account's own.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

function send(account: Account, path: string, json: unknown, key?: string) {
  return api('POST', path, {
    token: account.accessToken,
    json,
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });
}

async function count(table: 'posts' | 'comments' | 'reports', column: string, id: string): Promise<number> {
  const [row] = await asRoot.unsafe(`select count(*)::int as n from public.${table} where ${column} = $1`, [id]);
  return row.n;
}

describe.skipIf(!authIsRunning)('Idempotency-Key', () => {
  let author: Account;
  let other: Account;

  beforeAll(async () => {
    [author, other] = await Promise.all([createAccount('author'), createAccount('other')]);
  });

  it('a retried post with the same key answers the first post again and creates one', async () => {
    const key = randomUUID();
    const first = await send(author, '/post/create', { body: 'only once' }, key);
    const retry = await send(author, '/post/create', { body: 'only once' }, key);
    expect(first.status).toBe(201);
    expect([retry.status, retry.body]).toEqual([201, first.body]);
    const [row] =
      await asRoot`select count(*)::int as n from public.posts where author_id = ${author.id} and body = 'only once'`;
    expect(row.n).toBe(1);
    // Without a key, the same body is a second post.
    expect((await send(author, '/post/create', { body: 'only once' })).body.id).not.toBe(first.body.id);
  });

  it('eight retries at once create one post', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => send(author, '/post/create', { body: 'raced' }, key)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [row] =
      await asRoot`select count(*)::int as n from public.posts where author_id = ${author.id} and body = 'raced'`;
    expect(row.n).toBe(1);
  });

  it('the same key with another request is a 409 and creates nothing', async () => {
    const key = randomUUID();
    expect((await send(author, '/post/create', { body: 'first' }, key)).status).toBe(201);
    const other = await send(author, '/post/create', { body: 'second' }, key);
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    const [row] =
      await asRoot`select count(*)::int as n from public.posts where author_id = ${author.id} and body = 'second'`;
    expect(row.n).toBe(0);
  });

  it("keys are each account's own; a create that failed leaves its key unused", async () => {
    const key = randomUUID();
    const mine = await send(author, '/post/create', { body: 'same key, two accounts' }, key);
    const theirs = await send(other, '/post/create', { body: 'same key, two accounts' }, key);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);

    const failedKey = randomUUID();
    const refused = await send(author, `/post/${randomUUID()}/comment`, { body: 'on nothing' }, failedKey);
    expect(refused.status).toBe(404);
    const post = mine.body.id;
    const comment = await send(author, `/post/${post}/comment`, { body: 'now on a post' }, failedKey);
    expect(comment.status).toBe(201);
  });

  it('covers comments, replies and reports: a retried report is the first report, not a 409', async () => {
    const post = (await send(other, '/post/create', { body: 'react to me' })).body.id;
    const commentKey = randomUUID();
    const comment = await send(author, `/post/${post}/comment`, { body: 'a comment' }, commentKey);
    expect((await send(author, `/post/${post}/comment`, { body: 'a comment' }, commentKey)).body).toEqual(comment.body);
    expect(await count('comments', 'post_id', post)).toBe(1);

    const replyKey = randomUUID();
    const reply = await send(other, `/post/comment/${comment.body.id}/reply`, { body: 'a reply' }, replyKey);
    expect((await send(other, `/post/comment/${comment.body.id}/reply`, { body: 'a reply' }, replyKey)).body).toEqual(
      reply.body,
    );
    expect(await count('comments', 'post_id', post)).toBe(2);

    for (
      const path of [`/post/${post}/report`, `/post/comment/${comment.body.id}/report`, `/${other.username}/report`]
    ) {
      const key = randomUUID();
      const first = await send(author, path, { reason: 'spam' }, key);
      const retry = await send(author, path, { reason: 'spam' }, key);
      expect([path, first.status, retry.status, retry.body]).toEqual([path, 201, 201, first.body]);
      // Without the key, the second report is the usual 409.
      expect((await send(author, path, { reason: 'spam' })).status).toBe(409);
    }
  });

  it('refuses a key that is empty, too long or not visible ASCII', async () => {
    for (const key of ['', 'a'.repeat(256), 'two words', 'cl\xc3\xa9']) {
      const answer = await send(author, '/post/create', { body: 'bad key' }, key);
      expect([JSON.stringify(key).slice(0, 20), answer.status, answer.body.error.code]).toEqual([
        JSON.stringify(key).slice(0, 20),
        400,
        'validation_failed',
      ]);
    }
    // A key whose bytes are not UTF-8 (fetch sends é as the one byte 0xE9) is refused before the key is read.
    const latin1 = await send(author, '/post/create', { body: 'bad key' }, 'clé');
    expect([latin1.status, latin1.body.error.code]).toEqual([400, 'invalid_encoding']);
  });
});
