-- Likes: :likes spread evenly over the crowd's posts (each post's likers are distinct by construction), and
-- :hot_likes on the hot author's first post; the leaver's: :leaver_likes on its posts (from distinct members of
-- the crowd per post) and :leaver_likes it gave to the crowd's posts.
\ir sizes.sql
insert into public.post_likes (post_id, user_id, created_at)
select pg_temp.bench_id('post', k % :posts),
  pg_temp.bench_id('user', (11 + ((k % :posts)::bigint * 7919 + (k / :posts) * 104729) % :crowd)),
  now() - (k::bigint * 16807 % 2147483647) / 2147483647.0 * interval '730 days'
from generate_series(0, :likes - 1) k
order by 1, 2;

insert into public.post_likes (post_id, user_id, created_at)
select pg_temp.bench_id('hot', 0), pg_temp.bench_id('user', 11 + k), now() - k * interval '1 second'
from generate_series(0, least(:hot_likes, :crowd) - 1) k;

insert into public.post_likes (post_id, user_id, created_at)
select pg_temp.bench_id('leaver', k % :leaver_posts), pg_temp.bench_id('user', 11 + k), now() - k * interval '1 minute'
from generate_series(0, least(:leaver_likes, :crowd) - 1) k;

insert into public.post_likes (post_id, user_id, created_at)
select pg_temp.bench_id('post', k::bigint * 7919 % :posts), pg_temp.bench_id('user', 8), now() - k * interval '1 minute'
from generate_series(0, least(:leaver_likes, :posts) - 1) k
on conflict do nothing;
