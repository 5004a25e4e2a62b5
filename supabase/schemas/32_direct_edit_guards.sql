-- What a direct edit meets (docs/DATABASE.md, "Admins in Studio"): Studio's table editor writes as `postgres`, so
-- row-level security does not apply, but these triggers do. The counters follow their rows only (the counting
-- triggers of 10_counters.sql and private.recount_counters()); a like, comment, block or report stays with what
-- it was made for (moving one would leave the counters and summaries behind: delete it and insert another); and
-- the counted tables are not truncated behind the counters' back.

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

-- A pending counter change (10_counters.sql) is left by a counting trigger only (pg_trigger_depth() > 0); one
-- written by hand would change what every reader counts. Deleting one loses that change: the integrity report
-- finds the counter (`counter`) and private.recount_counters() repairs it.
create trigger refuse_counter_edit
before insert or update on private.pending_counts
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recounting', true) is distinct from 'on')
execute function private.refuse_counter_edit();

-- When a row was made is the database's record: an account's age decides its write limits
-- (24_write_limits.sql), a block's date which mentions it hid, a list's order. An edit of `created_at` keeps the
-- recorded value, as a post's does (04_posts.sql). A load that must back-date rows does it as
-- supabase/bench/seed.ts does, with `session_replication_role = replica` in its transaction.
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
before update of follower_id, followee_id on public.follows
for each row
when (old.follower_id is distinct from new.follower_id or old.followee_id is distinct from new.followee_id)
execute function private.refuse_row_move('follower_id', 'followee_id');

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

-- A second like of the same post or comment, inserted directly (supabase-js: `.from('post_likes').insert()`), adds
-- nothing and is no error, as a second like_post(p_like => true) is not: a like is idempotent, rather than a 409
-- 23505 without a stable code (and `upsert(…, { ignoreDuplicates: true })` keeps working). Two inserts at the same
-- instant both pass this check; the primary key still refuses the second (23505). Security invoker: the caller's
-- own likes are the ones it can see, and a like it may no longer see is left to the insert policy.
create function private.skip_duplicate_like()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_exists boolean;
begin
  -- One branch per table: a branch reads fields only its table's rows have.
  if tg_table_name = 'post_likes' then
    v_exists := exists (select 1 from public.post_likes l where l.post_id = new.post_id and l.user_id = new.user_id);
  else
    v_exists := exists (select 1 from public.comment_likes l where l.comment_id = new.comment_id and l.user_id = new.user_id);
  end if;
  return case when v_exists then null else new end;
end;
$$;
revoke execute on function private.skip_duplicate_like() from public;
comment on function private.skip_duplicate_like() is 'Trigger: a second like of the same post or comment adds nothing (a like is idempotent).';

create trigger skip_duplicate_like
before insert on public.post_likes
for each row execute function private.skip_duplicate_like();

create trigger skip_duplicate_like
before insert on public.comment_likes
for each row execute function private.skip_duplicate_like();

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
  -- A summary behind by its pending reports is not one to correct: they are folded in first.
  perform private.fold_pending_counts();
  -- Every summary row is taken first, as a removed report takes its own (06_moderation.sql): this waits for the
  -- reports in flight (a reporter holds its element's row, or a key share of it while it leaves its report pending,
  -- to its commit) and makes new reporters wait for this transaction, so the next statement counts every pending
  -- report it drops.
  perform from private.reported_elements e order by e.target_type, e.target_id for update;
  with truth as (
    select r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) as target_id,
      count(*)::integer as reports_count, max(r.created_at) as latest_at
    from public.reports r group by 1, 2
  ),
  -- The pending reports (06_moderation.sql) go in the same statement: those it drops are in the truth it counts.
  dropped as (
    delete from private.pending_counts d where d.counter like '%\_reports'
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

-- When an account confirmed its e-mail is Auth's to say (a trigger copies auth.users.email_confirmed_at here): an
-- edit may only copy it again (the integrity report's repair).
create function private.refuse_confirmation_edit()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if new.confirmed_at is distinct from (select u.email_confirmed_at from auth.users u where u.id = new.id) then
    perform private.fail(403, 'confirmed_by_auth',
      'confirmed_at copies Supabase Auth''s email_confirmed_at: confirm the user in Studio''s Authentication page instead');
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_confirmation_edit() from public;
comment on function private.refuse_confirmation_edit() is 'Trigger: refuses an edit of profiles.confirmed_at other than a copy of Auth''s.';

create trigger refuse_confirmation_edit
before update of confirmed_at on public.profiles
for each row
when (pg_trigger_depth() = 0 and old.confirmed_at is distinct from new.confirmed_at)
execute function private.refuse_confirmation_edit();

-- Nobody edits a comment in the product (its author deletes it and writes another): an edit in Studio would
-- skip what a new comment meets (the trim, the mentions and their notifications).
create function private.refuse_comment_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'comment_not_editable',
    'A comment is not edited, by its author or anyone: delete it (its author may write another)');
  return null;
end;
$$;
revoke execute on function private.refuse_comment_edit() from public;
comment on function private.refuse_comment_edit() is 'Trigger: refuses an edit of a comment''s text.';

create trigger refuse_comment_edit
before update of body on public.comments
for each row when (old.body is distinct from new.body)
execute function private.refuse_comment_edit();

-- Notifications and mentions record acts (a like, a follow, a name in a text) and are written by the triggers of
-- those acts (mentions by the store helpers, which say so), which check who may reach whom. One inserted by hand
-- would be a notice of nothing, or a mention past a block.
create function private.refuse_derived_insert()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'written_by_database', format(
    'Rows of %s are written by the database when the act they record happens: make the act instead (a like, a follow, a text that names the account)',
    tg_table_name));
  return null;
