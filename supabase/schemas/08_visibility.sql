-- The visibility rules, written once, in a form the planner can use. An account is visible when its e-mail
-- is confirmed, it is not banned and no block stands between it and the viewer (either way): that is the
-- select policy of public.profiles (09_policies.sql). A private account's posts, calendar and follow lists
-- are for its accepted followers: that is private.activity_visible_accounts below. A post is also subject to
-- its privacy and its ban (the policy of public.posts); a comment or a like needs its post and its author
-- visible (their policies ask those tables, whose own policies apply). Admins see everything.
--
-- Why this shape: a policy that calls a function per row cannot be planned; a page would check every row of
-- a table. Here each policy is plain SQL over the row's columns, plus
--   * sets about the caller, each computed once per statement (the accounts the caller follows, the owners
--     whose close-friends list has them, the accounts blocked either way), read by hashed subplans;
--   * `exists` lookups by primary key into another table, whose own policy then applies (RLS composes).
-- So a page walks the index in list order, checks each row with a few index probes, and stops at its limit.
-- The set functions are security definer (a blocked user cannot read the block that hides them) and take
-- no argument: they answer only about the caller (private.uid(), null for anonymous or ended sessions).

create function private.accounts_i_follow()
returns setof uuid
language plpgsql
stable
security definer
rows 100
set search_path = ''
as $$
begin
  return query select f.followee_id from public.follows f
    where f.follower_id = private.uid() and f.status = 'accepted';
end;
$$;
revoke execute on function private.accounts_i_follow() from public;
grant execute on function private.accounts_i_follow() to anon, authenticated, service_role;
comment on function private.accounts_i_follow() is 'The accounts the caller follows (accepted); none for anonymous.';

create function private.accounts_listing_me()
returns setof uuid
language plpgsql
stable
security definer
rows 10
set search_path = ''
as $$
begin
  return query select c.owner_id from public.close_friends c where c.friend_id = private.uid();
end;
$$;
revoke execute on function private.accounts_listing_me() from public;
grant execute on function private.accounts_listing_me() to anon, authenticated, service_role;
comment on function private.accounts_listing_me() is 'The accounts whose close-friends list has the caller; none for anonymous.';

create function private.accounts_blocked_either_way()
returns setof uuid
language plpgsql
stable
security definer
rows 10
set search_path = ''
as $$
declare
  v_me uuid := private.uid();
begin
  return query
    select b.blocked_id from public.blocks b where b.blocker_id = v_me
    union all
    select b.blocker_id from public.blocks b where b.blocked_id = v_me;
end;
$$;
revoke execute on function private.accounts_blocked_either_way() from public;
grant execute on function private.accounts_blocked_either_way() to anon, authenticated, service_role;
comment on function private.accounts_blocked_either_way() is
  'The accounts the caller blocked or that blocked the caller; none for anonymous.';

-- The same rules one row at a time, for the security-definer helpers, which run past RLS: the mention store
-- helpers and private.refuse_if_blocked_with (an account), the search finders and the media policy (a post).
-- The policies keep their own inline form, which the planner can run set-based; visibility.test.ts holds
-- both forms to the same matrix. The viewer is an argument (the helpers pass private.uid(), read once), so
-- these are not executable by the API roles: called with any viewer they would answer about anyone. Both run
-- one generic plan for every call: left to choose, the plan cache plans each call afresh for its values
-- (0.3 ms a call at 10 M posts, where the generic plan runs in a tenth of that).
create function private.may_see_profile(p_profile public.profiles, p_viewer uuid)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce(p_profile.id = p_viewer, false)
    -- An admin's powers are the caller's only, as private.is_admin() grants them (asked of admins alone: it costs more).
    or exists (select 1 from private.admins a where a.user_id = p_viewer) and p_viewer = private.uid() and private.is_admin()
    or p_profile.confirmed_at is not null and p_profile.banned_at is null
       and not exists (select 1 from public.blocks b
                       where b.blocker_id = p_viewer and b.blocked_id = p_profile.id
                          or b.blocker_id = p_profile.id and b.blocked_id = p_viewer);
end;
$$;
revoke execute on function private.may_see_profile(public.profiles, uuid) from public;
comment on function private.may_see_profile(public.profiles, uuid) is
  'Whether p_viewer (null: anonymous) may see this account, as the profiles policy decides. For definer helpers.';

create function private.may_see_post(p_post public.posts, p_viewer uuid)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce(p_post.author_id = p_viewer, false)
    -- An admin's powers are the caller's only, as private.is_admin() grants them (asked of admins alone: it costs more).
    or exists (select 1 from private.admins a where a.user_id = p_viewer) and p_viewer = private.uid() and private.is_admin()
    or p_post.banned_at is null
       and (p_post.privacy = 'public'
            or p_post.privacy = 'close_friends'
               and exists (select 1 from public.close_friends c where c.owner_id = p_post.author_id and c.friend_id = p_viewer))
       and exists (select 1 from public.profiles a
                   where a.id = p_post.author_id and private.may_see_profile(a, p_viewer)
                     -- p_post.author_id, not a.id: uncorrelated, the follow is one index probe, where a
                     -- correlated test is planned as a hash of all the viewer's follows, built on every call.
                     and (not a.is_private
                          or exists (select 1 from public.follows f
                                     where f.follower_id = p_viewer and f.followee_id = p_post.author_id
                                       and f.status = 'accepted')));
end;
$$;
revoke execute on function private.may_see_post(public.posts, uuid) from public;
comment on function private.may_see_post(public.posts, uuid) is
  'Whether p_viewer (null: anonymous) may see this post, as the posts policy decides. For definer helpers.';

-- Whose posts, calendar and follow lists the caller may see: a visible account (the profiles policy applies
-- here) that is public, the caller's own, one the caller follows, or any for an admin. A pending request
-- grants nothing.
create view private.activity_visible_accounts with (security_invoker = true) as
select p.id
from public.profiles p
where not p.is_private
   or p.id = (select private.uid())
   or p.id in (select private.accounts_i_follow())
   or (select private.is_admin());
grant select on private.activity_visible_accounts to anon, authenticated, service_role;
comment on view private.activity_visible_accounts is
  'Accounts whose posts, calendar and follow lists the caller may see (private ones: accepted followers).';

-- Who may delete a comment: its author, its post's author, an admin. The rule is written once, as the
-- can_delete column of private.comment_items (11_api_shapes.sql); this reads it for the table's delete
-- policy and for private.delete_comment_by_right. Security definer: the post's author keeps this right over
-- comments they can no longer see.
create function private.may_delete_comment(p_comment uuid)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return coalesce((select i.can_delete from private.comment_items i where i.id = p_comment), false);
end;
$$;
revoke execute on function private.may_delete_comment(uuid) from public;
grant execute on function private.may_delete_comment(uuid) to authenticated, service_role;
comment on function private.may_delete_comment(uuid) is
  'Whether the caller may delete the comment: its author, the post''s author or an admin.';
