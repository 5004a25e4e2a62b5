-- How many rows of each kind the scale benchmark makes, from the psql variable `scale` (1 = full size).
-- Every seed file includes it. Users 1 to 4 are the fixtures, 5 to 10 unused, 11 to :users the crowd
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
  greatest(100, round(20000 * :scale))::int as celebrity_followers,
  greatest(200, round(25000 * :scale))::int as celebrity_posts,
  greatest(20, round(1000 * :scale))::int as diarist_posts,
  greatest(100, round(10000 * :scale))::int as hot_likes,
  greatest(100, round(5000 * :scale))::int as hot_comments
\gset

-- The id of the n-th row of a kind: md5 shaped as a version-4 UUID, as the facade validates ids in URLs.
create function pg_temp.bench_id(p_kind text, p_n bigint)
returns uuid
language sql
immutable
as $$
  select overlay(overlay(md5(p_kind || p_n) placing '4' from 13) placing '8' from 17)::uuid
$$;
