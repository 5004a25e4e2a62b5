-- Moderation for admins in Supabase Studio: views of what is reported and banned, and the moves, in the
-- schema `moderation`, which the API does not expose and no client role may use. Studio's SQL editor and
-- table editor act as a database role without a user: the moves record that role as who acted. They keep
-- the same rules as the API's admin functions (a reason for every ban and unban, admins cannot be banned,
-- only banned elements are deleted), through the same private helpers.
create schema moderation;
revoke all on schema moderation from public;
comment on schema moderation is 'Moderation views and moves for admins in Supabase Studio; not exposed to the API.';

-- Views ------------------------------------------------------------------------------------------------

-- A short, readable label of a reported or banned element.
create function moderation.label(p_type text, p_id uuid)
returns text
language sql
stable
set search_path = ''
as $$
  select case p_type
    when 'user' then (select '@' || p.username from public.profiles p where p.id = p_id)
    when 'post' then (select '@' || a.username || ': ' || left(p.body, 60) from public.posts p
                      join public.profiles a on a.id = p.author_id where p.id = p_id)
    when 'comment' then (select '@' || a.username || ': ' || left(c.body, 60) from public.comments c
                         join public.profiles a on a.id = c.author_id where c.id = p_id)
  end
$$;
comment on function moderation.label(text, uuid) is 'A readable label of a user (@name), post or comment (@author: text…).';

create view moderation.reported_elements as
select e.target_type, e.target_id, moderation.label(e.target_type::text, e.target_id) as label,
  e.reports_count + coalesce((select t.delta from private.pending_totals t
    where t.counter = private.reports_counter(e.target_type) and t.target_id = e.target_id), 0) as open_reports,
  e.latest_at,
  (select r.reason from public.reports r
   where coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) = e.target_id
   order by coalesce(r.target_user_id, r.target_post_id, r.target_comment_id), r.created_at desc limit 1) as latest_reason
from private.reported_elements e
order by e.latest_at desc, e.target_id desc;
comment on view moderation.reported_elements is 'Reported users, posts and comments, latest first: open reports and the latest reason.';
comment on column moderation.reported_elements.target_type is 'user, post or comment.';
comment on column moderation.reported_elements.target_id is 'The id of the reported user, post or comment.';
comment on column moderation.reported_elements.label is 'Who or what it is: @username, or the author and the start of the text.';
comment on column moderation.reported_elements.open_reports is 'Reports not dismissed yet.';
comment on column moderation.reported_elements.latest_at is 'When the latest report came.';
comment on column moderation.reported_elements.latest_reason is 'The latest report''s reason.';

create view moderation.open_reports as
select r.id, r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) as target_id,
  moderation.label(r.target_type::text, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id)) as label,
  r.reason, '@' || p.username as reporter, r.created_at
from public.reports r join public.profiles p on p.id = r.reporter_id
order by r.created_at desc, r.id desc;
comment on view moderation.open_reports is 'Every report not dismissed yet, newest first. Dismiss one with moderation.dismiss_report(id).';
comment on column moderation.open_reports.id is 'The report''s id.';
comment on column moderation.open_reports.target_type is 'user, post or comment.';
comment on column moderation.open_reports.target_id is 'The id of the reported user, post or comment.';
comment on column moderation.open_reports.label is 'Who or what is reported.';
comment on column moderation.open_reports.reason is 'The reporter''s reason.';
comment on column moderation.open_reports.reporter is 'Who reported it.';
comment on column moderation.open_reports.created_at is 'When it was reported.';

-- Who acted on a ban history entry: the admin's @username, or the database role of a Studio session.
create function moderation.actor(p_entry public.ban_history)
returns text
language sql
stable
set search_path = ''
as $$
  select coalesce((select '@' || p.username from public.profiles p where p.id = p_entry.admin_id),
                  'database role ' || p_entry.database_role, 'a deleted admin')
$$;
comment on function moderation.actor(public.ban_history) is 'Who acted: @admin, or the database role of a session without a user.';

create view moderation.ban_history as
select h.id, h.element_type, h.element_id, moderation.label(h.element_type::text, h.element_id) as label,
  h.action, h.reason, moderation.actor(h) as acted_by, h.created_at
