// Issue 40, replayed: each request is what Supabase Studio's source sends (test/helpers/studio.ts cites the files),
// and after it the rule holds through the facade (HTTP) and through supabase-js (PostgREST and Auth). The e-mails
// of Invite, Send magic link and Send password recovery are replayed in test/api/studio-mails.test.ts; the refusal
// codes of direct edits, in SQL, in test/db/studio.test.ts and the ban buttons' history in
// test/api/studio-auth-bans.test.ts. The suite ends with moderation.integrity_report() empty.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { asRoot, errorOf, rpc } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { anonSdk, signedInSdk } from '../helpers/sdk.ts';
import { impersonating, studioAuth, tableEditor } from '../helpers/studio.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { defaultPassword, uniqueEmail } from '../helpers/users.ts';

const studio = describe.skipIf(!authIsRunning);

/** A post's likes_count as the facade and supabase-js each read it. */
async function likesSeen(post: string, reader: Account): Promise<[number, number]> {
  const facade = await api('GET', `/post/${post}`, { token: reader.accessToken });
  const { data } = await (await signedInSdk(reader)).from('posts').select('likes_count').eq('id', post).single();
  return [facade.body.likes_count, data!.likes_count];
}

/** An account's followers_count as the facade and supabase-js (anon) read it. */
async function followersSeen(account: Account): Promise<[number, number]> {
  const facade = await api('GET', `/${account.username}`);
  const { data } = await anonSdk().from('profiles').select('followers_count').eq('id', account.id).single();
  return [facade.body.followers_count, data!.followers_count];
}

