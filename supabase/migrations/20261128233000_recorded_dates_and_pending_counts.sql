-- Issue 53: a report without a type is refused as a missing value; pending counter changes are written by the
-- counting triggers only; an edit of created_at keeps the recorded date.
drop trigger refuse_report_without_target on public.reports;
create trigger refuse_report_without_target
before insert on public.reports
for each row
when (new.target_type is not null and ((new.target_type = 'user') is distinct from (new.target_user_id is not null)
  or (new.target_type = 'post') is distinct from (new.target_post_id is not null)
  or (new.target_type = 'comment') is distinct from (new.target_comment_id is not null)))
execute function private.refuse_report_without_target();

create trigger refuse_counter_edit
before insert or update on private.pending_counts
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recounting', true) is distinct from 'on')
execute function private.refuse_counter_edit();

create function private.keep_created_at()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  new.created_at := old.created_at;
  return new;
end;
$$;
revoke execute on function private.keep_created_at() from public;
comment on function private.keep_created_at() is 'Trigger: an update keeps the row''s recorded created_at.';

create trigger keep_created_at before update of created_at on public.profiles
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.comments
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.post_likes
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.comment_likes
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.close_friends
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.blocks
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.mutes
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
create trigger keep_created_at before update of created_at on public.reports
for each row when (new.created_at is distinct from old.created_at) execute function private.keep_created_at();