end;
$$;
revoke execute on function private.refuse_derived_insert() from public;
comment on function private.refuse_derived_insert() is 'Trigger: refuses a notification or mention inserted other than by the trigger of its act.';

create trigger refuse_derived_insert
before insert on public.notifications
for each row when (pg_trigger_depth() = 0)
execute function private.refuse_derived_insert();

create trigger refuse_derived_insert
before insert on public.post_mentions
for each row when (current_setting('private.storing_mentions', true) is distinct from 'on')
execute function private.refuse_derived_insert();

create trigger refuse_derived_insert
before insert on public.comment_mentions
for each row when (current_setting('private.storing_mentions', true) is distinct from 'on')
execute function private.refuse_derived_insert();

-- A relation of an account with itself. The tables' checks hold it too, but their error names a constraint
-- (`follows_check`); this says it with the API's code, whoever writes (supabase-js, Studio's table editor).
-- And, for a writer without a user (Studio's table editor, the service key), an account that does not exist is the
-- API's 404, not a foreign key's name; a client's own write is left to row-level security, which answers an
-- account that does not exist exactly as one that blocked the caller. Arguments: the two columns, the code, the
-- sentence.
create function private.refuse_self_pair()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_row jsonb := to_jsonb(new);
  v_missing text;
begin
  if v_row ->> tg_argv[0] = v_row ->> tg_argv[1] then
    perform private.fail(400, tg_argv[2], tg_argv[3]);
  end if;
  if current_setting('role', true) not in ('anon', 'authenticated') then
    select c.id into v_missing
    from unnest(array[v_row ->> tg_argv[0], v_row ->> tg_argv[1]]) c(id)
    where c.id is not null and not exists (select 1 from public.profiles p where p.id = c.id::uuid)
    limit 1;
    if v_missing is not null then
      perform private.fail(404, 'user_not_found', format('No account has the id %s (deleted, or never made)', v_missing));
    end if;
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_self_pair() from public;
comment on function private.refuse_self_pair() is
  'Trigger: refuses a row that relates an account to itself, or (written without a user) to an account that does not exist (arguments: the two columns, the code, the message).';

create trigger refuse_self_pair
before insert on public.follows
for each row execute function private.refuse_self_pair('follower_id', 'followee_id', 'cannot_follow_self', 'An account cannot follow itself');

create trigger refuse_self_pair
before insert on public.close_friends
for each row execute function private.refuse_self_pair('owner_id', 'friend_id', 'cannot_befriend_self', 'An account cannot be its own close friend');

create trigger refuse_self_pair
before insert on public.blocks
for each row execute function private.refuse_self_pair('blocker_id', 'blocked_id', 'cannot_block_self', 'An account cannot block itself');

create trigger refuse_self_pair
before insert on public.mutes
for each row execute function private.refuse_self_pair('muter_id', 'muted_id', 'cannot_mute_self', 'An account cannot mute itself');

create trigger refuse_self_pair
before insert on public.reports
for each row execute function private.refuse_self_pair('reporter_id', 'target_user_id', 'invalid_reason', 'An account cannot report itself');

-- A report names exactly the target its type says. The table's check holds it too, but its error names a
-- constraint (`reports_check`); the API's report functions set both, so only a direct insert meets this.
create function private.refuse_report_without_target()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(400, 'invalid_value', format(
    'A report of a %s names it in target_%s_id, and leaves the other two target columns empty', new.target_type, new.target_type));
  return null;
end;
$$;
revoke execute on function private.refuse_report_without_target() from public;
comment on function private.refuse_report_without_target() is 'Trigger: refuses a report whose target columns do not match its type.';

create trigger refuse_report_without_target
before insert on public.reports
for each row
when (new.target_type is not null and ((new.target_type = 'user') is distinct from (new.target_user_id is not null)
  or (new.target_type = 'post') is distinct from (new.target_post_id is not null)
  or (new.target_type = 'comment') is distinct from (new.target_comment_id is not null)))
execute function private.refuse_report_without_target();

-- A like or a comment written by a session without a user (Studio's table editor as `postgres`, service_role):
-- row-level security, which holds the API's writers to the posts they see, does not apply to it. The same rule is
-- asked here one row at a time: the writer, not banned, may see the post (private.may_see_post, the policy's
-- one-row form), and the comment liked or replied to. A user's own write has met the policies already.
create function private.refuse_unseen_target()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_writer uuid;
  v_post uuid;
  v_comment uuid;
  v_what text := 'post';
begin
  if private.uid() is not null then
    return new;
  end if;
  -- One statement per table: a branch names only its own table's columns.
  if tg_table_name = 'post_likes' then
    v_writer := new.user_id;
    v_post := new.post_id;
  elsif tg_table_name = 'comment_likes' then
    v_writer := new.user_id;
    v_comment := new.comment_id;
  else
    v_writer := new.author_id;
    v_post := new.post_id;
    v_comment := new.parent_id;
  end if;
  if v_comment is not null then
    v_what := 'comment';
    v_post := coalesce(v_post, (select c.post_id from public.comments c where c.id = v_comment));
    -- What the foreign key would refuse by a constraint's name, said as the API says it.
    if not exists (select 1 from public.comments c where c.id = v_comment) then
      perform private.fail(404, 'comment_not_found', format('No comment has the id %s (deleted, or never made)', v_comment));
    end if;
  end if;
  if v_post is not null and not exists (select 1 from public.posts p where p.id = v_post) then
    perform private.fail(404, 'post_not_found', format('No post has the id %s (deleted, or never made)', v_post));
  end if;
  if not coalesce((
      select w.banned_at is null
        and private.may_see_post(p, v_writer)
        and (v_comment is null or exists (
          select 1 from public.comments c join public.profiles a on a.id = c.author_id
          where c.id = v_comment and private.may_see_profile(a, v_writer)))
      from public.profiles w, public.posts p
      where w.id = v_writer and p.id = v_post), true) then
    perform private.fail(409, 'not_visible_to_writer', format(
      'The writer may not see this %s (a block, a private account, a close-friends post or a ban stands between them): '
      || 'a row of %s is only made by an account in good standing on what it sees', v_what, tg_table_name));
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_unseen_target() from public;
comment on function private.refuse_unseen_target() is
  'Trigger: refuses a like or comment, written past row-level security, that its writer could not have made.';

create trigger refuse_unseen_target
before insert on public.post_likes
for each row execute function private.refuse_unseen_target();

create trigger refuse_unseen_target
before insert on public.comment_likes
for each row execute function private.refuse_unseen_target();

create trigger refuse_unseen_target
before insert on public.comments
for each row execute function private.refuse_unseen_target();

-- A notification or a mention records an act (who did what to whom, about which post or comment): editing its
-- ids would make it record another act that never happened ("xus followed you"), or a mention of an account the
-- text does not name, past a block. Only a notification's read_at may change (marking it read or unread); delete
-- the row to remove it. The argument names what may change.
create function private.refuse_derived_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'written_by_database', format(
    'A row of %s records an act and is written by the database: it is not edited (%s); delete it instead',
    tg_table_name, tg_argv[0]));
  return null;
end;
$$;
revoke execute on function private.refuse_derived_edit() from public;
comment on function private.refuse_derived_edit() is
  'Trigger: refuses editing what a notification or mention records (its argument says what may change).';

create trigger refuse_derived_edit
before update on public.notifications
for each row
when ((old.recipient_id, old.actor_id, old.kind, old.post_id, old.comment_id, old.created_at)
  is distinct from (new.recipient_id, new.actor_id, new.kind, new.post_id, new.comment_id, new.created_at))
execute function private.refuse_derived_edit('only read_at may change: mark it read or unread');

create trigger refuse_derived_edit
before update on public.post_mentions
for each row when ((old.post_id, old.user_id) is distinct from (new.post_id, new.user_id))
execute function private.refuse_derived_edit('the post''s text decides whom it mentions: edit the text');

create trigger refuse_derived_edit
before update on public.comment_mentions
for each row when ((old.comment_id, old.user_id) is distinct from (new.comment_id, new.user_id))
execute function private.refuse_derived_edit('the comment''s text decides whom it mentions');

-- A close-friend entry or a mute moved to another pair would skip what a new one meets (the block check, the
-- self check, the write limit): delete it and insert another.
create trigger refuse_row_move
before update of owner_id, friend_id on public.close_friends
for each row when ((old.owner_id, old.friend_id) is distinct from (new.owner_id, new.friend_id))
execute function private.refuse_row_move('owner_id', 'friend_id');

create trigger refuse_row_move
before update of muter_id, muted_id on public.mutes
for each row when ((old.muter_id, old.muted_id) is distinct from (new.muter_id, new.muted_id))
execute function private.refuse_row_move('muter_id', 'muted_id');

-- A reply is under its parent's post (the table's foreign key holds it, but its error names a constraint,
-- `comments_parent_id_post_id_fkey`). A reply inserted without its post is put under its parent's. Security
-- definer, so that it only answers what the foreign key would: a parent the writer may not see meets the policies.
create function private.check_reply_parent()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_post uuid := (select c.post_id from public.comments c where c.id = new.parent_id);
begin
  new.post_id := coalesce(new.post_id, v_post);
  if v_post is null or v_post <> new.post_id then
    perform private.fail(404, 'comment_not_found', format(
      'No comment %s under post %s: a reply (parent_id) goes under the post of the comment it answers', new.parent_id, new.post_id));
  end if;
  return new;
