// Each family of write limits, as a supabase-js client's SQL meets it (supabase/schemas/24_write_limits.sql),
// and the exemptions an admin grants from Studio. Each case lowers one family's limit to 2 inside a transaction
// that is rolled back, writes as the account, and expects the third write refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { asRoot, backdate, errorOf, rpc, type Tx } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

class RolledBack extends Error {}

/** Runs `work` as the superuser in a transaction that is then rolled back, whatever it changed. */
async function rolledBack(work: (tx: Tx) => Promise<void>): Promise<void> {
  await asRoot.begin(async (tx) => {
    await work(tx);
    throw new RolledBack();
  }).catch((error) => {
    if (!(error instanceof RolledBack)) throw error;
  });
}

/** The rest of the transaction runs as `actor`, as PostgREST would run it. */
async function becomes(tx: Tx, actor: Account): Promise<void> {
  const claims = JSON.stringify({ ...actor.claims, role: 'authenticated' });
  await tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
}

/** Sets every account's limit of `family` to `max` (for the transaction). */
async function limitTo(tx: Tx, family: string, max: number, forNewAccounts = max): Promise<void> {
  await tx`update private.write_limits set max_writes = ${max}, max_writes_new_account = ${forNewAccounts} where family = ${family}`;
}

/** Runs `work` as `actor` with `family` limited to `max` writes, then rolls everything back. */
function withLimit(family: string, max: number, actor: Account, work: (tx: Tx) => Promise<void>): Promise<void> {
  return rolledBack(async (tx) => {
    await limitTo(tx, family, max);
    await becomes(tx, actor);
    await work(tx);
  });
}

/** Whether the statement is refused by the family's limit (and nothing else). */
async function refusedBy(family: string, statement: Promise<unknown>): Promise<void> {
  expect(await errorOf(statement)).toMatchObject({ code: 'PT429', hint: `too_many_${family}` });
}

