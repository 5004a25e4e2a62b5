-- Row-level security and table privileges. Reads follow the visibility rules of 08_visibility.sql; writes
-- are allowed only for the caller's own rows, and column privileges keep counters, days, authors and bans
-- out of reach. Policies use `(select private.uid())`, `(select private.is_admin())` and the caller's sets,
-- evaluated once per statement; "an account/post/comment I may see" is an `exists` on that table, whose own
-- policy applies.
-- Each such `exists (… where id = <column> offset 0)` is one lookup by primary key per row checked. Without
-- `offset 0` (which Postgres keeps as a fence) the planner may turn it into a hash of every row of the other
-- table the caller may see, built on each statement: at 100k accounts or 1M posts that costs more than the
-- page it serves.

-- profiles ---------------------------------------------------------------------------------------------
grant select on public.profiles to anon, authenticated;
-- The counters are granted so that their guard (private.refuse_counter_edit, 32_direct_edit_guards.sql) refuses a
-- change with its stable code (403 counter_is_derived) rather than Postgres's 42501 without one: no change passes it.
grant update (username, display_name, bio, avatar_url, time_zone, is_private, followers_count, following_count, posts_count)
  on public.profiles to authenticated;
grant all on public.profiles to service_role;

-- The rule of a visible account: oneself; else confirmed, not banned, and no block either way.
create policy "visible profiles are readable" on public.profiles
for select to anon, authenticated
using (
  id = (select private.uid())
  or (select private.is_admin())
  or confirmed_at is not null and banned_at is null and id not in (select private.accounts_blocked_either_way())
);

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
  or follower_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = followee_id offset 0)
  or followee_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = follower_id offset 0)
  or status = 'accepted'
     and exists (select 1 from private.activity_visible_accounts a where a.id = followee_id offset 0)
     and exists (select 1 from private.activity_visible_accounts a where a.id = follower_id offset 0)
);

create policy "users follow accounts they can see" on public.follows
for insert to authenticated
with check (follower_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = followee_id offset 0));

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
  or owner_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = friend_id offset 0)
);

create policy "owners add accounts they can see" on public.close_friends
for insert to authenticated
with check (owner_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = friend_id offset 0));

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
with check (blocker_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = blocked_id offset 0));

create policy "blockers unblock" on public.blocks
for delete to authenticated
using (blocker_id = (select private.uid()));

-- posts ------------------------------------------------------------------------------------------------
grant select on public.posts to anon, authenticated;
-- The counters, as the profiles' above: granted so that their guard refuses a change with its code.
grant insert (body, media, emotion, privacy), update (body, media, emotion, privacy, likes_count, comments_count), delete
  on public.posts to authenticated;
grant all on public.posts to service_role;

-- The rule of a visible post: its author's; else not banned, its author's activity visible, and its privacy
-- public, or close_friends with the caller on the author's list.
create policy "visible posts are readable" on public.posts
for select to anon, authenticated
using (
  author_id = (select private.uid())
  or (select private.is_admin())
  or banned_at is null
     and (privacy = 'public' or privacy = 'close_friends' and author_id in (select private.accounts_listing_me()))
     and exists (select 1 from private.activity_visible_accounts a where a.id = author_id offset 0)
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
  or exists (select 1 from public.posts p where p.id = post_id offset 0)
     and exists (select 1 from public.profiles u where u.id = user_id offset 0)
);

create policy "users like posts they can see, as themselves" on public.post_likes
for insert to authenticated
with check (user_id = (select private.uid()) and exists (select 1 from public.posts p where p.id = post_id offset 0));

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
  or exists (select 1 from public.posts p where p.id = post_id offset 0)
     and exists (select 1 from public.profiles u where u.id = author_id offset 0)
);

create policy "users comment on posts they can see" on public.comments
for insert to authenticated
with check (author_id = (select private.uid()) and exists (select 1 from public.posts p where p.id = post_id offset 0));

-- A reply also needs its parent visible to the writer. A policy on comments cannot read comments (Postgres
-- refuses the recursion), so this trigger asks, as the writer, under the select policy; it refuses with the
-- policy's own error. (Roles that bypass RLS, service_role and Studio's, see every parent.)
create function private.refuse_hidden_parent()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if not exists (select 1 from public.comments c where c.id = new.parent_id) then
    raise exception using errcode = '42501',
      message = 'new row violates row-level security policy for table "comments"';
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_hidden_parent() from public;
comment on function private.refuse_hidden_parent() is 'Trigger: refuses a reply to a comment the writer may not see.';

create trigger refuse_hidden_parent
before insert on public.comments
for each row
when (new.parent_id is not null)
execute function private.refuse_hidden_parent();

create policy "authors, post authors and admins delete comments" on public.comments
for delete to authenticated
using (private.may_delete_comment(id));

-- comment_likes ----------------------------------------------------------------------------------------
grant select on public.comment_likes to anon, authenticated;
grant insert (comment_id), delete on public.comment_likes to authenticated;
grant all on public.comment_likes to service_role;

create policy "likes of visible comments by visible users are readable" on public.comment_likes
for select to anon, authenticated
using (
  (select private.is_admin())
  or exists (select 1 from public.comments c where c.id = comment_id offset 0)
     and exists (select 1 from public.profiles u where u.id = user_id offset 0)
);

create policy "users like comments they can see, as themselves" on public.comment_likes
for insert to authenticated
with check (user_id = (select private.uid()) and exists (select 1 from public.comments c where c.id = comment_id offset 0));

create policy "users take back their comment likes" on public.comment_likes
for delete to authenticated
using (user_id = (select private.uid()));

-- post_mentions, comment_mentions ------------------------------------------------------------------------
-- Written only by the triggers of 20_mentions.sql; read with the text, of the accounts the reader may see.
grant select on public.post_mentions, public.comment_mentions to anon, authenticated;
grant all on public.post_mentions, public.comment_mentions to service_role;

create policy "mentions in visible posts of visible users are readable" on public.post_mentions
for select to anon, authenticated
using (
  (select private.is_admin())
  or exists (select 1 from public.posts p where p.id = post_id offset 0)
     and exists (select 1 from public.profiles u where u.id = user_id offset 0)
);

create policy "mentions in visible comments of visible users are readable" on public.comment_mentions
for select to anon, authenticated
using (
  (select private.is_admin())
  or exists (select 1 from public.comments c where c.id = comment_id offset 0)
     and exists (select 1 from public.profiles u where u.id = user_id offset 0)
);

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
    when 'user' then exists (select 1 from public.profiles u where u.id = target_user_id offset 0)
    when 'post' then exists (select 1 from public.posts p where p.id = target_post_id offset 0)
    when 'comment' then exists (select 1 from public.comments c where c.id = target_comment_id offset 0)
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
