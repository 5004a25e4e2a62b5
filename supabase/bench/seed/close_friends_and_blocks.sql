-- Close-friend lists (two entries per member of the crowd at full size) and blocks; then what a block
-- does (private.apply_block, off during the load): no follow or close-friend entry between the two.
\ir sizes.sql
insert into public.close_friends (owner_id, friend_id, created_at)
select pg_temp.bench_id('user', (11 + k % :crowd)), pg_temp.bench_id('user', (11 + (k % :crowd + 1 + k / :crowd) % :crowd)),
  now() - (k::bigint * 16807 % 2147483647) / 2147483647.0 * interval '730 days'
from generate_series(0, :close_friends - 1) k;

insert into public.blocks (blocker_id, blocked_id, created_at)
select pg_temp.bench_id('user', 11 + blocker), pg_temp.bench_id('user', (11 + (blocker + 1 + k % 50) % :crowd)), now()
from generate_series(0, :blocks - 1) k, lateral (select k::bigint * 7717 % :crowd as blocker) b
on conflict do nothing;

delete from public.follows f using public.blocks b
where (f.follower_id, f.followee_id) in ((b.blocker_id, b.blocked_id), (b.blocked_id, b.blocker_id));
delete from public.close_friends c using public.blocks b
where (c.owner_id, c.friend_id) in ((b.blocker_id, b.blocked_id), (b.blocked_id, b.blocker_id));