describe.skipIf(!authIsRunning)('write limits, family by family', () => {
  let writer: Account;
  let others: Account[];
  let postId: string;
  let otherPostId: string;
  let commentId: string;

  beforeAll(async () => {
    writer = await createAccount('writer');
    others = await Promise.all(['one', 'two', 'three'].map((label) => createAccount(label)));
    postId = (await rpc(others[0], 'create_post', { p_body: 'a post to react to' })).id;
    otherPostId = (await rpc(others[1], 'create_post', { p_body: 'another post' })).id;
    commentId = (await rpc(others[0], 'comment_post', { p_post_id: postId, p_body: 'a comment to like' })).id;
  });

  it('posts', async () => {
    await withLimit('posts', 2, writer, async (tx) => {
      await tx`insert into public.posts (body) values ('one'), ('two')`;
      await refusedBy('posts', tx.savepoint((sp) => sp`insert into public.posts (body) values ('three')`));
    });
  });

  it('comments and replies, counted together', async () => {
    await withLimit('comments', 2, writer, async (tx) => {
      const [top] = await tx`insert into public.comments (post_id, body) values (${postId}, 'top') returning id`;
      await tx`insert into public.comments (post_id, parent_id, body) values (${postId}, ${top.id}, 'reply')`;
      await refusedBy(
        'comments',
        tx.savepoint((sp) => sp`insert into public.comments (post_id, body) values (${postId}, 'third')`),
      );
    });
  });

  it('likes of posts and of comments, counted together', async () => {
    await withLimit('likes', 2, writer, async (tx) => {
      await tx`insert into public.post_likes (post_id) values (${postId})`;
      await tx`insert into public.comment_likes (comment_id) values (${commentId})`;
      await refusedBy(
        'likes',
        tx.savepoint((sp) => sp`insert into public.post_likes (post_id) values (${otherPostId})`),
      );
    });
  });

  it('follows and follow requests', async () => {
    await withLimit('follows', 2, writer, async (tx) => {
      await tx`insert into public.follows (followee_id) values (${others[0].id}), (${others[1].id})`;
      await refusedBy(
        'follows',
        tx.savepoint((sp) => sp`insert into public.follows (followee_id) values (${others[2].id})`),
      );
    });
  });

  it('blocks', async () => {
    await withLimit('blocks', 2, writer, async (tx) => {
      await tx`insert into public.blocks (blocked_id) values (${others[0].id}), (${others[1].id})`;
      await refusedBy(
        'blocks',
        tx.savepoint((sp) => sp`insert into public.blocks (blocked_id) values (${others[2].id})`),
      );
    });
  });

  it('close-friend changes: additions and removals', async () => {
    await withLimit('close_friends', 2, writer, async (tx) => {
      await tx`insert into public.close_friends (friend_id) values (${others[0].id})`;
      await tx`delete from public.close_friends where friend_id = ${others[0].id}`;
      await refusedBy(
        'close_friends',
        tx.savepoint((sp) => sp`insert into public.close_friends (friend_id) values (${others[1].id})`),
      );
    });
  });

  it('reports', async () => {
    await withLimit('reports', 2, writer, async (tx) => {
      for (const other of others.slice(0, 2)) {
        await tx`insert into public.reports (target_type, target_user_id, reason) values ('user', ${other.id}, 'spam')`;
      }
      await refusedBy(
        'reports',
        tx.savepoint((sp) =>
          sp`insert into public.reports (target_type, target_user_id, reason) values ('user', ${others[2].id}, 'spam')`
        ),
      );
    });
  });

  it('mentions: a post naming more accounts than the limit is refused whole', async () => {
    const names = others.map((o) => `@${o.username}`);
    await withLimit('mentions', 2, writer, async (tx) => {
      await tx`insert into public.posts (body) values (${`hi ${names[0]} and ${names[1]}`})`;
      await refusedBy(
        'mentions',
        tx.savepoint((sp) => sp`insert into public.posts (body) values (${`and ${names[2]}`})`),
      );
      await refusedBy(
        'mentions',
        tx.savepoint((sp) => sp`insert into public.posts (body) values (${names.join(' ')})`),
      );
    });
  });

  it('edits of posts, whatever they change; the counters the database keeps are no edits', async () => {
    const [own] = await asRoot`insert into public.posts (author_id, body) values (${writer.id}, 'mine') returning id`;
    await withLimit('post_edits', 2, writer, async (tx) => {
      await tx`update public.posts set body = 'fixed' where id = ${own.id}`;
      await tx`update public.posts set privacy = 'public' where id = ${own.id}`;
      await tx`insert into public.post_likes (post_id) values (${own.id})`;
      await refusedBy(
        'post_edits',
        tx.savepoint((sp) => sp`update public.posts set emotion = 50 where id = ${own.id}`),
      );
    });
  });

  it('edits of the profile, and the rarer username changes', async () => {
    await withLimit('profile_edits', 2, writer, async (tx) => {
      await tx`update public.profiles set bio = 'one' where id = ${writer.id}`;
      await tx`select public.update_profile('{"display_name": "Two"}'::jsonb)`;
      await tx`select public.update_profile('{}'::jsonb)`;
      await refusedBy(
        'profile_edits',
        tx.savepoint((sp) => sp`update public.profiles set is_private = true where id = ${writer.id}`),
      );
    });
    await withLimit('username_changes', 2, writer, async (tx) => {
      await tx`update public.profiles set username = ${`${writer.username.slice(0, 26)}_a`} where id = ${writer.id}`;
      await tx`update public.profiles set username = ${writer.username}, bio = 'same name again' where id = ${writer.id}`;
      await tx`update public.profiles set bio = 'the name untouched' where id = ${writer.id}`;
      await refusedBy(
        'username_changes',
        tx.savepoint((sp) =>
          sp`update public.profiles set username = ${`${writer.username.slice(0, 26)}_b`} where id = ${writer.id}`
        ),
      );
    });
  });

  it('an admin is not limited; the writes of Studio and of service_role are not counted', async () => {
    const admin = await createAccount('limitless');
    await makeAdmin(admin);
    await withLimit('posts', 1, admin, async (tx) => {
      await tx`insert into public.posts (body) values ('one'), ('two'), ('three')`;
    });
    await rolledBack(async (tx) => {
      await limitTo(tx, 'posts', 1);
      await tx`insert into public.posts (author_id, body) values (${writer.id}, 'by Studio'), (${writer.id}, 'again')`;
      const [row] =
        await tx`select count(*)::int as n from private.write_counts where user_id = ${writer.id} and family = 'posts'`;
      expect(row.n).toBe(0);
    });
  });

  it('an account older than a day gets the larger limit', async () => {
    const elder = await createAccount('elder');
    await backdate('public.profiles', `created_at = now() - interval '2 days'`, 'id = $1', elder.id);
    await rolledBack(async (tx) => {
      await limitTo(tx, 'posts', 3, 1);
      await becomes(tx, elder);
      await tx`insert into public.posts (body) values ('one'), ('two'), ('three')`;
      await refusedBy('posts', tx.savepoint((sp) => sp`insert into public.posts (body) values ('four')`));
    });
  });
});

