// The specific rows the endpoints are measured on (seed/: the celebrity with 20k followers and enough posts
// for page 1000, the diarist's 365-day calendar, the hot author's post with 10k likes and the one with many
// comments), plus the reader's own relations: it follows 1,000 accounts and is one of the celebrity's close
// friends, so its pages mix public and close-friends posts.
import type postgres from 'postgres';
import type { Driver } from './drivers.ts';
import { identitySql } from './identity.ts';

export interface Fixtures {
  celebrityId: string;
  diaristId: string;
  likedPostId: string;
  commentedPostId: string;
  /** The celebrity's page that is measured deep in the list (1000 at full size), and its cursor. */
  deepPage: number;
  deepCursor: string;
  /** The diarist's latest day with posts, for the one-day query. */
  diaristDay: string;
  /** What the fixtures hold, as the report prints it. */
  sizes: Record<string, number>;
}

const pageSize = 20;

/** Idempotent: a kept database already has them. Through the triggers, so every counter stays exact. */
export async function applyReaderFixtures(root: postgres.Sql, reader: Driver, scale: number): Promise<void> {
  // As the seed's fixtures (seed/sizes.sql): smaller below full size, the same above it.
  const follows = Math.max(10, Math.round(1000 * Math.min(1, scale)));
  await root`
    insert into public.follows (follower_id, followee_id)
    select ${reader.id}, p.id from generate_series(0, ${
    follows - 1
  }) k join public.profiles p on p.username = 'u' || (11 + k)
    on conflict do nothing`;
  // Requests to private accounts, accepted as their owners would.
  await root`update public.follows set status = 'accepted' where follower_id = ${reader.id} and status = 'pending'`;
  await root`
    insert into public.close_friends (owner_id, friend_id)
    select p.id, ${reader.id} from public.profiles p where p.username = 'celebrity'
    on conflict do nothing`;
  await root`analyze public.follows, public.close_friends`;
}

export async function findFixtures(
  root: postgres.Sql,
  authenticator: postgres.Sql,
  reader: Pick<Driver, 'id' | 'identity'>,
): Promise<Fixtures> {
  const [ids] = await root`
    select
      (select id from public.profiles where username = 'celebrity') as celebrity,
      (select id from public.profiles where username = 'diarist') as diarist,
      (select p.id from public.posts p join public.profiles a on a.id = p.author_id
       where a.username = 'hot_author' and p.body = 'hot post 0') as liked,
      (select p.id from public.posts p join public.profiles a on a.id = p.author_id
       where a.username = 'hot_author' and p.body = 'hot post 1') as commented`;
  const [sizes] = await root`
    select
      (select followers_count from public.profiles where id = ${ids.celebrity}) as celebrity_followers,
      (select posts_count from public.profiles where id = ${ids.celebrity}) as celebrity_posts,
      (select posts_count from public.profiles where id = ${ids.diarist}) as diarist_posts,
      (select likes_count from public.posts where id = ${ids.liked}) as hot_post_likes,
      (select comments_count from public.posts where id = ${ids.commented}) as hot_post_comments,
      (select following_count from public.profiles where id = ${reader.id}) as reader_follows`;
  const [{ day }] = await root`select max(day)::text as day from public.posts where author_id = ${ids.diarist}`;
  // The deep page's cursor, as the reader's own walk would find it: through row-level security.
  const deep = await authenticator.begin(async (tx) => {
    await tx.unsafe(identitySql(reader.identity));
    const [{ n }] = await tx`select count(*)::int as n from public.posts where author_id = ${ids.celebrity}`;
    const page = Math.max(2, Math.min(1000, Math.floor(n / pageSize)));
    const [{ cursor }] = await tx`
      select private.encode_cursor(created_at, id) as cursor from public.posts where author_id = ${ids.celebrity}
      order by created_at desc, id desc offset ${(page - 1) * pageSize - 1} limit 1`;
    return { page, cursor: cursor as string };
  });
  return {
    celebrityId: ids.celebrity,
    diaristId: ids.diarist,
    likedPostId: ids.liked,
    commentedPostId: ids.commented,
    deepPage: deep.page,
    deepCursor: deep.cursor,
    diaristDay: day,
    sizes: Object.fromEntries(Object.entries(sizes).map(([key, value]) => [key, Number(value)])),
  };
}
