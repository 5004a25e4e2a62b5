// supabase-js typed as a web app types it, `createClient<Database>` with the client package's Database
// (client/database.ts; test/helpers/sdk.ts makes the clients): each API function's result has its fields without
// a cast, and a misspelled field is a compile error. `npm run check` type-checks this file, so the types are
// proved there; the run proves the fields are the ones the functions answer with.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Database } from '../../client/index.ts';
import { anonSdk, refusal, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

type Post = Database['public']['Functions']['get_post']['Returns'];

describe.skipIf(!authIsRunning)("rpc() results typed by the client package's Database", () => {
  it('me, get_post, like_post, feed and notifications give their fields without a cast', async () => {
    const [author, fan] = await Promise.all([sdkUser('author'), sdkUser('fan')]);

    const me = await author.sdk.rpc('me');
    expect(me.data?.username).toBe(author.username);
    // @ts-expect-error: the field is `username`; `npm run check` fails if this stops being an error
    expect(me.data?.user_name).toBeUndefined();

    const created = await author.sdk.rpc('create_post', { p_body: 'A typed day', p_emotion: 70 });
    const postId = created.data!.id;
    expect((await fan.sdk.rpc('follow', { p_username: author.username })).data?.state).toBe('following');

    const liked = await fan.sdk.rpc('like_post', { p_post_id: postId });
    expect(liked.data?.viewer).toEqual({ liked: true, is_author: false });
    expect(liked.data?.likes_count).toBe(1);
    // @ts-expect-error: the field is `likes_count`
    expect(liked.data?.like_count).toBeUndefined();

    const post = await fan.sdk.rpc('get_post', { p_post_id: postId });
    expectTypeOf(post.data).toEqualTypeOf<Post | null>();
    expect(post.data && { body: post.data.body, author: post.data.author.username, emotion: post.data.emotion })
      .toEqual({ body: 'A typed day', author: author.username, emotion: 70 });
    // @ts-expect-error: the field is `body`
    expect(post.data?.text).toBeUndefined();

    const feed = await fan.sdk.rpc('feed');
    expectTypeOf(feed.data!.items).toEqualTypeOf<Post[]>();
    expect(feed.data?.items.map((item) => item.id)).toEqual([postId]);
    // @ts-expect-error: the field is `items`
    expect(feed.data?.itemz).toBeUndefined();

    const notifications = await author.sdk.rpc('notifications');
    expect(notifications.data?.items.map((n) => [n.kind, n.actor.username, n.post_id])).toEqual([
      ['post_like', fan.username, postId],
      ['follow', fan.username, null],
    ]);
    // @ts-expect-error: the field is `kind`
    expect(notifications.data?.items[0].type).toBeUndefined();
  });

  it('check_registration, whose JSON no route answers with, has the fields client/database.ts gives it', async () => {
    const username = `free_${Date.now()}`;
    const checked = await anonSdk().rpc('check_registration', { p_username: username, p_email: 'free@example.test' });
    expectTypeOf(checked.data).toEqualTypeOf<{ username: string; available: true } | null>();
    expect(checked.data).toEqual({ username, available: true });
  });

  it('types the JSON that may be null as nullable: no pending recovery, a ban by Studio, a reporter since deleted', async () => {
    type Functions = Database['public']['Functions'];
    expectTypeOf<null>().toMatchTypeOf<Functions['factor_recovery']['Returns']>();
    expectTypeOf<null>().toMatchTypeOf<Functions['admin_ban_history']['Returns']['items'][number]['admin']>();
    expectTypeOf<null>().toMatchTypeOf<Functions['admin_ban_history_by_admin']['Returns']['items'][number]['admin']>();
    expectTypeOf<null>().toMatchTypeOf<
      Functions['admin_reports']['Returns']['items'][number]['latest_reports'][number]['reporter']
    >();
    const member = await sdkUser('unrecovered');
    const recovery = await member.sdk.rpc('factor_recovery');
    expect(recovery.error).toBeNull();
    expect(recovery.data).toBeNull();
    // @ts-expect-error: data may be null (no recovery pending), so `--strict` refuses the field without a check
    expect(() => recovery.data.completes_at).toThrow(TypeError);
  });

  it("types every column select('*') returns: a post's body_search is its words as text", async () => {
    const author = await sdkUser('searched');
    const created = await author.sdk.rpc('create_post', { p_body: 'Harbour walk', p_emotion: 60 });
    const { data, error } = await author.sdk.from('posts').select('*').eq('id', created.data!.id).single();
    expect(error).toBeNull();
    expectTypeOf(data!.body_search).toEqualTypeOf<string>();
    expect(data!.body_search).toBe("'harbour':1 'walk':2");
  });

  it('types a refusal as no data: anon is not signed in', async () => {
    const me = await anonSdk().rpc('me');
    expectTypeOf(me.data).toEqualTypeOf<Database['public']['Functions']['me']['Returns'] | null>();
    expect(me.data).toBeNull();
    expect(refusal(me).status).toBe(401);
  });
});
