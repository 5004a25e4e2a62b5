-- Row-level security and table privileges. Reads follow the visibility helpers; writes are allowed only
-- for the caller's own rows, and column privileges keep counters, days, authors and bans out of reach.
-- Policies use `(select private.uid())` and `(select private.is_admin())`, evaluated once per statement.

-- profiles ---------------------------------------------------------------------------------------------
grant select on public.profiles to anon, authenticated;
grant update (username, display_name, bio, avatar_url, time_zone, is_private) on public.profiles to authenticated;
grant all on public.profiles to service_role;

create policy "visible profiles are readable" on public.profiles
for select to anon, authenticated
using ((select private.is_admin()) or private.can_see_user((select private.uid()), id));

create policy "users edit their own profile" on public.profiles
for update to authenticated
using (id = (select private.uid()))
with check (id = (select private.uid()));

-- follows ----------------------------------------------------------------------------------------------
grant select on public.follows to anon, authenticated;
grant insert (follower_id, followee_id), update (status), delete on public.follows to authenticated;
grant all on public.follows to service_role;

-- A follow row is readable by others only when both accounts' lists are: "A follows P" belongs to P's
-- followers list as much as to A's following list, and a private account's lists are for its followers
-- alone. A banned account is invisible to everyone but admins, its relations too: the other party of a
-- follow no longer reads the row while the ban lasts (it is back on unban).
create policy "parties, and viewers of both accounts' lists, read follows" on public.follows
for select to anon, authenticated
using (
  (select private.is_admin())
  or (select private.uid()) = follower_id and private.can_see_user((select private.uid()), followee_id)
  or (select private.uid()) = followee_id and private.can_see_user((select private.uid()), follower_id)
  or status = 'accepted'
     and private.can_see_user((select private.uid()), follower_id)
     and private.can_see_user((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), follower_id)
);

create policy "users follow accounts they can see" on public.follows
for insert to authenticated
with check (follower_id = (select private.uid()) and private.can_see_user((select private.uid()), followee_id));

create policy "users accept requests made to them" on public.follows
for update to authenticated
using (followee_id = (select private.uid()) and status = 'pending')
with check (followee_id = (select private.uid()));

create policy "either party ends a follow or request" on public.follows
for delete to authenticated
using ((select private.uid()) in (follower_id, followee_id));

-- close_friends ----------------------------------------------------------------------------------------
-- anon may ask (profile JSON mentions the table for signed-in viewers) but no policy lets it see a row.
grant select on public.close_friends to anon;
grant select, insert (owner_id, friend_id), delete on public.close_friends to authenticated;
grant all on public.close_friends to service_role;

-- The owner no longer reads the entry of a banned account while the ban lasts.
create policy "owners read their close friends" on public.close_friends
for select to authenticated
using (
  (select private.is_admin())
  or owner_id = (select private.uid()) and private.can_see_user((select private.uid()), friend_id)
);

create policy "owners add accounts they can see" on public.close_friends
for insert to authenticated
with check (owner_id = (select private.uid()) and private.can_see_user((select private.uid()), friend_id));

create policy "owners remove close friends" on public.close_friends
for delete to authenticated
using (owner_id = (select private.uid()));

-- blocks -----------------------------------------------------------------------------------------------
grant select, insert (blocker_id, blocked_id), delete on public.blocks to authenticated;
grant all on public.blocks to service_role;

create policy "blockers read their blocks" on public.blocks
for select to authenticated
using (blocker_id = (select private.uid()) or (select private.is_admin()));

create policy "users block accounts they can see" on public.blocks
for insert to authenticated
with check (blocker_id = (select private.uid()) and private.can_see_user((select private.uid()), blocked_id));

create policy "blockers unblock" on public.blocks
for delete to authenticated
using (blocker_id = (select private.uid()));

-- posts ------------------------------------------------------------------------------------------------
grant select on public.posts to anon, authenticated;
grant insert (body, media, emotion, privacy), update (body, media, emotion, privacy), delete
  on public.posts to authenticated;
grant all on public.posts to service_role;

