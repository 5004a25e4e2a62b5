-- Posts over two years in all three privacies (80 % public, 15 % close friends, 5 % private): the crowd's,
-- spread over its members by a multiplicative hash; the celebrity's (enough for page 1000); the diarist's
-- (all in the last 365 days, for the calendar); the hot author's two (many likes, many comments); the prolific
-- account's (public, over two years); and the posts of the account the benchmark deletes.
\ir sizes.sql
insert into public.posts (id, author_id, body, privacy, day, created_at)
select pg_temp.bench_id(kind, n), author, kind || ' post ' || n,
  case when n % 20 < 16 then 'public' when n % 20 < 19 then 'close_friends' else 'private' end::public.post_privacy,
  (at at time zone 'UTC')::date, at
from (
  select 'post' as kind, n, pg_temp.bench_id('user', (11 + n::bigint * 2654435761 % :crowd)) as author,
    now() - (n::bigint * 48271 % 2147483647) / 2147483647.0 * interval '730 days' as at
  from generate_series(0, :posts - 1) n
  union all
  select 'celebrity', n, pg_temp.bench_id('user', 1), now() - (n + 0.5) / :celebrity_posts * interval '730 days'
  from generate_series(0, :celebrity_posts - 1) n
  union all
  select 'diarist', n, pg_temp.bench_id('user', 2), now() - (n + 0.5) / :diarist_posts * interval '364 days'
  from generate_series(0, :diarist_posts - 1) n
  union all
  select 'prolific', n, pg_temp.bench_id('user', 5), now() - (n + 0.5) / :prolific_posts * interval '730 days'
  from generate_series(0, :prolific_posts - 1) n
  union all
  select 'leaver', n, pg_temp.bench_id('user', 8), now() - (n + 0.5) / :leaver_posts * interval '730 days'
  from generate_series(0, :leaver_posts - 1) n
  union all
  select 'hot', n, pg_temp.bench_id('user', 3), now() - (n + 1) * interval '1 day'
  from generate_series(0, 1) n
) p
order by 1;
