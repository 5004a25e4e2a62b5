// public.post_mentions and public.comment_mentions through supabase-js: written by the database from the text
// (an insert through PostgREST resolves them), read where the text is visible, of the accounts the reader may see.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { anonSdk, refusal, rootBlock, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('mentions through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let names: Record<string, string>;
  let post: string;
  let secretPost: string;
  let comment: string;

  beforeAll(async () => {
    const labels = ['author', 'plain', 'shunned', 'banned', 'reader', 'blocker', 'admin'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    names = Object.fromEntries(labels.map((label) => [u[label].id, label]));
    await makeAdmin(u.admin);
    const text = `with @${u.plain.username}, @${u.shunned.username.toUpperCase()} and @${u.banned.username}`;
    const written = await u.author.sdk.from('posts').insert({ body: text }).select('id').single();
    post = written.data!.id;
    secretPost =
      (await u.author.sdk.from('posts').insert({ body: text, privacy: 'private' }).select('id').single()).data!.id;
    comment =
      (await u.author.sdk.from('comments').insert({ post_id: post, body: text }).select('id').single()).data!.id;
    await rootBlock(u.reader, u.shunned);
    await rootBlock(u.blocker, u.author);
    await banDirectly(u.banned);
  });

  async function mentioned(client: Sdk, table: 'post_mentions' | 'comment_mentions', id: string): Promise<string[]> {
    const { data, error } = table === 'post_mentions'
      ? await client.from('post_mentions').select('user_id').eq('post_id', id)
      : await client.from('comment_mentions').select('user_id').eq('comment_id', id);
    expect(error).toBeNull();
    return data!.map((row) => names[row.user_id]).sort();
  }

  async function readers(table: 'post_mentions' | 'comment_mentions', id: string): Promise<Record<string, string[]>> {
    const seen: Record<string, string[]> = { anon: await mentioned(anonSdk(), table, id) };
    for (const name of ['author', 'plain', 'reader', 'blocker', 'banned', 'admin']) {
      seen[name] = await mentioned(u[name].sdk, table, id);
    }
    return seen;
  }

  const expected = {
    anon: ['plain', 'shunned'],
    author: ['plain', 'shunned'], // the banned account's mention is hidden while the ban lasts
    plain: ['plain', 'shunned'],
    reader: ['plain'], // not the account it blocked
    blocker: [], // the text is invisible to them
    banned: ['plain', 'shunned'], // its live session reads as anon: not its own mention
    admin: ['banned', 'plain', 'shunned'],
  };

  it('post_mentions: the visible accounts of a visible post', async () => {
    expect(await readers('post_mentions', post)).toEqual(expected);
  });

  it('comment_mentions: the visible accounts of a visible comment', async () => {
    expect(await readers('comment_mentions', comment)).toEqual(expected);
  });

  it("post_mentions: a private post's mentions are for its author (and admins), not for those it mentions", async () => {
    expect(await mentioned(u.author.sdk, 'post_mentions', secretPost)).toEqual(['plain', 'shunned']);
    expect(await mentioned(u.plain.sdk, 'post_mentions', secretPost)).toEqual([]);
    expect(await mentioned(anonSdk(), 'post_mentions', secretPost)).toEqual([]);
    expect(await mentioned(u.admin.sdk, 'post_mentions', secretPost)).toEqual(['banned', 'plain', 'shunned']);
  });

  it('nobody writes mentions directly, not even the author of the text', async () => {
    const intoPost = await u.author.sdk.from('post_mentions').insert({ post_id: post, user_id: u.reader.id });
    expect(refusal(intoPost)).toEqual({ status: 403, code: '42501', hint: null });
    const intoComment = await u.author.sdk.from('comment_mentions').insert({
      comment_id: comment,
      user_id: u.reader.id,
    });
    expect(refusal(intoComment)).toEqual({ status: 403, code: '42501', hint: null });
    const removed = await u.author.sdk.from('post_mentions').delete().eq('post_id', post);
    expect(refusal(removed)).toEqual({ status: 403, code: '42501', hint: null });
    const anon = await anonSdk().from('post_mentions').insert({ post_id: post, user_id: u.reader.id });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(await mentioned(u.author.sdk, 'post_mentions', post)).toEqual(['plain', 'shunned']);
  });
});