studio("the Authentication page (Auth's admin API with the service key)", () => {
  // apps/studio/data/auth/user-update-mutation.ts: PUT /auth/v1/admin/users/{id} { ban_duration: '24h' | 'none' }.
  it('Ban user ends the supabase-js session and hides the account; Unban lets it sign in and write again', async () => {
    const member = await createAccount('replayban');
    const client = await signedInSdk(member);
    expect((await studioAuth('PUT', `/admin/users/${member.id}`, { ban_duration: '24h' })).status).toBe(200);
    expect((await client.auth.refreshSession()).error).not.toBeNull();
    expect((await client.rpc('create_post', { p_body: 'still here?' })).status).toBe(401);
    expect((await anonSdk().from('profiles').select('id').eq('id', member.id)).data).toEqual([]);
    expect((await api('GET', `/${member.username}`)).status).toBe(404);
    expect((await anonSdk().auth.signInWithPassword({ email: member.email, password: defaultPassword })).error).not
      .toBeNull();

    expect((await studioAuth('PUT', `/admin/users/${member.id}`, { ban_duration: 'none' })).status).toBe(200);
    const again = await signedInSdk(member);
    expect((await again.rpc('create_post', { p_body: 'back' })).error).toBeNull();
    expect((await api('GET', `/${member.username}`)).status).toBe(200);
  });

  // apps/studio/pages/api/platform/auth/[ref]/users/[id]/index.ts: auth.admin.deleteUser(id), DELETE /admin/users/{id}.
  it('Delete user takes its likes and follows with it, and every count follows', async () => {
    const [author, leaving] = await Promise.all([createAccount('replayauthor'), createAccount('replayleaving')]);
    const post = await rpc(author, 'create_post', { p_body: 'liked once' });
    await rpc(leaving, 'like_post', { p_post_id: post.id });
    await rpc(leaving, 'follow', { p_username: author.username });
    expect([await likesSeen(post.id, author), await followersSeen(author)]).toEqual([[1, 1], [1, 1]]);
    expect((await studioAuth('DELETE', `/admin/users/${leaving.id}`, { should_soft_delete: false })).status).toBe(200);
    expect([await likesSeen(post.id, author), await followersSeen(author)]).toEqual([[0, 0], [0, 0]]);
    expect((await api('GET', `/${leaving.username}`)).status).toBe(404);
  });

  it('Delete user still works when a counter it lowers was left too low (a load with triggers off); the recount repairs', async () => {
    const [author, leaving] = await Promise.all([createAccount('replaylow'), createAccount('replaylowfan')]);
    const post = await rpc(author, 'create_post', { p_body: 'counted low' });
    await rpc(leaving, 'like_post', { p_post_id: post.id });
    await rpc(leaving, 'follow', { p_username: author.username });
    await asRoot.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update public.posts set likes_count = 0 where id = ${post.id}`;
      await tx`update public.profiles set followers_count = 0 where id = ${author.id}`;
    });
    expect((await studioAuth('DELETE', `/admin/users/${leaving.id}`, { should_soft_delete: false })).status).toBe(200);
    await asRoot`select private.recount_counters()`;
    expect([await likesSeen(post.id, author), await followersSeen(author)]).toEqual([[0, 0], [0, 0]]);
  });

  // apps/studio/data/auth/user-create-mutation.ts → [ref]/users/index.ts: auth.admin.createUser({ email, password,
  // email_confirm }), POST /auth/v1/admin/users.
  it('Add user makes an account with a username of its own; unconfirmed, it stays invisible', async () => {
    const email = uniqueEmail('added');
    const added = await studioAuth('POST', '/admin/users', { email, password: defaultPassword, email_confirm: true });
    expect(added.status).toBe(200);
    const { data: profile } = await anonSdk().from('profiles').select('username').eq('id', added.body.id).single();
    expect(profile!.username).toMatch(/^added/);
    expect((await api('POST', '/auth/login', { json: { login: profile!.username, password: defaultPassword } })).status)
      .toBe(200);

    const pending = await studioAuth('POST', '/admin/users', {
      email: uniqueEmail('pending'),
      password: defaultPassword,
      email_confirm: false,
    });
    expect(pending.status).toBe(200);
    expect((await anonSdk().from('profiles').select('id').eq('id', pending.body.id)).data).toEqual([]);
  });
});

studio("the table editor (pg-meta's SQL as postgres)", () => {
  it('a counter edited or inserted by hand is refused or zeroed; the liker can still unlike', async () => {
    const [author, fan] = await Promise.all([createAccount('replaycounter'), createAccount('replayfan')]);
    const post = await rpc(author, 'create_post', { p_body: 'counted' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    for (
      const edit of [
        tableEditor.update('posts', { likes_count: 0 }, { id: post.id }),
        tableEditor.update('profiles', { followers_count: 1000 }, { id: author.id }),
      ]
    ) expect(await errorOf(edit)).toMatchObject({ code: 'PT403', hint: 'counter_is_derived' });
    expect(await likesSeen(post.id, author)).toEqual([1, 1]);
    const unliked = await api('POST', `/post/${post.id}/like`, { token: fan.accessToken, json: { like: false } });
    expect([unliked.status, unliked.body.likes_count]).toEqual([200, 0]);

    const [inserted] = await tableEditor.insert('posts', {
      author_id: author.id,
      body: 'made in Studio',
      likes_count: 7,
      comments_count: 3,
    });
    expect(await likesSeen(inserted.id, author)).toEqual([0, 0]);
  });

  it('a like, a comment, a report or a block moved to another target is refused; deleted and inserted, counts follow', async () => {
    const [author, fan, other] = await Promise.all([
      createAccount('replaymove'),
      createAccount('replaymover'),
      createAccount('replayother'),
    ]);
    const [first, second] = [
      await rpc(author, 'create_post', { p_body: 'one' }),
      await rpc(author, 'create_post', { p_body: 'two' }),
    ];
    await rpc(fan, 'like_post', { p_post_id: first.id });
    const comment = await rpc(fan, 'comment_post', { p_post_id: first.id, p_body: 'nice' });
    const report = await rpc(fan, 'report_user', { p_username: author.username, p_reason: 'spam' });
    await rpc(other, 'block', { p_username: fan.username });
    for (
      const move of [
        tableEditor.update('post_likes', { post_id: second.id }, { post_id: first.id, user_id: fan.id }),
        tableEditor.update('comments', { post_id: second.id }, { id: comment.id }),
        tableEditor.update('reports', { target_user_id: other.id }, { id: report.id }),
        tableEditor.update('blocks', { blocked_id: author.id }, { blocker_id: other.id, blocked_id: fan.id }),
      ]
    ) expect(await errorOf(move)).toMatchObject({ code: 'PT403', hint: 'row_cannot_move' });
    // The report still reaches the admins, under its real target.
    const admin = await createAccount('replayadmin');
    await asRoot`select moderation.grant_admin(${admin.username})`;
    const reports = await api('GET', '/admin/reports?type=user&limit=100', { token: admin.accessToken });
    expect(reports.body.items.find((item: { target_id: string }) => item.target_id === author.id)).toMatchObject({
      reports_count: 1,
    });
    expect(reports.body.items.find((item: { target_id: string }) => item.target_id === other.id)).toBeUndefined();

    await tableEditor.delete('post_likes', { post_id: [first.id], user_id: [fan.id] });
    await tableEditor.insert('post_likes', { post_id: second.id, user_id: fan.id });
    expect([await likesSeen(first.id, author), await likesSeen(second.id, author)]).toEqual([[0, 0], [1, 1]]);
    expect((await api('GET', `/post/${first.id}`, { token: author.accessToken })).body.comments_count).toBe(1);
  });

  it('Truncate of a counted table is refused: the rows and their counts stay', async () => {
    const [author, fan] = await Promise.all([createAccount('replaytruncate'), createAccount('replaytfan')]);
    const post = await rpc(author, 'create_post', { p_body: 'kept' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    await rpc(fan, 'follow', { p_username: author.username });
    // The editor truncates without CASCADE: a table another references (follows, by feed_sources; comments) is
    // refused by Postgres first, suggesting CASCADE, which the trigger then refuses (test/db/studio.test.ts).
    const refusals: Record<string, string | undefined> = {};
    for (const name of ['post_likes', 'follows', 'comments', 'reports']) {
      const { code, hint } = await errorOf(tableEditor.truncate(name));
      refusals[name] = code === '0A000' ? 'refused by a foreign key' : hint;
    }
    expect(refusals).toEqual({
      post_likes: 'truncate_refused',
      follows: 'refused by a foreign key',
      comments: 'refused by a foreign key',
      reports: 'truncate_refused',
    });
    expect([await likesSeen(post.id, author), await followersSeen(author)]).toEqual([[1, 1], [1, 1]]);
  });

  it('a follow or close-friend row across a block is refused, so the block still hides both ways', async () => {
    const [blocker, blocked] = await Promise.all([createAccount('replayblocker'), createAccount('replayblocked')]);
    await rpc(blocker, 'block', { p_username: blocked.username });
    for (
      const insert of [
        tableEditor.insert('follows', { follower_id: blocked.id, followee_id: blocker.id }),
        tableEditor.insert('close_friends', { owner_id: blocker.id, friend_id: blocked.id }),
      ]
    ) expect(await errorOf(insert)).toMatchObject({ code: 'PT409', hint: 'across_block' });
    expect(await followersSeen(blocker)).toEqual([0, 0]);
    expect((await api('GET', `/${blocker.username}`, { token: blocked.accessToken })).status).toBe(404);
    expect((await (await signedInSdk(blocked)).from('profiles').select('id').eq('id', blocker.id)).data).toEqual([]);
  });

  it('a like or comment across a block, a comment edit or a notification by hand is refused; the block still hides', async () => {
    const [author, blocked, fan] = await Promise.all(
      ['replayauthor', 'replayshunned', 'replayfan'].map((label) => createAccount(label)),
    );
    const post = await rpc(author, 'create_post', { p_body: 'replayed' });
    await rpc(author, 'block', { p_username: blocked.username });
    const refused = { code: 'PT409', hint: 'not_visible_to_writer' };
    expect(await errorOf(tableEditor.insert('post_likes', { post_id: post.id, user_id: blocked.id }))).toMatchObject(
      refused,
    );
    expect(await errorOf(tableEditor.insert('comments', { post_id: post.id, author_id: blocked.id, body: 'hi' })))
      .toMatchObject(refused);
    expect(
      await errorOf(tableEditor.insert('notifications', {
        recipient_id: author.id,
        actor_id: fan.id,
        kind: 'post_like',
        post_id: post.id,
      })),
    ).toMatchObject({ code: 'PT403', hint: 'written_by_database' });
    const [comment] = await tableEditor.insert('comments', { post_id: post.id, author_id: fan.id, body: 'kept' });
    expect(await errorOf(tableEditor.update('comments', { body: 'rewritten' }, { id: comment.id })))
      .toMatchObject({ code: 'PT403', hint: 'comment_not_editable' });
    const [facade, sdk] = await Promise.all([
      api('GET', `/post/${post.id}`, { token: author.accessToken }),
      (await signedInSdk(author)).from('comments').select('body').eq('post_id', post.id),
    ]);
    expect([facade.body.likes_count, facade.body.comments_count]).toEqual([0, 1]);
    expect(sdk.data).toEqual([{ body: 'kept' }]);
    expect((await api('GET', `/post/${post.id}`, { token: blocked.accessToken })).status).toBe(404);
  });

  it('a ban history entry or a confirmation written by hand is refused; the account reads as before', async () => {
    const member = await createAccount('replayrecord');
    const forged = tableEditor.insert('ban_history', {
      element_type: 'user',
      element_id: member.id,
      action: 'ban',
      reason: 'back-dated',
      created_at: '2020-01-01T00:00:00Z',
    });
    expect(await errorOf(forged)).toMatchObject({ code: 'PT403', hint: 'ban_history_is_append_only' });
    expect(await errorOf(tableEditor.update('profiles', { confirmed_at: null }, { id: member.id })))
      .toMatchObject({ code: 'PT403', hint: 'confirmed_by_auth' });
    expect(await errorOf(tableEditor.update('profiles', { banned_at: new Date().toISOString() }, { id: member.id })))
      .toMatchObject({ code: 'PT403', hint: 'ban_needs_reason' });
    expect((await api('GET', `/${member.username}`)).status).toBe(200);
    expect((await anonSdk().from('profiles').select('id').eq('id', member.id)).data).toEqual([{ id: member.id }]);
    expect((await api('GET', '/auth/user', { token: member.accessToken })).status).toBe(200);
  });
});

// Issue 53: the tables and columns an admin reaches in the table editor beyond the counted ones, private tables
// included (the editor lists every schema to `postgres`), each edit as pg-meta's updateQuery / insertQuery writes it
// (test/helpers/studio.ts).
studio('the table editor on derived, private and checked columns', () => {
  it("a post's edited_at set by hand keeps its value; an edit of the text still stamps it", async () => {
    const author = await createAccount('replayedited');
    const post = await rpc(author, 'create_post', { p_body: 'never edited' });
    await tableEditor.update('posts', { edited_at: '2020-01-01T00:00:00Z' }, { id: post.id });
    const read = async () => [
      (await api('GET', `/post/${post.id}`, { token: author.accessToken })).body.edited_at,
      (await (await signedInSdk(author)).from('posts').select('edited_at').eq('id', post.id).single()).data!.edited_at,
    ];
    expect(await read()).toEqual([null, null]);
    await tableEditor.update('posts', { body: 'edited in Studio' }, { id: post.id });
    const [facade, sdk] = await read();
    expect(facade).not.toBeNull();
    expect(new Date(sdk).getTime()).toBe(new Date(facade).getTime());
  });

  it("a notification's actor, recipient or kind edited is refused; marking it read is kept", async () => {
    const [followed, follower, stranger] = await Promise.all(
      ['replaynotified', 'replaynotifier', 'replaystranger'].map((label) => createAccount(label)),
    );
    await rpc(follower, 'follow', { p_username: followed.username });
    const [notice] = await asRoot`select id from public.notifications where recipient_id = ${followed.id}`;
    for (
      const edit of [
        tableEditor.update('notifications', { actor_id: stranger.id }, { id: notice.id }),
        tableEditor.update('notifications', { recipient_id: stranger.id }, { id: notice.id }),
        tableEditor.update('notifications', { kind: 'post_like' }, { id: notice.id }),
      ]
    ) expect(await errorOf(edit)).toMatchObject({ code: 'PT403', hint: 'written_by_database' });
    await tableEditor.update('notifications', { read_at: new Date().toISOString() }, { id: notice.id });
    const facade = await api('GET', '/notifications', { token: followed.accessToken });
    expect(facade.body.items.map((item: { actor: { username: string } }) => item.actor.username)).toEqual([
      follower.username,
    ]);
    expect(facade.body.items[0].read_at).not.toBeNull();
    const { data } = await (await signedInSdk(stranger)).from('notifications').select('id');
    expect(data).toEqual([]);
  });

  it('a mention moved to another account is refused: the text decides whom it names', async () => {
    const [author, named, blocker] = await Promise.all(
      ['replaymentioner', 'replaynamed', 'replaymblocker'].map((label) => createAccount(label)),
    );
    const post = await rpc(author, 'create_post', { p_body: 'a post' });
    await rpc(blocker, 'block', { p_username: author.username });
    const comment = await rpc(author, 'comment_post', { p_post_id: post.id, p_body: `hello @${named.username}` });
    const posted = await rpc(author, 'create_post', { p_body: `and @${named.username}` });
    for (
      const move of [
        tableEditor.update('comment_mentions', { user_id: blocker.id }, { comment_id: comment.id, user_id: named.id }),
        tableEditor.update('post_mentions', { user_id: blocker.id }, { post_id: posted.id, user_id: named.id }),
      ]
    ) expect(await errorOf(move)).toMatchObject({ code: 'PT403', hint: 'written_by_database' });
    const { data } = await (await signedInSdk(author)).from('comment_mentions').select('user_id').eq(
      'comment_id',
      comment.id,
    );
    expect(data).toEqual([{ user_id: named.id }]);
    const notices = await api('GET', '/notifications', { token: blocker.accessToken });
    expect(notices.body.items).toEqual([]);
  });

  it('a close-friend entry or a mute moved onto another pair (a blocked one) is refused', async () => {
    const [owner, friend, blocked] = await Promise.all(
      ['replayowner', 'replayfriend', 'replaymblocked'].map((label) => createAccount(label)),
    );
    await rpc(owner, 'set_close_friend', { p_username: friend.username });
    await rpc(owner, 'mute', { p_username: friend.username });
    await rpc(owner, 'block', { p_username: blocked.username });
    for (
      const move of [
        tableEditor.update('close_friends', { friend_id: blocked.id }, { owner_id: owner.id, friend_id: friend.id }),
        tableEditor.update('mutes', { muted_id: blocked.id }, { muter_id: owner.id, muted_id: friend.id }),
      ]
    ) expect(await errorOf(move)).toMatchObject({ code: 'PT403', hint: 'row_cannot_move' });
    const client = await signedInSdk(owner);
    expect((await client.from('mutes').select('muted_id')).data).toEqual([{ muted_id: friend.id }]);
    expect((await client.from('close_friends').select('friend_id')).data).toEqual([{ friend_id: friend.id }]);
  });

  it('a deleted row of private.feed_sources is found by the report, and its repair brings the posts back to the feed', async () => {
    const [reader, followed] = await Promise.all([
      createAccount('replayfeedreader'),
      createAccount('replayfeedauthor'),
    ]);
    await rpc(reader, 'follow', { p_username: followed.username });
    const post = await rpc(followed, 'create_post', { p_body: 'for my followers' });
    const feedIds = async () => [
      (await api('GET', '/feed', { token: reader.accessToken })).body.items.map((item: { id: string }) => item.id),
      ((await (await signedInSdk(reader)).rpc('feed')).data as { items: { id: string }[] }).items.map((item) =>
        item.id
      ),
    ];
    expect(await feedIds()).toEqual([[post.id], [post.id]]);
    await tableEditor.delete('private.feed_sources', { follower_id: [reader.id], followee_id: [followed.id] });
    const found = await asRoot`select repair from moderation.integrity_report()
      where problem = 'feed source' and element_id = ${reader.id}`;
    expect(found).toEqual([{ repair: 'select private.rebuild_feed_sources();' }]);
    await asRoot.unsafe(found[0].repair);
    expect(await feedIds()).toEqual([[post.id], [post.id]]);
  });

  it('an exemption from the write limits, or a history entry, written by hand is refused; the function records', async () => {
    const brand = await createAccount('replaytrusted');
    expect(await errorOf(tableEditor.insert('private.trusted_writers', { user_id: brand.id }))).toMatchObject({
      code: 'PT403',
      hint: 'write_limit_needs_reason',
    });
    const forged = tableEditor.insert('private.write_limit_history', {
      user_id: brand.id,
      action: 'trust',
      reason: 'forged',
    });
    expect(await errorOf(forged)).toMatchObject({ code: 'PT403', hint: 'history_is_append_only' });
    expect(
      await errorOf(tableEditor.insert('private.write_counts', {
        user_id: brand.id,
        family: 'posts',
        window_start: new Date().toISOString(),
        writes: 1,
      })),
    ).toMatchObject({ code: 'PT403', hint: 'write_limit_needs_reason' });
    await asRoot`select moderation.trust_writer(${brand.username}, 'our own bot')`;
    expect(await asRoot`select action, reason from private.write_limit_history where user_id = ${brand.id}`).toEqual([
      { action: 'trust', reason: 'our own bot' },
    ]);
    await asRoot`select moderation.trust_writer(${brand.username}, 'done', false)`;
  });

  it("a username in use cannot be reserved; a username, time zone or required value the checks refuse gets the API's code", async () => {
    const member = await createAccount('replayreserved');
    expect(await errorOf(tableEditor.insert('private.reserved_usernames', { name: member.username.toUpperCase() })))
      .toMatchObject({ code: 'PT409', hint: 'username_taken' });
    expect(await errorOf(tableEditor.update('profiles', { username: 'No Spaces!' }, { id: member.id })))
      .toMatchObject({ code: 'PT400', hint: 'invalid_username' });
    expect(await errorOf(tableEditor.update('profiles', { time_zone: 'Mars/Olympus' }, { id: member.id })))
      .toMatchObject({ code: 'PT400', hint: 'invalid_time_zone' });
    const [post] = await tableEditor.insert('posts', { author_id: member.id, body: 'kept' });
    for (
      const [edit, columns] of [
        [tableEditor.insert('posts', { author_id: member.id }), 'body'],
        [tableEditor.insert('post_likes', { post_id: post.id }), 'user_id'],
        [tableEditor.update('posts', { body: null }, { id: post.id }), 'body'],
        [tableEditor.insert('follows', { follower_id: member.id }), 'followee_id'],
      ] as const
    ) {
      const refused = await errorOf(edit);
      expect(refused).toMatchObject({ code: 'PT400', hint: 'missing_value' });
      expect(refused.message).toContain(columns);
    }
    // A row naming what does not exist: the API's 404, not a foreign key's name.
    const nobody = randomUUID();
    for (
      const [edit, hint] of [
        [tableEditor.insert('post_likes', { post_id: nobody, user_id: member.id }), 'post_not_found'],
        [tableEditor.insert('comment_likes', { comment_id: nobody, user_id: member.id }), 'comment_not_found'],
        [tableEditor.insert('comments', { post_id: nobody, author_id: member.id, body: 'lost' }), 'post_not_found'],
        [tableEditor.insert('profiles', { id: nobody, username: 'nobodyhere' }), 'user_not_found'],
      ] as const
    ) expect(await errorOf(edit)).toMatchObject({ code: 'PT404', hint });
    expect((await api('GET', `/${member.username}`)).status).toBe(200);
    expect((await anonSdk().from('profiles').select('time_zone').eq('id', member.id).single()).data).toEqual({
      time_zone: 'UTC',
    });
  });

  it("a reply under another post than its parent's is refused as the API refuses it; one without a post goes under its parent's", async () => {
    const author = await createAccount('replayreply');
    const [first, second] = [
      await rpc(author, 'create_post', { p_body: 'one' }),
      await rpc(author, 'create_post', { p_body: 'two' }),
    ];
    const comment = await rpc(author, 'comment_post', { p_post_id: first.id, p_body: 'parent' });
    expect(
      await errorOf(tableEditor.insert('comments', {
        post_id: second.id,
        parent_id: comment.id,
        author_id: author.id,
        body: 'lost',
      })),
    ).toMatchObject({ code: 'PT404', hint: 'comment_not_found' });
    const [reply] = await tableEditor.insert('comments', {
      parent_id: comment.id,
      author_id: author.id,
      body: 'found',
    });
    expect(reply.post_id).toBe(first.id);
    const replies = await api('GET', `/post/comment/${comment.id}/replies`, { token: author.accessToken });
    expect(replies.body.items.map((item: { body: string }) => item.body)).toEqual(['found']);
  });
});

// apps/studio's Database > Triggers page switches a trigger with pg-meta's triggers update (supabase/postgres-meta,
// src/lib/PostgresMetaTriggers.ts: `BEGIN; ALTER TABLE <schema>.<table> DISABLE TRIGGER <name>; COMMIT;`, or
// ENABLE REPLICA), run as `postgres`: sent whole once on a connection of its own (a refused statement leaves that
// transaction aborted), then the ALTER alone for each trigger and mode.
studio('Database > Triggers', () => {
  it('switching a product trigger off is refused; the like is counted, the follow fed, the block ends the follow', async () => {
    const [author, fan] = await Promise.all([createAccount('replayswitch'), createAccount('replayswitchfan')]);
    const pgMeta = postgres(stack.dbUrl, { max: 1, onnotice: () => {} });
    try {
      expect(
        await errorOf(
          pgMeta.unsafe(`BEGIN; ALTER TABLE "public"."post_likes" DISABLE TRIGGER "count_post_like";  COMMIT;`),
        ),
      ).toMatchObject({ code: 'PT403', hint: 'trigger_switch_refused' });
    } finally {
      await pgMeta.end();
    }
    for (
      const [table, trigger] of [
        ['post_likes', 'count_post_like'],
        ['follows', 'sync_feed_source'],
        ['blocks', 'apply_block'],
        ['reports', 'summarize_reports'],
      ]
    ) {
      for (const mode of ['DISABLE', 'ENABLE REPLICA']) {
        expect(await errorOf(asRoot.unsafe(`ALTER TABLE "public"."${table}" ${mode} TRIGGER "${trigger}";`)))
          .toMatchObject({ code: 'PT403', hint: 'trigger_switch_refused' });
      }
    }
    const post = await rpc(author, 'create_post', { p_body: 'counted' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    expect(await likesSeen(post.id, author)).toEqual([1, 1]);
    await rpc(fan, 'follow', { p_username: author.username });
    expect((await api('GET', '/feed', { token: fan.accessToken })).body.items.map((item: { id: string }) => item.id))
      .toEqual([post.id]);
    await rpc(author, 'block', { p_username: fan.username });
    expect(await followersSeen(author)).toEqual([0, 0]);
  });
});

// apps/studio/lib/role-impersonation.ts and pg-meta's role-impersonation.ts: the SQL editor's "impersonate a user"
// runs the query as `postgres` after these settings (the user's claims with a made-up session_id, and a marker path)
// and PostgREST's pre-request hook (test/helpers/studio.ts); test/db/impersonation.test.ts covers what it may and may
// not open.
studio('the SQL editor impersonating a user', () => {
  it('reads the feed and writes a like as the user would through supabase-js', async () => {
    const [reader, followed, blocker] = await Promise.all(
      ['replayreader', 'replayfollowed', 'replayblocker'].map((label) => createAccount(label)),
    );
    await rpc(reader, 'follow', { p_username: followed.username });
    const post = await rpc(followed, 'create_post', { p_body: 'in the feed' });
    const hidden = await rpc(blocker, 'create_post', { p_body: 'not for the reader' });
    await rpc(blocker, 'block', { p_username: reader.username });
    const impersonated = await impersonating(reader, (tx) => tx`select public.feed() as page`);
    const { data } = await (await signedInSdk(reader)).rpc('feed');
    const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);
    expect(ids(impersonated[0].page)).toEqual(ids(data as { items: { id: string }[] }));
    expect(ids(impersonated[0].page)).toContain(post.id);
    await impersonating(reader, (tx) => tx`select public.like_post(${post.id})`);
    expect((await api('GET', `/post/${post.id}`, { token: reader.accessToken })).body.viewer.liked).toBe(true);
    expect(await errorOf(impersonating(reader, (tx) => tx`select public.like_post(${hidden.id})`)))
      .toMatchObject({ code: 'PT404', hint: 'post_not_found' });
  });
});

afterAll(async () => {
  if (!authIsRunning) return;
  expect(await asRoot`select problem, element_type, element_id, detail from moderation.integrity_report()`).toEqual([]);
});