end;
$$;
revoke execute on function private.check_reply_parent() from public;
comment on function private.check_reply_parent() is
  'Trigger: puts a reply under its parent''s post when none is given, and refuses a parent that is not under the post (404).';

create trigger check_reply_parent
before insert on public.comments
for each row when (new.parent_id is not null)
execute function private.check_reply_parent();

-- A reserved name is one nobody may take: one an account already has is refused (rename the account first), and
-- the name is kept as the usernames are compared, lowercased and trimmed.
create function private.check_reserved_username()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_owner uuid;
begin
  new.name := lower(btrim(new.name));
  select p.id into v_owner from public.profiles p where p.username = new.name;
  if found then
    perform private.fail(409, 'username_taken', format(
      'The username "%s" is in use by account %s: rename that account first (update public.profiles set username = ''<another>'' where id = ''%s''), then reserve the name',
      new.name, v_owner, v_owner));
  end if;
  return new;
end;
$$;
revoke execute on function private.check_reserved_username() from public;
comment on function private.check_reserved_username() is
  'Trigger: lowercases a reserved username and refuses one an account already has (409 username_taken).';

create trigger check_reserved_username
before insert or update of name on private.reserved_usernames
for each row execute function private.check_reserved_username();

-- Who no write limit applies to, and a window's count, change only through moderation.trust_writer and
-- moderation.lift_write_limit, which record the reason in private.write_limit_history: an exemption made by
-- hand would be unrecorded, a history entry forged. The counting trigger writes the counts (inside a trigger),
-- and a deleted account takes its rows along (a cascade, inside a trigger too).
create function private.refuse_unrecorded_limit_change()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  if tg_table_name = 'write_limit_history' then
    perform private.fail(403, 'history_is_append_only',
      'The write limit history is written by the functions that act: call moderation.trust_writer(''<username>'', ''<reason>'') or moderation.lift_write_limit(''<username>'', ''<family>'', ''<reason>'')');
  end if;
  perform private.fail(403, 'write_limit_needs_reason', format(
    'Rows of %s change with a reason, which the write limit history keeps: call moderation.trust_writer(''<username>'', ''<reason>'') (with false to end it) or moderation.lift_write_limit(''<username>'', ''<family>'', ''<reason>'')',
    tg_table_name));
  return null;
