-- API: admin moderation. Reads are security invoker (RLS shows admins everything); the writes that touch
-- bans, Auth's tables or other people's rows run in security definer helpers that check admin first.

create function private.ban_history_json(p_entry public.ban_history)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_entry.id, 'element_type', p_entry.element_type, 'element_id', p_entry.element_id,
    'action', p_entry.action, 'reason', p_entry.reason, 'created_at', p_entry.created_at,
    'admin', private.card(p_entry.admin_id), 'database_role', p_entry.database_role)
$$;
revoke execute on function private.ban_history_json(public.ban_history) from public;
grant execute on function private.ban_history_json(public.ban_history) to authenticated, service_role;
comment on function private.ban_history_json(public.ban_history) is 'A ban history entry as JSON, with the admin''s card.';

-- Every ban and unban says why: the history is what other admins read.
create function private.require_ban_reason(p_reason text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  if char_length(btrim(coalesce(p_reason, ''))) not between 1 and 1000 then
    perform private.fail(400, 'invalid_reason', 'Give a reason of 1 to 1000 characters');
  end if;
  return btrim(p_reason);
end;
$$;
revoke execute on function private.require_ban_reason(text) from public;
grant execute on function private.require_ban_reason(text) to authenticated, service_role;
comment on function private.require_ban_reason(text) is 'The trimmed reason of a ban or unban; 400 unless it has 1 to 1000 characters.';

-- Users ------------------------------------------------------------------------------------------------
-- Banning hides the account and everything it wrote, refuses its logins (Auth's banned_until) and ends
-- its sessions, so its tokens stop working at once.
-- Bans are recorded here only, whoever acts: the ban, what it ends, and the history entry with its reason and
-- who acted (p_admin through the API; null from a database session such as Supabase Studio, whose role is
-- recorded instead). A direct edit of banned_at carries no reason, so it is refused (refuse_unrecorded_ban).
-- Asking for the state an element is already in is a 409, so an admin learns that someone else acted; the
-- row is locked first, so two admins acting at once cannot both pass.
create function private.record_user_ban(p_user uuid, p_ban boolean, p_reason text, p_admin uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_user public.profiles;
  v_reason text;
begin
  select * into v_user from public.profiles p where p.id = p_user for update;
  if p_ban = (v_user.banned_at is not null) then
    perform private.fail(409, case when p_ban then 'already_banned' else 'not_banned' end,
      format('@%s is %s', v_user.username, case when p_ban then 'already banned' else 'not banned' end));
  end if;
  v_reason := private.require_ban_reason(p_reason);
  if p_ban and exists (select 1 from private.admins a where a.user_id = p_user) then
    perform private.fail(409, 'cannot_ban_admin', 'Admins cannot be banned; revoke their admin rights first');
  end if;
  perform set_config('private.recording_ban', 'on', true);
  update public.profiles set banned_at = case when p_ban then now() end where id = p_user;
  update auth.users set banned_until = case when p_ban then now() + interval '100 years' end where id = p_user;
  if p_ban then
    delete from auth.sessions where user_id = p_user; -- the account's tokens stop working at once
  end if;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id, database_role)
  values ('user', p_user, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason,
          p_admin, case when p_admin is null then session_user end);
  perform set_config('private.recording_ban', 'off', true);
end;
$$;
revoke execute on function private.record_user_ban(uuid, boolean, text, uuid) from public;
comment on function private.record_user_ban(uuid, boolean, text, uuid) is
  'Bans (ending its sessions) or unbans an account in the profile and in Auth, and records why and who.';

create function private.set_user_ban(p_user uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform private.record_user_ban(p_user, p_ban, p_reason, private.require_admin());
end;
$$;
revoke execute on function private.set_user_ban(uuid, boolean, text) from public;
grant execute on function private.set_user_ban(uuid, boolean, text) to authenticated, service_role;
comment on function private.set_user_ban(uuid, boolean, text) is
  'Admins: bans (ending its sessions) or unbans an account in the profile and in Auth, and records why.';

create function public.admin_ban_user(p_username text, p_reason text default '', p_ban boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_user public.profiles := private.find_user(p_username);
  v_ban boolean := coalesce(p_ban, v_user.banned_at is null);
begin
  perform private.set_user_ban(v_user.id, v_ban, p_reason);
  return jsonb_build_object('banned', v_ban,
    'user', private.profile_item(v_user.id));
end;
$$;
revoke execute on function public.admin_ban_user(text, text, boolean) from public;
grant execute on function public.admin_ban_user(text, text, boolean) to authenticated, service_role;
comment on function public.admin_ban_user(text, text, boolean) is 'Admins: ban or unban a user (p_ban null toggles), with a reason.';

create function private.delete_banned_user(p_user uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform private.require_admin();
  if not exists (select 1 from public.profiles p where p.id = p_user and p.banned_at is not null) then
    perform private.fail(409, 'not_banned', 'Only a banned user can be deleted by an admin');
  end if;
  delete from auth.users where id = p_user; -- its e-mail stays refused (private.keep_banned_email)
end;
$$;
revoke execute on function private.delete_banned_user(uuid) from public;
grant execute on function private.delete_banned_user(uuid) to authenticated, service_role;
comment on function private.delete_banned_user(uuid) is
  'Admins: deletes a banned account from Auth (and so all it owns), keeping its e-mail in private.banned_emails.';

create function public.admin_delete_banned_user(p_username text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_user public.profiles;
begin
  perform private.require_admin();
  v_user := private.find_user(p_username);
  perform private.delete_banned_user(v_user.id);
  return jsonb_build_object('deleted', true, 'id', v_user.id, 'username', v_user.username);
end;
$$;
revoke execute on function public.admin_delete_banned_user(text) from public;
grant execute on function public.admin_delete_banned_user(text) to authenticated, service_role;
comment on function public.admin_delete_banned_user(text) is
  'Admins: delete a banned user and all they own; their e-mail cannot register again.';

-- Posts ------------------------------------------------------------------------------------------------
create function private.record_post_ban(p_post uuid, p_ban boolean, p_reason text, p_admin uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_banned boolean;
  v_reason text;
begin
  select p.banned_at is not null into v_banned from public.posts p where p.id = p_post for update;
  if v_banned is null then
    perform private.fail(404, 'post_not_found', 'No such post');
  elsif v_banned = p_ban then
    perform private.fail(409, case when p_ban then 'already_banned' else 'not_banned' end,
      case when p_ban then 'The post is already banned' else 'The post is not banned' end);
  end if;
  v_reason := private.require_ban_reason(p_reason);
  perform set_config('private.recording_ban', 'on', true);
  update public.posts set banned_at = case when p_ban then now() end where id = p_post;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id, database_role)
  values ('post', p_post, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason,
          p_admin, case when p_admin is null then session_user end);
  perform set_config('private.recording_ban', 'off', true);
end;
$$;
revoke execute on function private.record_post_ban(uuid, boolean, text, uuid) from public;
comment on function private.record_post_ban(uuid, boolean, text, uuid) is 'Bans or unbans a post, and records why and who.';

create function private.set_post_ban(p_post uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform private.record_post_ban(p_post, p_ban, p_reason, private.require_admin());
end;
$$;
revoke execute on function private.set_post_ban(uuid, boolean, text) from public;
grant execute on function private.set_post_ban(uuid, boolean, text) to authenticated, service_role;
comment on function private.set_post_ban(uuid, boolean, text) is 'Admins: bans or unbans a post and records why.';

-- A ban set or lifted by editing banned_at (a row edit in Studio) would carry no reason and leave Auth and
-- the history behind: it is refused with the function to call instead.
create function private.refuse_unrecorded_ban()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  if current_setting('private.recording_ban', true) is distinct from 'on' then
    perform private.fail(403, 'ban_needs_reason', format(
      'A ban or unban needs a reason, and ends or restores sessions: instead of editing banned_at, call %s',
      case tg_table_name
        when 'profiles' then 'moderation.ban_user(''<username>'', ''<reason>'') or moderation.unban_user(…)'
        else 'moderation.ban_post(''<post id>'', ''<reason>'') or moderation.unban_post(…)'
      end));
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_unrecorded_ban() from public;
comment on function private.refuse_unrecorded_ban() is
  'Trigger: refuses a change of banned_at made outside the ban functions, naming the function to call.';

create trigger refuse_unrecorded_ban
before update of banned_at on public.profiles
for each row
when (old.banned_at is distinct from new.banned_at)
execute function private.refuse_unrecorded_ban();

create trigger refuse_unrecorded_ban
before update of banned_at on public.posts
for each row
when (old.banned_at is distinct from new.banned_at)
execute function private.refuse_unrecorded_ban();

create function public.admin_ban_post(p_post_id uuid, p_reason text default '', p_ban boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_post public.posts := private.find_post(p_post_id);
  v_ban boolean := coalesce(p_ban, v_post.banned_at is null);
begin
  perform private.set_post_ban(v_post.id, v_ban, p_reason);
  return jsonb_build_object('banned', v_ban, 'post', private.post_item(p_post_id));
end;
$$;
revoke execute on function public.admin_ban_post(uuid, text, boolean) from public;
grant execute on function public.admin_ban_post(uuid, text, boolean) to authenticated, service_role;
comment on function public.admin_ban_post(uuid, text, boolean) is 'Admins: ban or unban a post (p_ban null toggles), with a reason.';

create function public.admin_delete_banned_post(p_post_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts;
begin
  perform private.require_admin();
  v_post := private.find_post(p_post_id);
  if v_post.banned_at is null then
    perform private.fail(409, 'not_banned', 'Only a banned post can be deleted by an admin');
  end if;
  delete from public.posts p where p.id = v_post.id;
  return jsonb_build_object('deleted', true, 'id', v_post.id);
end;
$$;
revoke execute on function public.admin_delete_banned_post(uuid) from public;
grant execute on function public.admin_delete_banned_post(uuid) to authenticated, service_role;
comment on function public.admin_delete_banned_post(uuid) is 'Admins: delete a banned post.';

-- Reports ----------------------------------------------------------------------------------------------
-- Reported elements, from their summary rows (private.reported_elements) and their pending reports: how many open
-- reports, when the latest came, and the latest five.
create function public.admin_reports(
  p_type public.report_target default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  perform private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', g.latest_at, 'id', g.target_id, 'item', jsonb_build_object(
           'target_type', g.target_type, 'target_id', g.target_id,
           'reports_count', g.reports_count + coalesce((select t.delta from private.pending_totals t
             where t.counter = private.reports_counter(g.target_type) and t.target_id = g.target_id), 0),
           'latest_at', g.latest_at,
           'latest_reports', (
             select jsonb_agg(jsonb_build_object('id', r.id, 'reason', r.reason, 'created_at', r.created_at,
                      'reporter', private.card(r.reporter_id)) order by r.created_at desc)
             from (select * from public.reports r2
                   where coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id) = g.target_id
                   order by coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id), r2.created_at desc
                   limit 5) r)))
         order by g.latest_at desc, g.target_id desc), '[]'::jsonb)
  into v_rows
  from (
    select e.* from private.reported_elements e
    where (p_type is null or e.target_type = p_type)
      and (e.latest_at, e.target_id) < (v_after.at, v_after.id)
    order by e.latest_at desc, e.target_id desc
    limit v_limit + 1
  ) g;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.admin_reports(public.report_target, text, integer) from public;
grant execute on function public.admin_reports(public.report_target, text, integer) to authenticated, service_role;
comment on function public.admin_reports(public.report_target, text, integer) is
  'Admins: reported elements grouped, with counts and the latest reasons; filter by type.';

create function public.admin_dismiss_report(p_report_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.require_admin();
  delete from public.reports r where r.id = p_report_id;
  if not found then
    perform private.fail(404, 'report_not_found', 'Report not found');
  end if;
  return jsonb_build_object('deleted', true, 'id', p_report_id);
end;
$$;
revoke execute on function public.admin_dismiss_report(uuid) from public;
grant execute on function public.admin_dismiss_report(uuid) to authenticated, service_role;
comment on function public.admin_dismiss_report(uuid) is 'Admins: dismiss (delete) a report.';

-- Bans -------------------------------------------------------------------------------------------------
create function public.admin_bans(
  p_type public.ban_element default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  perform private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', b.banned_at, 'id', b.id, 'item', b.item)
         order by b.banned_at desc, b.id desc), '[]'::jsonb)
  into v_rows
  from (
    select * from (
      select p.banned_at, p.id, jsonb_build_object('type', 'user', 'banned_at', p.banned_at, 'user', i.item) as item
      from public.profiles p join private.profile_items i on i.id = p.id
      where p.banned_at is not null and (p_type is null or p_type = 'user')
      union all
      select x.banned_at, x.id, jsonb_build_object('type', 'post', 'banned_at', x.banned_at, 'post', i.item)
      from public.posts x join private.post_items i on i.id = x.id
      where x.banned_at is not null and (p_type is null or p_type = 'post')
    ) u
    where (u.banned_at, u.id) < (v_after.at, v_after.id)
    order by u.banned_at desc, u.id desc
    limit v_limit + 1
  ) b;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.admin_bans(public.ban_element, text, integer) from public;
grant execute on function public.admin_bans(public.ban_element, text, integer) to authenticated, service_role;
comment on function public.admin_bans(public.ban_element, text, integer) is 'Admins: users and posts banned now, latest first.';

create function private.ban_history_page(p_element uuid, p_admin uuid, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  perform private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', h.created_at, 'id', h.id, 'item', private.ban_history_json(h))
         order by h.created_at desc, h.id desc), '[]'::jsonb)
  into v_rows
  from (
    select * from public.ban_history b
    where (p_element is null or b.element_id = p_element)
      and (p_admin is null or b.admin_id = p_admin)
      and (b.created_at, b.id) < (v_after.at, v_after.id)
    order by b.created_at desc, b.id desc
    limit v_limit + 1
  ) h;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.ban_history_page(uuid, uuid, text, integer) from public;
grant execute on function private.ban_history_page(uuid, uuid, text, integer) to authenticated, service_role;
comment on function private.ban_history_page(uuid, uuid, text, integer) is
  'Admins: a page of the ban history of one element or one admin (null: any), latest first.';

create function public.admin_ban_history(p_element_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.ban_history_page(p_element_id, null, p_cursor, p_limit)
$$;
revoke execute on function public.admin_ban_history(uuid, text, integer) from public;
grant execute on function public.admin_ban_history(uuid, text, integer) to authenticated, service_role;
comment on function public.admin_ban_history(uuid, text, integer) is 'Admins: every ban and unban of one user or post, latest first.';

create function public.admin_ban_history_by_admin(p_username text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  perform private.require_admin();
  return private.ban_history_page(null, (private.find_user(p_username)).id, p_cursor, p_limit);
end;
$$;
revoke execute on function public.admin_ban_history_by_admin(text, text, integer) from public;
grant execute on function public.admin_ban_history_by_admin(text, text, integer) to authenticated, service_role;
comment on function public.admin_ban_history_by_admin(text, text, integer) is 'Admins: the bans and unbans one admin made, latest first.';

-- Granting admin: only the database owner (SQL editor, Studio, `npm run grant-admin -- <username>`).
create function private.grant_admin(p_username text, p_grant boolean default true)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_user uuid := (select p.id from public.profiles p where p.username = lower(btrim(p_username)));
begin
  if v_user is null then
    raise exception 'no user "%"', p_username;
  end if;
  if p_grant then
    insert into private.admins (user_id) values (v_user) on conflict do nothing;
  else
    delete from private.admins where user_id = v_user;
  end if;
  return p_grant;
end;
$$;
revoke execute on function private.grant_admin(text, boolean) from public;
grant execute on function private.grant_admin(text, boolean) to service_role;
comment on function private.grant_admin(text, boolean) is 'Grant (or with false, revoke) admin rights to a username.';
