-- How many rows of each kind the scale benchmark makes, from the psql variable `scale` (1 = full size).
-- Every seed file includes it. Users 1 to 8 are the fixtures, 9 and 10 unused, 11 to :users the crowd
-- (:crowd of them). Ids come from a kind and a number (pg_temp.bench_id), so each file finds the rows of
-- another without a lookup.
select
  greatest(1000, round(100000 * :scale))::int as users,
  greatest(1000, round(100000 * :scale))::int - 10 as crowd,
  greatest(100, round(1000000 * :scale))::int as posts,
  greatest(500, round(5000000 * :scale))::int as likes,
  greatest(2000, round(2000000 * :scale))::int as follows,
  greatest(70, round(700000 * :scale))::int as comments,
  greatest(30, round(300000 * :scale))::int as replies,
  greatest(200, round(200000 * :scale))::int as close_friends,
  greatest(10, round(3000 * :scale))::int as blocks,
  -- The fixtures shrink with the scale below full size and keep their full size above it, so a read at 10 M
  -- is the same read as at 1 M among ten times the rows. Besides the celebrity, the diarist and the hot
  -- author: an account with 100,000 posts (and a reader following only it), a reader following 5,000 accounts
  -- that rarely post, and an account to delete with 1,000 posts, 10,000 likes on them and 10,000 it gave.
  greatest(100, round(20000 * least(1, :scale)))::int as celebrity_followers,
  greatest(200, round(25000 * least(1, :scale)))::int as celebrity_posts,
  greatest(20, round(1000 * least(1, :scale)))::int as diarist_posts,
  greatest(100, round(10000 * least(1, :scale)))::int as hot_likes,
  greatest(100, round(5000 * least(1, :scale)))::int as hot_comments,
  greatest(200, round(100000 * least(1, :scale)))::int as prolific_posts,
  greatest(50, round(5000 * least(1, :scale)))::int as sparse_follows,
  greatest(10, round(1000 * least(1, :scale)))::int as leaver_posts,
  greatest(100, round(10000 * least(1, :scale)))::int as leaver_likes
\gset

-- The id of the n-th row of a kind: md5 shaped as a version-4 UUID, as the facade validates ids in URLs.
create function pg_temp.bench_id(p_kind text, p_n bigint)
returns uuid
language sql
immutable
as $$
  select overlay(overlay(md5(p_kind || p_n) placing '4' from 13) placing '8' from 17)::uuid
$$;
