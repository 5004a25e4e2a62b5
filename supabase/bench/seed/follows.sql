-- Follows: each member of the crowd follows about :follows / :crowd others (distinct by construction); a
-- third of those towards private accounts are still pending requests. The celebrity has :celebrity_followers.
-- The sparse reader follows :sparse_follows public members of the crowd spread over all of it (each posts about
-- ten times in two years); the fan reader follows the prolific account alone.
\ir sizes.sql
insert into public.follows (follower_id, followee_id, status, since)
select pg_temp.bench_id('user', 11 + f), pg_temp.bench_id('user', 11 + followee),
  case when (11 + followee) % 10 = 7 and k % 3 = 0 then 'pending' else 'accepted' end::public.follow_status,
  now() - (k::bigint * 69621 % 2147483647) / 2147483647.0 * interval '730 days'
from generate_series(0, :follows - 1) k,
  lateral (select k % :crowd as f) a,
  lateral (select (f + 1 + ((k / :crowd) * 4973 + f * 31) % (:crowd - 1)) % :crowd as followee) b
order by 1, 2;

insert into public.follows (follower_id, followee_id, status, since)
select pg_temp.bench_id('user', 11 + k), pg_temp.bench_id('user', 1), 'accepted', now() - k * interval '1 minute'
from generate_series(0, least(:celebrity_followers, :crowd) - 1) k;

insert into public.follows (follower_id, followee_id, status, since)
select pg_temp.bench_id('user', 6), pg_temp.bench_id('user', 11 + m), 'accepted', now() - k * interval '1 minute'
from generate_series(0, :sparse_follows - 1) k,
  lateral (select (k::bigint * (:crowd / :sparse_follows)) as m0) a,
  lateral (select case when (11 + m0) % 10 = 7 then m0 + 1 else m0 end as m) b;

insert into public.follows (follower_id, followee_id, status, since)
values (pg_temp.bench_id('user', 7), pg_temp.bench_id('user', 5), 'accepted', now());
