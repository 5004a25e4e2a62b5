-- Every stored counter, set-based (the counting triggers were off during the load): one update per table.
update public.profiles p
set followers_count = coalesce(c.followers, 0), following_count = coalesce(c.following, 0), posts_count = coalesce(c.posts, 0)
from (
  select p2.id, fr.n as followers, fg.n as following, ps.n as posts
  from public.profiles p2
  left join (select followee_id as id, count(*) as n from public.follows where status = 'accepted' group by 1) fr on fr.id = p2.id
  left join (select follower_id as id, count(*) as n from public.follows where status = 'accepted' group by 1) fg on fg.id = p2.id
  left join (select author_id as id, count(*) as n from public.posts group by 1) ps on ps.id = p2.id
) c
where c.id = p.id;

update public.posts p
set likes_count = coalesce(c.likes, 0), comments_count = coalesce(c.comments, 0)
from (
  select coalesce(l.id, m.id) as id, l.n as likes, m.n as comments
  from (select post_id as id, count(*) as n from public.post_likes group by 1) l
  full join (select post_id as id, count(*) as n from public.comments group by 1) m on m.id = l.id
) c
where c.id = p.id;

update public.comments c
set replies_count = r.n
from (select parent_id as id, count(*) as n from public.comments where parent_id is not null group by 1) r
where r.id = c.id;
