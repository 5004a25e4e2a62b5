-- Comments on the crowd's posts, replies to them (on the same post, as the foreign key wants), and
-- :hot_comments on the hot author's second post.
\ir sizes.sql
insert into public.comments (id, post_id, author_id, body, created_at)
select pg_temp.bench_id('comment', k), pg_temp.bench_id('post', (k::bigint * 48271 % :posts)),
  pg_temp.bench_id('user', (11 + k::bigint * 16807 % :crowd)), 'comment ' || k,
  now() - (k::bigint * 16807 % 2147483647) / 2147483647.0 * interval '730 days'
from generate_series(0, :comments - 1) k
order by 1;

insert into public.comments (id, post_id, parent_id, author_id, body, created_at)
select pg_temp.bench_id('reply', m), pg_temp.bench_id('post', (parent::bigint * 48271 % :posts)), pg_temp.bench_id('comment', parent),
  pg_temp.bench_id('user', (11 + m::bigint * 48271 % :crowd)), 'reply ' || m,
  now() - (m::bigint * 69621 % 2147483647) / 2147483647.0 * interval '730 days'
from generate_series(0, :replies - 1) m, lateral (select m::bigint * 69621 % :comments as parent) p
order by 1;

insert into public.comments (id, post_id, author_id, body, created_at)
select pg_temp.bench_id('hot-comment', k), pg_temp.bench_id('hot', 1), pg_temp.bench_id('user', (11 + k % :crowd)), 'hot comment ' || k,
  now() - k * interval '1 minute'
from generate_series(0, :hot_comments - 1) k;
