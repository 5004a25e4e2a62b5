// Which posts each reader gets from public.posts through supabase-js (docs/PRODUCT.md "Visibility"): post
// privacy, private accounts, blocks both ways, bans of posts and of accounts, and admins who see everything.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import {
  anonSdk,
  type Privacy,
  rootBlock,
  rootCloseFriend,
  rootFollow,
  rootPost,
  type Sdk,
  type SdkUser,
  sdkUser,
} from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

type PostKey =
  | 'pubPublic'
  | 'pubClose'
  | 'pubPrivate'
  | 'pubBanned'
  | 'privPublic'
  | 'privClose'
  | 'privPrivate'
  | 'bannedOwn';

describe.skipIf(!authIsRunning)('reading posts through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  const posts = {} as Record<PostKey, string>;

  beforeAll(async () => {
    const labels = ['pub', 'stranger', 'follower', 'requester', 'closeFriend', 'blocker', 'blocked', 'admin', 'banned'];
    const made = await Promise.all([...labels.map((label) => sdkUser(label)), sdkUser('priv', { isPrivate: true })]);
    labels.forEach((label, i) => (u[label] = made[i]));
    u.priv = made[labels.length];
    await makeAdmin(u.admin);

    for (const reader of [u.follower, u.closeFriend, u.banned]) await rootFollow(reader, u.priv);
    await rootFollow(u.closeFriend, u.pub);
    await asRoot`insert into public.follows (follower_id, followee_id) values (${u.requester.id}, ${u.priv.id})`; // pending
    for (
      const [owner, friend] of [[u.pub, u.closeFriend], [u.priv, u.closeFriend], [u.pub, u.banned], [u.priv, u.banned]]
    ) {
      await rootCloseFriend(owner, friend);
    }
    await rootBlock(u.blocker, u.pub);
    await rootBlock(u.blocker, u.priv);
    await rootBlock(u.pub, u.blocked);
    await rootBlock(u.priv, u.blocked);

    const write = async (
      key: PostKey,
      author: SdkUser,
      privacy: Privacy,
    ) => (posts[key] = await rootPost(author, privacy, key));
    await write('pubPublic', u.pub, 'public');
    await write('pubClose', u.pub, 'close_friends');
    await write('pubPrivate', u.pub, 'private');
    await write('pubBanned', u.pub, 'public');
    await write('privPublic', u.priv, 'public');
    await write('privClose', u.priv, 'close_friends');
    await write('privPrivate', u.priv, 'private');
    await write('bannedOwn', u.banned, 'private');
    await asRoot`select moderation.ban_post(${posts.pubBanned}, 'banned by a test')`;

    // Before its ban, the banned account read what its follows and close-friend entries gave it, and its own post.
    expect(await seen(u.banned.sdk)).toEqual(['bannedOwn', 'privClose', 'privPublic', 'pubClose', 'pubPublic']);
    await banDirectly(u.banned);
  });

  async function seen(client: Sdk): Promise<PostKey[]> {
    const { data, error } = await client.from('posts').select('id, body').in('id', Object.values(posts));
    expect(error).toBeNull();
    return data!.map((row) => row.body as PostKey).sort();
  }

  const expected: Record<string, PostKey[]> = {
    anon: ['pubPublic'],
    stranger: ['pubPublic'],
    requester: ['pubPublic'], // a pending request grants nothing
    follower: ['pubPublic', 'privPublic'],
    closeFriend: ['pubPublic', 'pubClose', 'privPublic', 'privClose'],
    blocker: [],
    blocked: [],
    banned: ['pubPublic'], // its live session now reads what anon reads: not even its own post
    pub: ['pubPublic', 'pubClose', 'pubPrivate', 'pubBanned'], // the author sees their banned post
    priv: ['pubPublic', 'privPublic', 'privClose', 'privPrivate'],
    admin: ['pubPublic', 'pubClose', 'pubPrivate', 'pubBanned', 'privPublic', 'privClose', 'privPrivate', 'bannedOwn'],
  };

  for (const [reader, keys] of Object.entries(expected)) {
    it(`${reader} reads exactly ${keys.join(', ') || 'none of them'}`, async () => {
      const client = reader === 'anon' ? anonSdk() : u[reader].sdk;
      expect(await seen(client)).toEqual([...keys].sort());
    });
  }

  it('an invisible post read by id is an empty answer, and .single() turns it into a 406 (PGRST116)', async () => {
    const hidden = await u.stranger.sdk.from('posts').select('id').eq('id', posts.pubPrivate).single();
    expect(hidden.status).toBe(406);
    expect(hidden.error?.code).toBe('PGRST116');
    const own = await u.pub.sdk.from('posts').select('id, banned_at').eq('id', posts.pubBanned).single();
    expect(own.error).toBeNull();
    expect(own.data?.banned_at).not.toBeNull(); // the author sees it marked banned
  });
});