describe.skipIf(!authIsRunning)('write limits in Studio', () => {
  it('shows who reached a limit; trusting an account exempts it and lifting clears the window, both recorded', async () => {
    const spammer = await createAccount('spammer');
    const [{ limit }] =
      await asRoot`select max_writes_new_account as limit from private.write_limits where family = 'reports'`;
    const targets = await Promise.all(Array.from({ length: limit + 1 }, (_, i) => createAccount(`target${i}`)));
    for (const target of targets.slice(0, limit)) {
      await rpc(spammer, 'report_user', { p_username: target.username, p_reason: 'spam' });
    }
    const over = () => rpc(spammer, 'report_user', { p_username: targets[limit].username, p_reason: 'spam' });
    expect(await errorOf(over())).toMatchObject({ code: 'PT429', hint: 'too_many_reports' });
    const hits =
      await asRoot`select account, family, writes, new_account from moderation.write_limit_hits where user_id = ${spammer.id}`;
    expect(hits).toEqual([{ account: `@${spammer.username}`, family: 'reports', writes: limit, new_account: true }]);

    expect(await errorOf(asRoot`select moderation.lift_write_limit(${spammer.username}, 'reportz', 'typo')`))
      .toMatchObject({ hint: 'limit_not_found' });
    await asRoot`select moderation.lift_write_limit(${spammer.username}, 'reports', 'a real wave of spam accounts')`;
    await over();

    const brand = await createAccount('brand');
    await asRoot`select moderation.trust_writer(${brand.username}, 'the operator''s announcement account')`;
    await withLimit('posts', 1, brand, async (tx) => {
      await tx`insert into public.posts (body) values ('one'), ('two')`;
    });
    await asRoot`select moderation.trust_writer(${brand.username}, 'campaign over', false)`;
    const history = await asRoot`
      select account, action, family, reason, acted_by from moderation.write_limit_history
      where user_id in (${spammer.id}, ${brand.id}) order by created_at, action desc`;
    expect(history).toEqual([
      {
        account: `@${spammer.username}`,
        action: 'lift',
        family: 'reports',
        reason: 'a real wave of spam accounts',
        acted_by: 'postgres',
      },
      {
        account: `@${brand.username}`,
        action: 'trust',
        family: null,
        reason: "the operator's announcement account",
        acted_by: 'postgres',
      },
      {
        account: `@${brand.username}`,
        action: 'distrust',
        family: null,
        reason: 'campaign over',
        acted_by: 'postgres',
      },
    ]);
    expect(await asRoot`select 1 from moderation.trusted_writers where user_id = ${brand.id}`).toHaveLength(0);
    expect(await errorOf(asRoot`delete from private.write_limit_history where user_id = ${brand.id}`)).toMatchObject({
      hint: 'history_is_append_only',
    });
    expect(await errorOf(asRoot`update private.write_limit_history set reason = 'nothing' where user_id = ${brand.id}`))
      .toMatchObject({ hint: 'history_is_append_only' });
  });

  it('the API roles can read and change none of it', async () => {
    const member = await createAccount('member');
    for (
      const table of [
        'private.write_limits',
        'private.write_counts',
        'private.trusted_writers',
        'private.write_limit_history',
      ]
    ) {
      expect(await errorOf(rpcSql(member, `select * from ${table}`))).toMatchObject({ code: '42501' });
    }
    expect(await errorOf(rpcSql(member, `select private.take_write_quota('posts', '${member.id}', -5)`))).toMatchObject(
      { code: '42501' },
    );
    expect(await errorOf(rpcSql(member, 'select * from moderation.write_limit_hits'))).toMatchObject({ code: '42501' });
  });
});

/** A raw statement as `actor`, in a transaction PostgREST would run. */
function rpcSql(actor: Account, text: string): Promise<unknown> {
  return asRoot.begin(async (tx) => {
    await becomes(tx, actor);
    return tx.unsafe(text);
  });
}