from public.ban_history h
order by h.created_at desc, h.id desc;
comment on view moderation.ban_history is 'Every ban and unban, newest first: what, why, who acted. Entries are never changed.';
comment on column moderation.ban_history.id is 'The entry''s id.';
comment on column moderation.ban_history.element_type is 'user or post.';
comment on column moderation.ban_history.element_id is 'The user or post id (kept after it is deleted).';
comment on column moderation.ban_history.label is 'Who or what it is, while it exists.';
comment on column moderation.ban_history.action is 'ban or unban.';
comment on column moderation.ban_history.reason is 'Why.';
comment on column moderation.ban_history.acted_by is '@admin through the API, or the database role of a Studio session.';
comment on column moderation.ban_history.created_at is 'When.';

create view moderation.current_bans as
select b.element_type, b.element_id, b.label, b.banned_at, l.reason, l.banned_by
from (
  select 'user'::public.ban_element as element_type, p.id as element_id, '@' || p.username as label, p.banned_at
  from public.profiles p where p.banned_at is not null
  union all
  select 'post'::public.ban_element as element_type, p.id as element_id, moderation.label('post', p.id) as label,
    p.banned_at
  from public.posts p where p.banned_at is not null
) b
left join lateral (
  select h.reason, moderation.actor(h) as banned_by from public.ban_history h
  where h.element_id = b.element_id and h.action = 'ban'
  order by h.element_id, h.created_at desc, h.id desc limit 1
) l on true
order by b.banned_at desc;
comment on view moderation.current_bans is 'Users and posts banned now, latest first, with the reason and who banned them.';
comment on column moderation.current_bans.element_type is 'user or post.';
comment on column moderation.current_bans.element_id is 'The user or post id.';
comment on column moderation.current_bans.label is 'Who or what it is.';
comment on column moderation.current_bans.banned_at is 'Since when.';
comment on column moderation.current_bans.reason is 'Why, from the ban history.';
comment on column moderation.current_bans.banned_by is '@admin through the API, or the database role of a Studio session.';

-- Moves ------------------------------------------------------------------------------------------------

create function moderation.user_id(p_username text)
returns uuid
language plpgsql
stable
set search_path = ''
as $$
declare
  v_id uuid := (select p.id from public.profiles p where p.username = lower(btrim(p_username)));
begin
  if v_id is null then
    perform private.fail(404, 'user_not_found', format('No user @%s', p_username));
  end if;
  return v_id;
end;
$$;
comment on function moderation.user_id(text) is 'The id of @username; 404 when there is none.';

create function moderation.ban_user(p_username text, p_reason text, p_ban boolean default true)
returns text
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.record_user_ban(moderation.user_id(p_username), p_ban, p_reason, null);
  return format('@%s %s', lower(btrim(p_username)), case when p_ban then 'banned; their sessions ended' else 'unbanned' end);
end;
$$;
comment on function moderation.ban_user(text, text, boolean) is
  'Ban @username with a reason: hidden at once, sessions ended, recorded in the ban history. p_ban false unbans.';

create function moderation.unban_user(p_username text, p_reason text)
returns text
language sql
volatile
set search_path = ''
as $$
  select moderation.ban_user(p_username, p_reason, false)
$$;
comment on function moderation.unban_user(text, text) is 'Unban @username with a reason, recorded in the ban history.';

create function moderation.ban_post(p_post_id uuid, p_reason text, p_ban boolean default true)
returns text
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.record_post_ban(p_post_id, p_ban, p_reason, null);
  return case when p_ban then 'post banned' else 'post unbanned' end;
end;
$$;
comment on function moderation.ban_post(uuid, text, boolean) is
  'Ban a post with a reason: hidden from all but its author and admins, recorded in the ban history. p_ban false unbans.';

create function moderation.unban_post(p_post_id uuid, p_reason text)
returns text
language sql
volatile
set search_path = ''
as $$
  select moderation.ban_post(p_post_id, p_reason, false)
$$;
comment on function moderation.unban_post(uuid, text) is 'Unban a post with a reason, recorded in the ban history.';

create function moderation.dismiss_report(p_report_id uuid)
returns text
language plpgsql
volatile
set search_path = ''
as $$
begin
  delete from public.reports r where r.id = p_report_id;
  if not found then
    perform private.fail(404, 'report_not_found', 'No such report');
  end if;
  return 'report dismissed';
end;
$$;
comment on function moderation.dismiss_report(uuid) is 'Dismiss a report (deleting its row from public.reports does the same).';

