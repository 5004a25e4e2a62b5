// What the writes benchmark's callers write to: one post, comment and account for all (hot) and each caller's own
// (spread), always someone else's, so every like and follow notifies its author either way. On the test stack they
// are made for the run; on a kept bench database they are the seeded network's own rows.
import type postgres from 'postgres';
import type { Driver } from './drivers.ts';

/** Everyone writes to one target (hot), or each caller to its own (spread). */
export const hotAndSpread = ['hot', 'spread'] as const;
export type Target = typeof hotAndSpread[number];

/** A post and a comment to like, an account (by username) to follow. */
export interface Aim {
  post: string;
  comment: string;
  account: string;
}

/** `spread[i]` is caller i's. */
export interface Targets {
  hot: Aim;
  spread: Aim[];
}

/** On a fresh stack: the star's post, comment and account (hot), and caller i + 1's for caller i (spread). */
export async function createTargets(root: postgres.Sql, star: Driver, accounts: Driver[]): Promise<Targets> {
  const aimAt = async (author: Driver): Promise<Aim> => {
    const [{ id: post }] = await root`
      insert into public.posts (author_id, body) values (${author.id}, 'a day') returning id`;
    const [{ id: comment }] = await root`
      insert into public.comments (post_id, author_id, body) values (${post}, ${author.id}, 'so true') returning id`;
    return { post, comment, account: author.username };
  };
  const spread: Aim[] = [];
  for (const author of accounts.slice(1)) spread.push(await aimAt(author));
  const hot = await aimAt(star);
  await root`analyze`;
  return { hot, spread };
}

/**
 * On the seeded network: the hot author's post with 10k likes (at full size), a comment on its post with 5k
 * comments, the celebrity with 20k followers (hot); `count` public posts of ordinary public members, their authors'
 * accounts, and comments of other public members on public posts (spread).
 */
export async function findSeededTargets(root: postgres.Sql, count: number): Promise<Targets> {
  const [hot] = await root`
    select
      (select p.id from public.posts p join public.profiles a on a.id = p.author_id
       where a.username = 'hot_author' and p.body = 'hot post 0') as post,
      (select c.id from public.comments c where c.body = 'hot comment 0') as comment,
      'celebrity' as account`;
  // The seed spreads posts and comments over the crowd by a multiplicative hash: the first found have as many
  // authors.
  const posts = await root`
    select p.id, a.username from public.posts p join public.profiles a on a.id = p.author_id
    where a.username ~ '^u[0-9]+$' and not a.is_private and a.banned_at is null
      and p.privacy = 'public' and p.banned_at is null
    limit ${count}`;
  const comments = await root`
    select c.id from public.comments c
    join public.profiles ca on ca.id = c.author_id
    join public.posts p on p.id = c.post_id
    join public.profiles pa on pa.id = p.author_id
    where c.body like 'comment %' and not ca.is_private and ca.banned_at is null
      and p.privacy = 'public' and p.banned_at is null and not pa.is_private and pa.banned_at is null
    limit ${count}`;
  if (posts.length < count || comments.length < count) throw new Error('the seeded network has too few targets');
  return {
    hot: { post: hot.post, comment: hot.comment, account: hot.account },
    spread: posts.map((p, i) => ({ post: p.id, comment: comments[i].id, account: p.username })),
  };
}

/**
 * The rows of private.pending_counts each hot counter keeps (10_counters.sql: a row per change pending at once,
 * left at 0 once folded, until `private.fold_pending_counts()`), and how many hold a change: one line.
 */
export async function hotPendingRows(root: postgres.Sql, hot: Aim): Promise<string> {
  const rows = await root`
    select d.counter, count(*)::int as kept, (count(*) filter (where d.delta <> 0))::int as holding
    from private.pending_counts d
    where d.target_id in (${hot.post}::uuid, ${hot.comment}::uuid,
      (select p.id from public.profiles p where p.username = ${hot.account}))
    group by 1 order by 1`;
  const each = rows.map((r) => `${r.counter} ${r.kept} (${r.holding} holding a change)`).join(', ');
  return `Rows of private.pending_counts the hot targets' counters keep after the runs: ${each || 'none'}.`;
}
