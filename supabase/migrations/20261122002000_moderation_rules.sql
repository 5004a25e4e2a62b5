-- Every ban and unban says why; a post's author keeps control of the comments under their post.

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

update public.ban_history set reason = '(no reason given)' where char_length(btrim(reason)) = 0;
alter table public.ban_history alter column reason drop default;
alter table public.ban_history drop constraint ban_history_reason_check;
alter table public.ban_history add constraint ban_history_reason_check check (char_length(btrim(reason)) between 1 and 1000);
comment on column public.ban_history.reason is 'Why the admin banned or unbanned, 1 to 1000 characters.';

-- Banning hides the account and everything it wrote, refuses its logins (Auth's banned_until) and ends
-- its sessions, so its tokens stop working at once.
create or replace function private.set_user_ban(p_user uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_reason text := private.require_ban_reason(p_reason);
begin
  if p_ban then
    if exists (select 1 from private.admins a where a.user_id = p_user) then
      perform private.fail(409, 'cannot_ban_admin', 'Admins cannot be banned; revoke their admin rights first');
    end if;
    update public.profiles set banned_at = now() where id = p_user;
    update auth.users set banned_until = now() + interval '100 years' where id = p_user;
    delete from auth.sessions where user_id = p_user;
  else
    update public.profiles set banned_at = null where id = p_user;
    update auth.users set banned_until = null where id = p_user;
  end if;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id)
  values ('user', p_user, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason, v_admin);
end;
$$;
revoke execute on function private.set_user_ban(uuid, boolean, text) from public;
grant execute on function private.set_user_ban(uuid, boolean, text) to authenticated, service_role;

create or replace function private.set_post_ban(p_post uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_reason text := private.require_ban_reason(p_reason);
begin
  update public.posts set banned_at = case when p_ban then now() end where id = p_post;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id)
  values ('post', p_post, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason, v_admin);
end;
$$;
revoke execute on function private.set_post_ban(uuid, boolean, text) from public;
grant execute on function private.set_post_ban(uuid, boolean, text) to authenticated, service_role;

-- Who may delete a comment: its author, its post's author, an admin. Written once, for the table's delete
-- policy and for private.delete_comment_by_right.
create function private.may_delete_comment(p_author uuid, p_post uuid)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select private.uid() = p_author or private.is_post_author(private.uid(), p_post) or private.is_admin()
$$;
revoke execute on function private.may_delete_comment(uuid, uuid) from public;
grant execute on function private.may_delete_comment(uuid, uuid) to authenticated, service_role;

drop policy "authors, post authors and admins delete comments" on public.comments;
create policy "authors, post authors and admins delete comments" on public.comments
for delete to authenticated
using (private.may_delete_comment(author_id, post_id));

-- The delete policy only reaches rows the caller can see. This deletes by right even a comment the caller
-- cannot see: a post's author keeps control of the comments under their post after blocking (or being
-- blocked by) the commenter, whose comment everyone else still sees.
create function private.delete_comment_by_right(p_comment_id uuid)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with deleted as (
    delete from public.comments c
    where c.id = p_comment_id and private.may_delete_comment(c.author_id, c.post_id)
    returning c.id
  )
  select exists (select 1 from deleted)
$$;
revoke execute on function private.delete_comment_by_right(uuid) from public;
grant execute on function private.delete_comment_by_right(uuid) to authenticated, service_role;

create or replace function public.delete_comment(p_comment_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.require_uid();
  if not private.delete_comment_by_right(p_comment_id) then
    -- Not deleted: a 404 when the comment is missing or invisible to the caller, else a 403.
    perform private.find_comment(p_comment_id);
    perform private.fail(403, 'forbidden', 'Only the comment''s author, the post''s author or an admin may delete it');
  end if;
  return jsonb_build_object('deleted', true, 'id', p_comment_id);
end;
$$;
revoke execute on function public.delete_comment(uuid) from public;
grant execute on function public.delete_comment(uuid) to authenticated, service_role;
comment on function public.delete_comment(uuid) is 'Delete a comment and its replies (its author, the post''s author, or an admin).';