create function moderation.delete_banned_user(p_username text)
returns text
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_id uuid := moderation.user_id(p_username);
begin
  if not exists (select 1 from public.profiles p where p.id = v_id and p.banned_at is not null) then
    perform private.fail(409, 'not_banned', 'Only a banned user is deleted this way: ban them first');
  end if;
  -- Deleting the profile deletes the account and keeps its e-mail refused (private.delete_account_of_profile).
  delete from public.profiles p where p.id = v_id;
  return format('@%s deleted, with everything they owned', lower(btrim(p_username)));
end;
$$;
comment on function moderation.delete_banned_user(text) is
  'Delete a banned user''s account and everything it owns; their e-mail cannot register again.';

create function moderation.delete_banned_post(p_post_id uuid)
returns text
language plpgsql
volatile
set search_path = ''
as $$
begin
  delete from public.posts p where p.id = p_post_id and p.banned_at is not null;
  if not found then
    perform private.fail(409, 'not_banned', 'Only a banned post is deleted this way: ban it first');
  end if;
  return 'post deleted';
end;
$$;
comment on function moderation.delete_banned_post(uuid) is 'Delete a banned post, with its comments and likes.';

create function moderation.grant_admin(p_username text, p_grant boolean default true)
returns text
language sql
volatile
set search_path = ''
as $$
  select format('@%s %s', lower(btrim(p_username)),
    case when private.grant_admin(p_username, p_grant) then 'is an admin' else 'is no longer an admin' end)
$$;
comment on function moderation.grant_admin(text, boolean) is 'Make @username an admin (p_grant false revokes); effective at once.';

-- Bans through Supabase Auth ----------------------------------------------------------------------------
-- Studio's Authentication page bans and unbans with Auth's admin API, which only sets auth.users.banned_until
-- (a `ban_duration`); so does an edit of that column in the table editor. Either becomes the product's ban or
-- unban (docs/PRODUCT.md, "Moderation"), through the same private.record_user_ban as every other door: the profile
-- and its posts hidden, the sessions ended (no old token revives after an unban), a history entry whose
-- database_role names who acted (supabase_auth_admin for Auth's admin API), and admins refused. The product's
-- bans last until lifted, so a ban_duration becomes an indefinite ban.

-- Before the row changes: a banned_until that would not change whether the account is banned is held to the
-- product's state (an admin who "bans" an already banned account for 24 hours does not shorten its ban).
create function private.keep_auth_ban_in_step()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if current_setting('private.recording_ban', true) is distinct from 'on'
    and new.banned_until > now()
    and exists (select 1 from public.profiles p where p.id = new.id and p.banned_at is not null)
  then
    new.banned_until := greatest(old.banned_until, now() + interval '100 years');
  end if;
  return new;
end;
$$;
revoke execute on function private.keep_auth_ban_in_step() from public;
comment on function private.keep_auth_ban_in_step() is
  'Trigger on auth.users: a banned_until set outside the ban functions on a banned account keeps the product''s indefinite ban.';

create trigger keep_auth_ban_in_step
before update of banned_until on auth.users
for each row
when (old.banned_until is distinct from new.banned_until)
execute function private.keep_auth_ban_in_step();

-- After the row changed: a ban or unban made outside the ban functions is recorded as the product's.
create function private.record_auth_ban()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_ban boolean := coalesce(new.banned_until > now(), false);
begin
  if current_setting('private.recording_ban', true) is distinct from 'on'
    and exists (select 1 from public.profiles p where p.id = new.id and (p.banned_at is not null) <> v_ban)
  then
    perform private.record_user_ban(new.id, v_ban, case when v_ban
      then format('Banned through Supabase Auth''s admin API (Studio''s Authentication page), asked until %s UTC; bans last until lifted',
        to_char(new.banned_until at time zone 'UTC', 'YYYY-MM-DD HH24:MI'))
      else 'Unbanned through Supabase Auth''s admin API (Studio''s Authentication page)' end, null);
  end if;
  return null;
end;
$$;
revoke execute on function private.record_auth_ban() from public;
comment on function private.record_auth_ban() is
  'Trigger on auth.users: a ban or unban through Auth''s admin API (or a banned_until edit) becomes the product''s, recorded.';

create trigger record_auth_ban
after update of banned_until on auth.users
for each row
when (old.banned_until is distinct from new.banned_until)
execute function private.record_auth_ban();

-- No client role may reach any of it; Studio's roles own or bypass it.
revoke all on all tables in schema moderation from public, anon, authenticated, service_role;
revoke all on all functions in schema moderation from public, anon, authenticated, service_role;
