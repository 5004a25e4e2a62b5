-- What a direct edit meets (docs/DATABASE.md, "Admins in Studio"): Studio's table editor writes as `postgres`, so
-- row-level security does not apply, but these triggers do. The counters follow their rows only (the counting
-- triggers of 10_counters.sql and private.recount_counters()); a like, comment, block or report stays with what
-- it was made for (moving one would leave the counters and summaries behind: delete it and insert another; a
-- follow's pair is held by private.check_follow_update); and the counted tables are not truncated behind the
-- counters' back.

-- A counter set by hand. The counting triggers update counters from inside a trigger (pg_trigger_depth() > 0),
-- and private.recount_counters() says it is recounting: any other change is refused.
create function private.refuse_counter_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'counter_is_derived', format(
    'The counters of %s follow the rows they count: they change with those rows. To repair them, call private.recount_counters()',
    tg_table_name));
  return null;
end;
$$;
revoke execute on function private.refuse_counter_edit() from public;
comment on function private.refuse_counter_edit() is 'Trigger: refuses a counter set by hand, naming the repair function.';

create trigger refuse_counter_edit
before update of followers_count, following_count, posts_count on public.profiles
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recounting', true) is distinct from 'on'
  and (old.followers_count is distinct from new.followers_count or old.following_count is distinct from new.following_count
    or old.posts_count is distinct from new.posts_count))
execute function private.refuse_counter_edit();

create trigger refuse_counter_edit
before update of likes_count, comments_count on public.posts
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recounting', true) is distinct from 'on'
  and (old.likes_count, old.comments_count) is distinct from (new.likes_count, new.comments_count))
execute function private.refuse_counter_edit();

create trigger refuse_counter_edit
before update of likes_count, replies_count on public.comments
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recounting', true) is distinct from 'on'
  and (old.likes_count, old.replies_count) is distinct from (new.likes_count, new.replies_count))
execute function private.refuse_counter_edit();

-- A new profile counts nothing yet, whatever the insert says (a post's and a comment's stamps do the same).
create function private.start_profile_counters()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  new.followers_count := 0;
  new.following_count := 0;
  new.posts_count := 0;
  return new;
end;
$$;
revoke execute on function private.start_profile_counters() from public;
comment on function private.start_profile_counters() is 'Trigger: a new profile starts with no followers, follows or posts counted.';

create trigger start_profile_counters
before insert on public.profiles
for each row execute function private.start_profile_counters();

-- A row moved to another target (a like to another post, a follow to another account, a report to another
-- element): the counters and the reports' summary would keep counting it where it was.
create function private.refuse_row_move()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'row_cannot_move', format(
    'A row of %s belongs to what it was made for: delete it and insert a new one instead of changing %s',
    tg_table_name, array_to_string(tg_argv, ', ')));
  return null;
end;
$$;
revoke execute on function private.refuse_row_move() from public;
comment on function private.refuse_row_move() is 'Trigger: refuses moving a row to another target (its arguments name the columns), delete and insert instead.';

create trigger refuse_row_move
before update of post_id, user_id on public.post_likes
for each row when ((old.post_id, old.user_id) is distinct from (new.post_id, new.user_id))
execute function private.refuse_row_move('post_id', 'user_id');

create trigger refuse_row_move
before update of comment_id, user_id on public.comment_likes
for each row when ((old.comment_id, old.user_id) is distinct from (new.comment_id, new.user_id))
execute function private.refuse_row_move('comment_id', 'user_id');

create trigger refuse_row_move
before update of post_id, parent_id, author_id on public.comments
for each row
when (old.post_id is distinct from new.post_id or old.parent_id is distinct from new.parent_id or old.author_id is distinct from new.author_id)
execute function private.refuse_row_move('post_id', 'parent_id', 'author_id');

create trigger refuse_row_move
before update of blocker_id, blocked_id on public.blocks
for each row when ((old.blocker_id, old.blocked_id) is distinct from (new.blocker_id, new.blocked_id))
execute function private.refuse_row_move('blocker_id', 'blocked_id');

create trigger refuse_row_move
before update of reporter_id, target_type, target_user_id, target_post_id, target_comment_id on public.reports
for each row
when (old.reporter_id is distinct from new.reporter_id or old.target_type is distinct from new.target_type
  or old.target_user_id is distinct from new.target_user_id or old.target_post_id is distinct from new.target_post_id
  or old.target_comment_id is distinct from new.target_comment_id)
