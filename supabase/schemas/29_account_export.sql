-- Data export (docs/PRODUCT.md, "Data export"): everything an account owns and its relations, one row per
-- item, by section. Security invoker, filtered on the caller: the policies decide what each row shows, as
-- everywhere, so the archive holds the caller's own rows and the cards of accounts the caller may see now;
-- never another account's e-mail, a close-friends post of someone else, or who blocked the caller (those rows
-- are not the caller's to read). The facade reads it one section at a time, newest first, through a cursor
-- (functions/api/routes/export.ts), so neither it nor the database holds the archive whole; the condition on
-- `section` leaves one branch of the union, which its index serves in order.
create view private.account_export with (security_invoker = true) as
select 'profile' as section, now() as at, p.id, public.me() as item
from public.profiles p where p.id = (select private.uid())
union all
select 'posts', i.created_at, i.id, i.item - 'viewer'
from private.post_items i where i.author_id = (select private.uid())
union all
select 'comments', i.created_at, i.id, i.item - 'viewer'
from private.comment_items i join public.comments c on c.id = i.id
where c.author_id = (select private.uid())
union all
select 'likes', l.created_at, l.post_id, jsonb_build_object('post_id', l.post_id, 'liked_at', l.created_at)
from public.post_likes l where l.user_id = (select private.uid())
union all
select 'comment_likes', l.created_at, l.comment_id, jsonb_build_object('comment_id', l.comment_id, 'liked_at', l.created_at)
from public.comment_likes l where l.user_id = (select private.uid())
union all
select 'following', f.since, f.followee_id, a.card || jsonb_build_object('status', f.status, 'since', f.since)
from public.follows f join private.cards a on a.id = f.followee_id
where f.follower_id = (select private.uid())
union all
select 'followers', f.since, f.follower_id, a.card || jsonb_build_object('status', f.status, 'since', f.since)
from public.follows f join private.cards a on a.id = f.follower_id
where f.followee_id = (select private.uid())
union all
select 'close_friends', c.created_at, c.friend_id, a.card || jsonb_build_object('since', c.created_at)
from public.close_friends c join private.cards a on a.id = c.friend_id
where c.owner_id = (select private.uid())
union all
select 'blocks', b.since, b.blocked_id, b.card || jsonb_build_object('since', b.since)
from private.my_blocks() b
union all
select 'mutes', m.created_at, m.muted_id, a.card || jsonb_build_object('notifications_only', m.notifications_only,
  'expires_at', m.expires_at, 'since', m.created_at)
from public.mutes m join private.cards a on a.id = m.muted_id
where m.muter_id = (select private.uid())
union all
select 'reports', r.created_at, r.id, jsonb_build_object('id', r.id, 'target_type', r.target_type, 'target_user_id', r.target_user_id,
  'target_post_id', r.target_post_id, 'target_comment_id', r.target_comment_id, 'reason', r.reason, 'created_at', r.created_at)
from public.reports r where r.reporter_id = (select private.uid())
union all
select 'notifications', i.created_at, i.id, i.item
from private.notification_items i where i.recipient_id = (select private.uid());
grant select on private.account_export to authenticated, service_role;
comment on view private.account_export is
  'The caller''s archive, one item per row by section (profile, posts, comments, likes, comment_likes, following, followers, close_friends, blocks, mutes, reports, notifications).';
