// The growth targets' own cases (seed/: the fixtures that keep their size at every scale above full size):
// the home feed of a reader following 5,000 accounts that rarely post and of one following an account with
// 100,000 posts (pgbench, one client, p50), and deleting an account with 1,000 posts, 10,000 likes on them and
// 10,000 it gave, as Supabase Auth deletes one (the auth.users row; everything else follows by cascade and
// trigger), in a transaction rolled back so a kept database keeps its fixture. Beside them, what the feed's
// sources cost a write: a post by an account before and after up to 1,000 more accounts follow it (each post
// raises its followers' feed_sources rows; past 1,000 followers new followers are no longer raised).
import type postgres from 'postgres';
import type { Identity } from './identity.ts';
import type { Load } from './load.ts';
import { median } from './stats.ts';

export interface GrowthResult {
  feeds: Array<{ name: string; load: Load }>;
  /** Median ms of the deletions, and what was deleted. */
  deletion: { ms: number; runs: number; what: string };
  /** Median ms of a post by one account, with the feed_sources rows it raises: as seeded, then with up to 1,000 more followers. */
  post: { runs: number; before: { rows: number; ms: number }; after: { rows: number; ms: number } };
}

/** The reader `username` as PostgREST would run them: their id and their newest session (the seed's, or a sign-in's). */
export async function seededReader(root: postgres.Sql, username: string): Promise<Identity> {
  const [row] = await root`
    select p.id, s.id as session_id from public.profiles p join auth.sessions s on s.user_id = p.id
    where p.username = ${username} order by s.created_at desc limit 1`;
  if (!row) {
    throw new Error(
      `the bench database has no ${username} with a session: seed it again, and run bench:scale --keep once`,
    );
  }
  return {
    role: 'authenticated',
    claims: { sub: row.id, session_id: row.session_id, role: 'authenticated', aud: 'authenticated' },
  };
}

async function timeDeletion(root: postgres.Sql, runs: number): Promise<GrowthResult['deletion']> {
  const [leaver] = await root`
    select p.id, p.posts_count,
      (select count(*)::int from public.post_likes l join public.posts q on q.id = l.post_id where q.author_id = p.id) as likes_received,
      (select count(*)::int from public.post_likes l where l.user_id = p.id) as likes_given
    from public.profiles p where p.username = 'leaver'`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await root.begin(async (tx) => {
      const begin = performance.now();
      await tx`delete from auth.users where id = ${leaver.id}`;
      times.push(performance.now() - begin);
      throw new RollBack();
    }).catch((error) => {
      if (!(error instanceof RollBack)) throw error;
    });
  }
  return {
    ms: median(times),
    runs,
    what:
      `${leaver.posts_count.toLocaleString('en')} posts, ${
        leaver.likes_received.toLocaleString('en')
      } likes on them, ` +
      `${leaver.likes_given.toLocaleString('en')} likes given`,
  };
}

class RollBack extends Error {
  constructor(readonly timed: { rows: number; ms: number } = { rows: 0, ms: 0 }) {
    super('rolled back');
  }
}

async function timePostToFollowers(root: postgres.Sql, runs: number): Promise<GrowthResult['post']> {
  // A public member of the crowd (private ones are users 17, 27, …: seed/users.sql), and up to 1,000 others.
  const [author] = await root`select id from public.profiles where username = 'u101'`;
  // One post per transaction: within one, now() does not move, so a second post would raise nothing.
  const post = (arrange: (tx: postgres.TransactionSql) => Promise<unknown>) =>
    root.begin(async (tx) => {
      await arrange(tx);
      const [{ rows }] = await tx`
        select count(*)::int as rows from private.feed_sources where followee_id = ${author.id} and newest_post_at < now()`;
      const begin = performance.now();
      await tx`insert into public.posts (author_id, body) values (${author.id}, 'a post to every follower')`;
      throw new RollBack({ rows, ms: performance.now() - begin });
    }).catch((error) => {
      if (!(error instanceof RollBack)) throw error;
      return error.timed;
    });
  const before: Array<{ rows: number; ms: number }> = [];
  const after: Array<{ rows: number; ms: number }> = [];
  for (let i = 0; i < runs; i++) {
    before.push(await post(async () => {}));
    after.push(
      await post((tx) =>
        tx`
      insert into public.follows (follower_id, followee_id)
      select p.id, ${author.id} from generate_series(1011, 2010) k join public.profiles p on p.username = 'u' || k
      on conflict do nothing`
      ),
    );
  }
  return {
    runs,
    before: { rows: before[0].rows, ms: median(before.map((b) => b.ms)) },
    after: { rows: after[0].rows, ms: median(after.map((a) => a.ms)) },
  };
}

export async function measureGrowth(
  root: postgres.Sql,
  feed: (identity: Identity) => Promise<Load>,
): Promise<GrowthResult> {
  const feeds = [];
  for (
    const [name, username] of [['feed, following 5,000 accounts that rarely post', 'sparse_reader'], [
      'feed, following one account with 100,000 posts',
      'fan_reader',
    ]]
  ) {
    feeds.push({ name, load: await feed(await seededReader(root, username)) });
  }
  return { feeds, deletion: await timeDeletion(root, 3), post: await timePostToFollowers(root, 5) };
}