end;
$$;
revoke execute on function private.refuse_unrecorded_limit_change() from public;
comment on function private.refuse_unrecorded_limit_change() is
  'Trigger: refuses an exemption, a write count or a write limit history entry written other than by the moderation functions.';

create trigger refuse_unrecorded_limit_change
before insert or update or delete on private.trusted_writers
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recording_limits', true) is distinct from 'on')
execute function private.refuse_unrecorded_limit_change();

create trigger refuse_unrecorded_limit_change_whole
before truncate on private.trusted_writers
for each statement execute function private.refuse_unrecorded_limit_change();

create trigger refuse_unrecorded_limit_change
before insert or update or delete on private.write_counts
for each row
when (pg_trigger_depth() = 0 and current_setting('private.recording_limits', true) is distinct from 'on')
execute function private.refuse_unrecorded_limit_change();

create trigger refuse_unrecorded_limit_change
before insert on private.write_limit_history
for each row
when (current_setting('private.recording_limits', true) is distinct from 'on')
execute function private.refuse_unrecorded_limit_change();

-- A required column left empty (Studio's insert form, a cell set to NULL): the API's code and a sentence naming
-- the columns, not Postgres's not-null error. Named to run after the triggers that fill columns in (a post's
-- stamps, a reply's post, a follow's status): BEFORE triggers of a table run in the order of their names.
-- Arguments: the required columns the writer gives. A client's own write (anon, authenticated) is left to
-- row-level security, which answers a write with no caller as the author (42501) before any missing value.
create function private.refuse_missing_value()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_row jsonb := to_jsonb(new);
begin
  if current_setting('role', true) in ('anon', 'authenticated') then
    return new;
  end if;
  perform private.fail(400, 'missing_value', format('A row of %s needs a value in %s', tg_table_name,
    (select string_agg(c.name, ', ') from unnest(tg_argv) c(name) where jsonb_typeof(v_row -> c.name) = 'null')));
  return null;
end;
$$;
revoke execute on function private.refuse_missing_value() from public;
comment on function private.refuse_missing_value() is
  'Trigger: refuses a row whose required columns (its arguments) are empty, with the API''s code missing_value.';

create trigger values_required before insert or update on public.posts
for each row when (new.author_id is null or new.body is null)
execute function private.refuse_missing_value('author_id', 'body');

create trigger values_required before insert or update on public.comments
for each row when (new.post_id is null or new.author_id is null or new.body is null)
execute function private.refuse_missing_value('post_id', 'author_id', 'body');

create trigger values_required before insert or update on public.post_likes
for each row when (new.post_id is null or new.user_id is null)
execute function private.refuse_missing_value('post_id', 'user_id');