create policy "visible posts are readable" on public.posts
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post((select private.uid()), author_id, privacy, banned_at)
);

create policy "users write posts as themselves" on public.posts
for insert to authenticated
with check (author_id = (select private.uid()));

create policy "authors edit their posts" on public.posts
for update to authenticated
using (author_id = (select private.uid()))
with check (author_id = (select private.uid()));

create policy "authors delete their posts, admins banned ones" on public.posts
for delete to authenticated
using (author_id = (select private.uid()) or banned_at is not null and (select private.is_admin()));

-- post_likes -------------------------------------------------------------------------------------------
grant select on public.post_likes to anon, authenticated;
grant insert (post_id), delete on public.post_likes to authenticated;
grant all on public.post_likes to service_role;

create policy "likes of visible posts by visible users are readable" on public.post_likes
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post_id((select private.uid()), post_id)
     and private.can_see_user((select private.uid()), user_id)
);

create policy "users like posts they can see, as themselves" on public.post_likes
for insert to authenticated
with check (user_id = (select private.uid()) and private.can_see_post_id((select private.uid()), post_id));

create policy "users take back their likes" on public.post_likes
for delete to authenticated
using (user_id = (select private.uid()));

-- comments ---------------------------------------------------------------------------------------------
grant select on public.comments to anon, authenticated;
grant insert (post_id, parent_id, body), delete on public.comments to authenticated;
grant all on public.comments to service_role;

create policy "comments of visible posts by visible authors are readable" on public.comments
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post_id((select private.uid()), post_id)
     and private.can_see_user((select private.uid()), author_id)
);

create policy "users comment on posts and comments they can see" on public.comments
for insert to authenticated
with check (
  author_id = (select private.uid())
  and private.can_see_post_id((select private.uid()), post_id)
  and (parent_id is null or private.can_see_comment_id((select private.uid()), parent_id))
);

create policy "authors, post authors and admins delete comments" on public.comments
for delete to authenticated
using (private.may_delete_comment(author_id, post_id));

-- comment_likes ----------------------------------------------------------------------------------------
grant select on public.comment_likes to anon, authenticated;
grant insert (comment_id), delete on public.comment_likes to authenticated;
grant all on public.comment_likes to service_role;

create policy "likes of visible comments by visible users are readable" on public.comment_likes
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_comment_id((select private.uid()), comment_id)
     and private.can_see_user((select private.uid()), user_id)
);

create policy "users like comments they can see, as themselves" on public.comment_likes
for insert to authenticated
with check (user_id = (select private.uid()) and private.can_see_comment_id((select private.uid()), comment_id));

create policy "users take back their comment likes" on public.comment_likes
for delete to authenticated
using (user_id = (select private.uid()));

-- reports ----------------------------------------------------------------------------------------------
grant select, insert (target_type, target_user_id, target_post_id, target_comment_id, reason), delete
  on public.reports to authenticated;
grant all on public.reports to service_role;

create policy "reporters and admins read reports" on public.reports
for select to authenticated
using (reporter_id = (select private.uid()) or (select private.is_admin()));

create policy "users report what they can see" on public.reports
for insert to authenticated
with check (
  reporter_id = (select private.uid())
  and case target_type
    when 'user' then private.can_see_user((select private.uid()), target_user_id)
    when 'post' then private.can_see_post_id((select private.uid()), target_post_id)
    when 'comment' then private.can_see_comment_id((select private.uid()), target_comment_id)
  end
);

create policy "admins dismiss reports" on public.reports
for delete to authenticated
using ((select private.is_admin()));

-- private.reported_elements ----------------------------------------------------------------------------
-- Read by public.admin_reports, which runs as the admin calling it.
grant select on private.reported_elements to authenticated;

create policy "admins read reported elements" on private.reported_elements
for select to authenticated
using ((select private.is_admin()));

-- ban_history ------------------------------------------------------------------------------------------
grant select on public.ban_history to authenticated;
grant select, insert on public.ban_history to service_role;

create policy "admins read the ban history" on public.ban_history
for select to authenticated
using ((select private.is_admin()));
