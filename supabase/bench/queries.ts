// Queries as supabase-js sends them through PostgREST (`from('posts').select('id').order(…).limit(20)`):
// plain selects on the tables, so row-level security checks every row the plan reads. Each runs as anon and
// as the signed-in reader, in a transaction with the role, claims and statement timeout PostgREST sets.
import type postgres from 'postgres';
import { literal } from './endpoints.ts';
import type { Fixtures } from './fixtures.ts';
import { type Identity, identitySql, statementTimeout } from './identity.ts';
import { median } from './stats.ts';

export interface TableQuery {
  name: string;
  sql: string;
}

export function tableQueries(f: Fixtures): TableQuery[] {
  return [
    { name: 'newest 20 posts', sql: 'select id from public.posts order by created_at desc limit 20' },
    {
      name: "a user's 20 newest posts (celebrity)",
      sql: `select id from public.posts where author_id = ${literal(f.celebrityId)} order by created_at desc limit 20`,
    },
    {
      name: "a post's newest 20 comments (top-level)",
      sql: `select id from public.comments where post_id = ${
        literal(f.commentedPostId)
      } and parent_id is null order by created_at desc limit 20`,
    },
    {
      name: 'likers of the 10k-like post (20 newest)',
      sql: `select user_id from public.post_likes where post_id = ${
        literal(f.likedPostId)
      } order by created_at desc limit 20`,
    },
    {
      name: 'followers of the 20k account (20 newest)',
      sql: `select follower_id from public.follows where followee_id = ${
        literal(f.celebrityId)
      } and status = 'accepted' order by since desc limit 20`,
    },
    {
      name: "the diarist's posts of one day (no count)",
      sql: `select id from public.posts where author_id = ${literal(f.diaristId)} and day = ${literal(f.diaristDay)}`,
    },
  ];
}

/** Median ms of `runs` runs, or "timeout (3s)" when the role's statement timeout cut one (no further runs). */
export async function timeQuery(
  authenticator: postgres.Sql,
  identity: Identity,
  sql: string,
  runs: number,
): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    try {
      times.push(
        await authenticator.begin(async (tx) => {
          await tx.unsafe(identitySql(identity));
          const begin = performance.now();
          await tx.unsafe(sql);
          return performance.now() - begin;
        }),
      );
    } catch (error) {
      if ((error as { code?: string }).code === '57014') return `timeout (${statementTimeout[identity.role]})`;
      throw error;
    }
  }
  return median(times).toFixed(1);
}