create trigger values_required before insert or update on public.comment_likes
for each row when (new.comment_id is null or new.user_id is null)
execute function private.refuse_missing_value('comment_id', 'user_id');

create trigger values_required before insert or update on public.follows
for each row when (new.follower_id is null or new.followee_id is null)
execute function private.refuse_missing_value('follower_id', 'followee_id');

create trigger values_required before insert or update on public.close_friends
for each row when (new.owner_id is null or new.friend_id is null)
execute function private.refuse_missing_value('owner_id', 'friend_id');

create trigger values_required before insert or update on public.blocks
for each row when (new.blocker_id is null or new.blocked_id is null)
execute function private.refuse_missing_value('blocker_id', 'blocked_id');

create trigger values_required before insert or update on public.mutes
for each row when (new.muter_id is null or new.muted_id is null)
execute function private.refuse_missing_value('muter_id', 'muted_id');

create trigger values_required before insert or update on public.reports
for each row when (new.reporter_id is null or new.target_type is null or new.reason is null)
execute function private.refuse_missing_value('reporter_id', 'target_type', 'reason');

-- Rebuilds the feed's sources (private.feed_sources) from the accepted follows, as resummarize_reports does the
-- reports' summary: a missing row is made with the bound a new follow gets, a row without an accepted follow
-- goes, and a bound below its account's newest post is raised to it. Returns how many rows it fixed.
create function private.rebuild_feed_sources()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_gone integer;
  v_put integer;
  v_raised integer;
begin
  delete from private.feed_sources s
  where not exists (select 1 from public.follows f
                    where f.follower_id = s.follower_id and f.followee_id = s.followee_id and f.status = 'accepted');
  get diagnostics v_gone = row_count;
  insert into private.feed_sources (follower_id, followee_id, newest_post_at)
  select f.follower_id, f.followee_id, private.feed_source_bound(a.followers_count,
    (select max(p.created_at) from public.posts p where p.author_id = f.followee_id))
  from public.follows f join public.profiles a on a.id = f.followee_id
  where f.status = 'accepted'
    and not exists (select 1 from private.feed_sources s where s.follower_id = f.follower_id and s.followee_id = f.followee_id)
  on conflict do nothing;
  get diagnostics v_put = row_count;
  -- Each account's newest post looked up once (materialized: not once per row of feed_sources).
  with n as materialized (
    select a.id, (select max(p.created_at) from public.posts p where p.author_id = a.id) as newest from public.profiles a
  )
  update private.feed_sources s set newest_post_at = n.newest
  from n
  where n.id = s.followee_id and s.newest_post_at < n.newest;
  get diagnostics v_raised = row_count;
  return v_gone + v_put + v_raised;
end;
$$;
revoke execute on function private.rebuild_feed_sources() from public;
grant execute on function private.rebuild_feed_sources() to service_role;
comment on function private.rebuild_feed_sources() is
  'Rebuilds private.feed_sources from the accepted follows and the newest posts; returns the number of rows corrected.';

-- Studio's Database > Triggers switches a trigger off with `alter table … disable trigger …` (pg-meta's
-- triggers update, as `postgres`). A trigger of the product (its function in the schema private) keeps a rule:
-- off, a like goes uncounted, a follow gets no feed source, a follow survives a block, a report goes
-- unsummarized. So the switch is refused, whatever the mode asked (disabled, or replica only: off for every
-- session of the product). Event triggers do not run in a session with session_replication_role = replica, the
-- way a bulk load turns every trigger off at once; what that leaves behind, a trigger left off included, is for
-- moderation.integrity_report() to find. The seed (supabase/seed.sql), which back-dates its posts, says so with
-- the setting private.switching_triggers.
create function private.refuse_trigger_switch()
returns event_trigger
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_off text;
begin
  if current_setting('private.switching_triggers', true) = 'on' then
    return;
  end if;
  select string_agg(format('%s on %s', t.tgname, t.tgrelid::regclass), ', ' order by t.tgname) into v_off
  from pg_catalog.pg_event_trigger_ddl_commands() c
  join pg_catalog.pg_trigger t on t.tgrelid = c.objid
  join pg_catalog.pg_proc f on f.oid = t.tgfoid
  where c.command_tag = 'ALTER TABLE' and c.object_type = 'table'
    and not t.tgisinternal and t.tgenabled not in ('O', 'A')
    and f.pronamespace = 'private'::regnamespace;
  if v_off is not null then
    perform private.fail(403, 'trigger_switch_refused', format(
      'The trigger %s keeps a rule of the product (counters, feed, blocks, notifications, limits): it stays on. For a bulk load, set session_replication_role = replica in its transaction, then run the repairs moderation.integrity_report() lists',
      v_off));
  end if;
end;
$$;
revoke execute on function private.refuse_trigger_switch() from public;
comment on function private.refuse_trigger_switch() is
  'Event trigger: refuses switching off (or to replica only) a trigger whose function is in the schema private.';

create event trigger refuse_trigger_switch on ddl_command_end
when tag in ('ALTER TABLE')
execute function private.refuse_trigger_switch();