execute function private.refuse_row_move('reporter_id', 'target_type', 'target_user_id', 'target_post_id', 'target_comment_id');

-- TRUNCATE fires no row trigger, so the counters and the reports' summary would go on counting what it removed.
create function private.refuse_counted_truncate()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'truncate_refused', format(
    'Truncating %s would leave the counters counting its rows: delete them instead (the counters follow)', tg_table_name));
  return null;
end;
$$;
revoke execute on function private.refuse_counted_truncate() from public;
comment on function private.refuse_counted_truncate() is 'Trigger: refuses TRUNCATE of a table whose rows are counted.';

create trigger refuse_counted_truncate before truncate on public.follows
for each statement execute function private.refuse_counted_truncate();
create trigger refuse_counted_truncate before truncate on public.posts
for each statement execute function private.refuse_counted_truncate();
create trigger refuse_counted_truncate before truncate on public.post_likes
for each statement execute function private.refuse_counted_truncate();
create trigger refuse_counted_truncate before truncate on public.comments
for each statement execute function private.refuse_counted_truncate();
create trigger refuse_counted_truncate before truncate on public.comment_likes
for each statement execute function private.refuse_counted_truncate();
create trigger refuse_counted_truncate before truncate on public.reports
for each statement execute function private.refuse_counted_truncate();

-- Rebuilds the reports' summary (private.reported_elements) from the reports, as recount_counters does the
-- counters; returns how many summary rows were wrong, missing or left over (0 when all is well).
create function private.resummarize_reports()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_fixed integer;
begin
  with truth as (
    select r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) as target_id,
      count(*)::integer as reports_count, max(r.created_at) as latest_at
    from public.reports r group by 1, 2
  ),
  gone as (
    delete from private.reported_elements e
    where not exists (select 1 from truth t where t.target_type = e.target_type and t.target_id = e.target_id)
    returning 1
  ),
  put as (
    insert into private.reported_elements as e (target_type, target_id, reports_count, latest_at)
    select t.target_type, t.target_id, t.reports_count, t.latest_at from truth t
    on conflict (target_type, target_id) do update
      set reports_count = excluded.reports_count, latest_at = excluded.latest_at
      where (e.reports_count, e.latest_at) is distinct from (excluded.reports_count, excluded.latest_at)
    returning 1
  )
  select (select count(*) from gone) + (select count(*) from put) into v_fixed;
  return v_fixed;
end;
$$;
revoke execute on function private.resummarize_reports() from public;
grant execute on function private.resummarize_reports() to service_role;
comment on function private.resummarize_reports() is
  'Rebuilds private.reported_elements from the reports; returns the number of summary rows corrected.';

-- A ban history entry written by hand would be a forged record, in any admin's name and at any date, which the
-- append-only rule would then keep for ever: entries come from the ban functions only, stamped by them.
create function private.refuse_forged_history()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'ban_history_is_append_only',
    'The ban history is written by the ban functions only: call moderation.ban_user(''<username>'', ''<reason>''), moderation.ban_post(…) or their unban_ forms');
  return null;
end;
$$;
revoke execute on function private.refuse_forged_history() from public;
comment on function private.refuse_forged_history() is 'Trigger: refuses a ban history entry not written by the ban functions.';

create trigger refuse_forged_history
before insert on public.ban_history
for each row
when (current_setting('private.recording_ban', true) is distinct from 'on')
execute function private.refuse_forged_history();

-- When an account confirmed its e-mail is Auth's to say (a trigger copies auth.users.email_confirmed_at here).
create function private.refuse_confirmation_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'confirmed_by_auth',
    'confirmed_at copies Supabase Auth''s email_confirmed_at: confirm the user in Studio''s Authentication page instead');
  return null;
end;
$$;
revoke execute on function private.refuse_confirmation_edit() from public;
comment on function private.refuse_confirmation_edit() is 'Trigger: refuses an edit of profiles.confirmed_at outside the copy from Auth.';

create trigger refuse_confirmation_edit
before update of confirmed_at on public.profiles
for each row
when (pg_trigger_depth() = 0 and old.confirmed_at is distinct from new.confirmed_at)
execute function private.refuse_confirmation_edit();
