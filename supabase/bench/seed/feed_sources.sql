-- The feed's sources (private.feed_sources, kept by triggers that were off during the load): one row per
-- accepted follow, with the bound a follow starts with (private.feed_source_bound), set-based.
insert into private.feed_sources (follower_id, followee_id, newest_post_at)
select f.follower_id, f.followee_id, private.feed_source_bound(p.followers_count, n.newest_post_at)
from public.follows f
join public.profiles p on p.id = f.followee_id
left join (select author_id, max(created_at) as newest_post_at from public.posts group by 1) n on n.author_id = f.followee_id
where f.status = 'accepted'
order by 1, 2;