-- The integrity report (docs/DATABASE.md, "Admins in Studio", lists each invariant with its check and repair):
-- every row that breaks an invariant the triggers above keep for new edits, with the repair for each, a statement
-- ending in `;` (the whole column pasted runs every repair); empty on a healthy database. For what the triggers
-- cannot see: a load with triggers off (session_replication_role = replica), a restore in part, an edit made
-- before a guard existed. Each check reads a table once, by its indexes where it joins: at 10 M posts it is a few
-- sequential scans (docs/DATABASE.md says how long).
create function moderation.integrity_report()
returns table (problem text, element_type text, element_id uuid, detail text, repair text)
language sql
stable
security definer
set search_path = ''
as $$
  -- Each account's newest post, looked up once per account (posts_author_idx).
  with newest_posts as materialized (
    select a.id, (select max(p.created_at) from public.posts p where p.author_id = a.id) as newest from public.profiles a
  ),
  -- Counter changes left while their row was busy (10_counters.sql): a counter is its column plus these.
  pending as materialized (
    select t.counter, t.target_id, t.delta from private.pending_totals t
  )
  -- The counters as private.recount_counters() computes them: one grouped scan of each counted table.
  select 'counter', 'user', p.id,
    format('followers %s (rows %s), following %s (rows %s), posts %s (rows %s)',
      p.followers_count + coalesce(pfr.delta, 0), coalesce(fr.n, 0), p.following_count + coalesce(pfg.delta, 0),
      coalesce(fg.n, 0), p.posts_count, coalesce(po.n, 0)),
    'select private.recount_counters();'
  from public.profiles p
  left join (select f.followee_id as id, count(*)::integer as n from public.follows f where f.status = 'accepted' group by 1) fr
    on fr.id = p.id
  left join (select f.follower_id as id, count(*)::integer as n from public.follows f where f.status = 'accepted' group by 1) fg
    on fg.id = p.id
  left join (select x.author_id as id, count(*)::integer as n from public.posts x group by 1) po on po.id = p.id
  left join pending pfr on pfr.counter = 'followers' and pfr.target_id = p.id
  left join pending pfg on pfg.counter = 'following' and pfg.target_id = p.id
  where (p.followers_count + coalesce(pfr.delta, 0), p.following_count + coalesce(pfg.delta, 0), p.posts_count)
    is distinct from (coalesce(fr.n, 0), coalesce(fg.n, 0), coalesce(po.n, 0))
  union all
  select 'counter', 'post', p.id,
    format('likes %s (rows %s), comments %s (rows %s)', p.likes_count + coalesce(pl.delta, 0), coalesce(l.n, 0),
      p.comments_count + coalesce(pc.delta, 0), coalesce(x.n, 0)),
    'select private.recount_counters();'
  from public.posts p
  left join (select l.post_id as id, count(*)::integer as n from public.post_likes l group by 1) l on l.id = p.id
  left join (select x.post_id as id, count(*)::integer as n from public.comments x group by 1) x on x.id = p.id
  left join pending pl on pl.counter = 'post_likes' and pl.target_id = p.id
  left join pending pc on pc.counter = 'post_comments' and pc.target_id = p.id
  where (p.likes_count + coalesce(pl.delta, 0), p.comments_count + coalesce(pc.delta, 0))
    is distinct from (coalesce(l.n, 0), coalesce(x.n, 0))
  union all
  select 'counter', 'comment', c.id,
    format('likes %s (rows %s), replies %s (rows %s)', c.likes_count + coalesce(cl.delta, 0), coalesce(l.n, 0),
      c.replies_count, coalesce(r.n, 0)),
    'select private.recount_counters();'
  from public.comments c
  left join (select l.comment_id as id, count(*)::integer as n from public.comment_likes l group by 1) l on l.id = c.id
  left join (select r.parent_id as id, count(*)::integer as n from public.comments r where r.parent_id is not null group by 1) r
    on r.id = c.id
  left join pending cl on cl.counter = 'comment_likes' and cl.target_id = c.id
  where (c.likes_count + coalesce(cl.delta, 0), c.replies_count) is distinct from (coalesce(l.n, 0), coalesce(r.n, 0))
  union all
  select 'ban state', 'user', p.id,
    format('@%s: profile %s, Auth %s', p.username, case when p.banned_at is null then 'not banned' else 'banned' end,
      case when coalesce(u.banned_until > now(), false) then 'banned' else 'not banned' end),
    case when p.banned_at is null then format('select moderation.ban_user(%L, ''<reason>'');', p.username)
      else format('select moderation.unban_user(%L, ''<reason>'');', p.username) end
  from public.profiles p join auth.users u on u.id = p.id
  where (p.banned_at is not null) <> coalesce(u.banned_until > now(), false)
  union all
  -- Driven by the blocks (few): each pair's rows are found by primary key, both ways.
  select 'relation across a block', 'user', r.first_id, format('%s of %s by %s', r.relation, r.second_id, r.first_id),
    format('delete from public.%s where %s;', r.relation, r.condition)
  from public.blocks b
  cross join lateral (values (b.blocker_id, b.blocked_id), (b.blocked_id, b.blocker_id)) pair(a, z)
  cross join lateral (
    select 'follows' as relation, f.follower_id as first_id, f.followee_id as second_id,
      format('follower_id = %L and followee_id = %L', f.follower_id, f.followee_id) as condition
    from public.follows f where f.follower_id = pair.a and f.followee_id = pair.z
    union all
    select 'close_friends', c.owner_id, c.friend_id, format('owner_id = %L and friend_id = %L', c.owner_id, c.friend_id)
    from public.close_friends c where c.owner_id = pair.a and c.friend_id = pair.z
    union all
    select 'mutes', m.muter_id, m.muted_id, format('muter_id = %L and muted_id = %L', m.muter_id, m.muted_id)
    from public.mutes m where m.muter_id = pair.a and m.muted_id = pair.z
  ) r
  union all
  -- The feed asks one row per accepted follow, whose bound is no earlier than the account's newest post.
  select 'feed source', 'user', s.follower_id, s.detail, 'select private.rebuild_feed_sources();'
  from (
    select f.follower_id, format('the feed of %s does not ask %s, whom it follows', f.follower_id, f.followee_id) as detail
    from public.follows f
    where f.status = 'accepted'
      and not exists (select 1 from private.feed_sources s where s.follower_id = f.follower_id and s.followee_id = f.followee_id)
    union all
    select s.follower_id, format('the feed of %s asks %s, whom it does not follow', s.follower_id, s.followee_id)
    from private.feed_sources s
    where not exists (select 1 from public.follows f
                      where f.follower_id = s.follower_id and f.followee_id = s.followee_id and f.status = 'accepted')
    union all
    select s.follower_id, format('the feed of %s looks for posts of %s older than %s only, its newest is of %s',
      s.follower_id, s.followee_id, s.newest_post_at, n.newest)
    from newest_posts n
    join private.feed_sources s on s.followee_id = n.id
    where s.newest_post_at < n.newest
  ) s
  union all
  -- A summary is its count plus its pending reports; its latest date is behind while any are pending.
  select 'reports summary', coalesce(t.target_type, e.target_type)::text, coalesce(t.target_id, e.target_id),
    format('summary %s, reports %s', coalesce(e.reports_count + coalesce(pr.delta, 0), 0), coalesce(t.n, 0)),
    'select private.resummarize_reports();'
  from (
    select r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) as target_id,
      count(*)::integer as n, max(r.created_at) as latest
    from public.reports r group by 1, 2
  ) t
  full join private.reported_elements e on e.target_type = t.target_type and e.target_id = t.target_id
  left join pending pr on pr.counter = private.reports_counter(e.target_type) and pr.target_id = e.target_id
  where e.reports_count + coalesce(pr.delta, 0) is distinct from t.n
    or (pr.delta is null and e.latest_at is distinct from t.latest)
  union all
  -- A notification's actor and recipient are those of its subject: the like's post's author is notified, the
  -- comment's author acted... (what private.notify's callers write).
  select 'notification', 'notification', n.id,
    format('%s to %s by %s (post %s, comment %s) is not what its subject records', n.kind, n.recipient_id, n.actor_id,
      n.post_id, n.comment_id),
    format('delete from public.notifications where id = %L;', n.id)
  from public.notifications n
  left join public.posts p on p.id = n.post_id
  left join public.comments c on c.id = n.comment_id
  left join public.comments r on r.id = c.parent_id
  where n.actor_id = n.recipient_id
    or case n.kind
      when 'follow' then n.post_id is not null or n.comment_id is not null
      when 'follow_request' then n.post_id is not null or n.comment_id is not null
      when 'follow_accepted' then n.post_id is not null or n.comment_id is not null
      when 'post_like' then n.comment_id is not null or p.author_id is distinct from n.recipient_id
      when 'comment_like' then c.author_id is distinct from n.recipient_id or c.post_id is distinct from n.post_id
      when 'comment' then c.author_id is distinct from n.actor_id or c.parent_id is not null
        or p.author_id is distinct from n.recipient_id or c.post_id is distinct from n.post_id
      when 'reply' then c.author_id is distinct from n.actor_id or r.author_id is distinct from n.recipient_id
        or c.post_id is distinct from n.post_id
      when 'mention' then case
        when n.comment_id is null then p.author_id is distinct from n.actor_id
          or not exists (select 1 from public.post_mentions m where m.post_id = n.post_id and m.user_id = n.recipient_id)
        else c.author_id is distinct from n.actor_id or c.post_id is distinct from n.post_id end
    end
  union all
  -- A mention no writer could have made: in a text without an `@`, of an account made after the text was last
  -- written, or across a block older than the text. (A mention whose account was renamed since is kept: the text
  -- then names its former username.)
  select 'mention', m.element_type, m.element_id, format('%s mentions %s, which its text cannot name', m.element_id, m.user_id),
    m.repair
  from (
    select 'post' as element_type, m.post_id as element_id, m.user_id, p.author_id, p.body,
      coalesce(p.edited_at, p.created_at) as written_at, p.created_at,
      format('delete from public.post_mentions where post_id = %L and user_id = %L;', m.post_id, m.user_id) as repair
    from public.post_mentions m join public.posts p on p.id = m.post_id
    union all
    select 'comment', m.comment_id, m.user_id, c.author_id, c.body, c.created_at, c.created_at,
      format('delete from public.comment_mentions where comment_id = %L and user_id = %L;', m.comment_id, m.user_id)
    from public.comment_mentions m join public.comments c on c.id = m.comment_id
  ) m
  join public.profiles u on u.id = m.user_id
  where strpos(m.body, '@') = 0 or u.created_at > m.written_at
    or exists (select 1 from public.blocks b
               where (b.blocker_id, b.blocked_id) in ((m.author_id, m.user_id), (m.user_id, m.author_id)) and b.created_at < m.created_at)
  union all
  select 'edited_at', 'post', p.id, format('edited at %s, made at %s', p.edited_at, p.created_at),
    format('update public.posts set edited_at = null where id = %L;', p.id)
  from public.posts p
  where p.edited_at < p.created_at or p.edited_at > now()
  union all
  -- Every exemption from the write limits is recorded: the latest trust or distrust of the account says trust.
  select 'unrecorded trust', 'user', t.user_id,
    format('%s is exempt from the write limits, with no trust recorded since its last distrust', coalesce('@' || p.username, t.user_id::text)),
    format('select moderation.trust_writer(%L, ''trusted without a recorded reason'', false);', coalesce(p.username, t.user_id::text))
  from private.trusted_writers t
  left join public.profiles p on p.id = t.user_id
  where (select h.action from private.write_limit_history h
         where h.user_id = t.user_id and h.action in ('trust', 'distrust')
         order by h.created_at desc limit 1) is distinct from 'trust'
  union all
  -- A product trigger left off (switched off under session_replication_role = replica, which no guard sees).
  select 'trigger off', 'table', null::uuid,
    format('%s on %s is %s', t.tgname, t.tgrelid::regclass, case t.tgenabled when 'D' then 'disabled' else 'on for replicas only' end),
    format('alter table %s enable trigger %I;', t.tgrelid::regclass, t.tgname)
  from pg_catalog.pg_trigger t join pg_catalog.pg_proc f on f.oid = t.tgfoid
  where not t.tgisinternal and t.tgenabled not in ('O', 'A') and f.pronamespace = 'private'::regnamespace
  union all
  select 'confirmation', 'user', p.id, format('@%s: profile %s, Auth %s', p.username, p.confirmed_at, u.email_confirmed_at),
    format('update public.profiles p set confirmed_at = u.email_confirmed_at from auth.users u where u.id = p.id and p.id = %L;', p.id)
  from public.profiles p join auth.users u on u.id = p.id
  where p.confirmed_at is distinct from u.email_confirmed_at
  union all
  -- A reserved name in use (reserved before the guard, or loaded): the account gets a name of its own.
  select 'reserved username', 'user', p.id, format('@%s is reserved', p.username),
    format('update public.profiles set username = %L where id = %L;',
      left(p.username, 25) || '_' || left(replace(p.id::text, '-', ''), 4), p.id)
  from public.profiles p join private.reserved_usernames r on r.name = p.username
  union all
  select 'account without profile', 'user', u.id, coalesce(u.email, ''),
    format('delete from auth.users where id = %L;', u.id)
  from auth.users u
  where not exists (select 1 from public.profiles p where p.id = u.id)
  union all
  -- Addresses compared in lower case by one sort of the accounts (a lookup per account would compare every pair).
  select 'e-mail', 'user', u.id,
    case when u.others = 0 then format('%s is not in lower case', u.email)
      else format('%s is also the address of account %s', u.email, u.other_id) end,
    case when u.others = 0 then format('update auth.users set email = lower(email) where id = %L;', u.id)
      else format('update auth.users set email = ''<another address>'' where id = %L;', u.id) end
  from (
    select x.id, x.email, count(*) over same - 1 as others,
      case when min(x.id::text) over same = x.id::text then max(x.id::text) over same else min(x.id::text) over same end as other_id
    from auth.users x
    where x.email is not null and not x.is_sso_user
    window same as (partition by lower(x.email))
  ) u
  where u.email <> lower(u.email) or u.others > 0
  union all
  select 'e-mail identity', 'user', u.id, format('account %s, e-mail identity %s', u.email, i.identity_data ->> 'email'),
    format('update auth.identities set identity_data = identity_data || jsonb_build_object(''email'', %L) where id = %L;',
      u.email, i.id)
  from auth.users u join auth.identities i on i.user_id = u.id and i.provider = 'email'
  where u.email is not null and (i.identity_data ->> 'email') is distinct from u.email
$$;
revoke all on function moderation.integrity_report() from public, anon, authenticated, service_role;
comment on function moderation.integrity_report() is
  'Every row that breaks an invariant (counters, ban state, relations across a block, feed sources, the reports'' summary, notifications, mentions, edited_at, trust, switched-off triggers, confirmation, usernames, e-mail addresses and identities), with its repair; empty when all is well.';
