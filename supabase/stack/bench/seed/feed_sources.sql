-- The feed's sources (private.feed_sources, kept by triggers that were off during the load): one row per
-- accepted follow, with the bound a follow starts with, computed once per followed account.
insert into private.feed_sources (follower_id, followee_id, newest_post_at)
select f.follower_id, f.followee_id, b.bound
from public.follows f
join (select p.id, private.feed_source_bound(p.id) as bound from public.profiles p) b on b.id = f.followee_id
where f.status = 'accepted'
order by 1, 2;
