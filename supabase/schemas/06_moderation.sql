-- Reports by users, the summary of reported elements, the ban history admins write, and the e-mails of
-- deleted banned accounts.

create type public.report_target as enum ('user', 'post', 'comment');

comment on type public.report_target is 'What a report is about: a user, a post or a comment.';

create table public.reports (
  id uuid primary key default gen_random_uuid(),
  reporter_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  target_type public.report_target not null,
  target_user_id uuid references public.profiles (id) on delete cascade,
  target_post_id uuid references public.posts (id) on delete cascade,
  target_comment_id uuid references public.comments (id) on delete cascade,
  reason text not null check (char_length(reason) between 1 and 1000),
  created_at timestamptz not null default now(),
  -- Exactly the target its type names.
  check (
    (target_type = 'user') = (target_user_id is not null)
    and (target_type = 'post') = (target_post_id is not null)
    and (target_type = 'comment') = (target_comment_id is not null)
  ),
  check (target_user_id is distinct from reporter_id)
);
alter table public.reports enable row level security;
-- One open report per reporter per element; dismissing deletes the report, so another may follow.
create unique index reports_one_per_reporter_idx
  on public.reports (reporter_id, target_type, coalesce(target_user_id, target_post_id, target_comment_id));
create index reports_reporter_idx on public.reports (reporter_id, created_at desc);
create index reports_user_idx on public.reports (target_user_id) where target_user_id is not null;
create index reports_post_idx on public.reports (target_post_id) where target_post_id is not null;
create index reports_comment_idx on public.reports (target_comment_id) where target_comment_id is not null;
create index reports_created_idx on public.reports (target_type, created_at desc, id desc);
-- The reports of one element, newest first: the summary's upkeep and the admin list's latest reasons.
create index reports_target_latest_idx
  on public.reports (coalesce(target_user_id, target_post_id, target_comment_id), created_at desc);

comment on table public.reports is 'A user''s complaint about a user, post or comment. Seen by its reporter and admins.';
comment on column public.reports.id is 'The report''s id.';
comment on column public.reports.reporter_id is 'Who reported; the caller by default.';
comment on column public.reports.target_type is 'What is reported: user, post or comment; names which target column is set.';
comment on column public.reports.target_user_id is 'The reported user, when target_type is user.';
comment on column public.reports.target_post_id is 'The reported post, when target_type is post.';
comment on column public.reports.target_comment_id is 'The reported comment, when target_type is comment.';
comment on column public.reports.reason is 'Why, 1 to 1000 characters.';
comment on column public.reports.created_at is 'When the report was filed.';

-- Admin lists whose pages cost the same however many reports there are: each reported element is kept as one
-- summary row (count and latest report, by trigger), so each page is a keyset read of an index.
create table private.reported_elements (
  target_type public.report_target not null,
  target_id uuid not null,
  reports_count integer not null check (reports_count > 0),
  latest_at timestamptz not null,
  primary key (target_type, target_id)
);
alter table private.reported_elements enable row level security;
create index reported_elements_latest_idx on private.reported_elements (latest_at desc, target_id desc);
create index reported_elements_type_latest_idx on private.reported_elements (target_type, latest_at desc, target_id desc);

comment on table private.reported_elements is 'One row per reported user, post or comment: open reports and the latest. Kept by triggers.';

-- Reports left pending (below) are the counter '<type>_reports' of private.pending_counts, its name built here.
create function private.reports_counter(p_type public.report_target)
returns text
language sql
immutable
set search_path = ''
as $$
  select p_type::text || '_reports'
$$;
revoke execute on function private.reports_counter(public.report_target) from public;
grant execute on function private.reports_counter(public.report_target) to authenticated, service_role;
comment on function private.reports_counter(public.report_target) is
  'The counter of private.pending_counts holding the reports of an element of this type left pending.';

-- A new report adds one to its element's row. An element many accounts report at once (a viral post) would queue
-- its reporters on that row's lock, held to each one's commit; so, as a counter does (10_counters.sql), a reporter
-- takes the row only when it is free and otherwise leaves its report in private.pending_counts (counter
-- '<type>_reports'), folded in by the next reporter that finds the row free. The admin list and the Studio view add
-- them: the count is exact; `latest_at` is behind by the reports still pending (filed while the row was busy) until
-- that fold or private.fold_pending_counts().
create function private.add_report_to_summary(
  p_type public.report_target, p_target uuid, p_delta integer, p_at timestamptz default null
)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_pending text := private.reports_counter(p_type);
  v_total integer;
begin
  loop
    if p_delta > 0 then
      insert into private.reported_elements (target_type, target_id, reports_count, latest_at)
      values (p_type, p_target, p_delta, p_at)
      on conflict (target_type, target_id) do nothing;
      if found then
        return;
      end if;
    end if;
    perform from private.reported_elements e where e.target_type = p_type and e.target_id = p_target
    for no key update skip locked;
    if found then
      v_total := p_delta + private.take_pending(v_pending, p_target);
      if v_total <> 0 then
        update private.reported_elements e
        set reports_count = e.reports_count + v_total,
          latest_at = greatest(e.latest_at, (
            select max(r.created_at) from public.reports r
            where coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) = p_target))
        where e.target_type = p_type and e.target_id = p_target;
      end if;
      return;
    end if;
    -- A fold (p_delta 0) of a row busy this instant leaves its pending reports for the next.
    if p_delta = 0 then
      return;
    end if;
    -- Busy. A key share lock waits only for a removal's recount (which takes the row for update), and keeps the
    -- next removal from recounting before this report is in.
    perform from private.reported_elements e where e.target_type = p_type and e.target_id = p_target for key share;
    if found then
      perform private.leave_pending(v_pending, p_target, p_delta);
      return;
    end if;
    -- A removal took the element's last report away and its row with it: this report starts it again.
  end loop;
end;
$$;
revoke execute on function private.add_report_to_summary(public.report_target, uuid, integer, timestamptz) from public;
comment on function private.add_report_to_summary(public.report_target, uuid, integer, timestamptz) is
  'Adds reports (filed at p_at) to an element''s summary without waiting for its row: onto the row when free, else pending.';

-- A removed report locks the row first (waiting for the reporters in flight), then recounts in a new statement,
-- which sees every report committed meanwhile, and drops the pending reports in that same statement (one snapshot:
-- those it drops are counted): a report filed concurrently is neither lost nor left out of the latest date.
create function private.summarize_reports()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.reports := case when tg_op = 'DELETE' then old else new end;
  v_target uuid := coalesce(v_row.target_user_id, v_row.target_post_id, v_row.target_comment_id);
  v_count integer;
  v_latest timestamptz;
begin
  if tg_op = 'INSERT' then
    perform private.add_report_to_summary(v_row.target_type, v_target, 1, v_row.created_at);
    return null;
  end if;
  perform 1 from private.reported_elements e
  where e.target_type = v_row.target_type and e.target_id = v_target
  for update;
  with dropped as (
    delete from private.pending_counts d where d.counter = private.reports_counter(v_row.target_type) and d.target_id = v_target
  )
  select count(*), max(r.created_at) into v_count, v_latest
  from public.reports r
  where coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) = v_target;
  if v_count = 0 then
    delete from private.reported_elements e where e.target_type = v_row.target_type and e.target_id = v_target;
  else
    update private.reported_elements e set reports_count = v_count, latest_at = v_latest
    where e.target_type = v_row.target_type and e.target_id = v_target;
  end if;
  return null;
end;
$$;
revoke execute on function private.summarize_reports() from public;
comment on function private.summarize_reports() is 'Trigger: keeps private.reported_elements in step with public.reports.';

create trigger summarize_reports
after insert or delete on public.reports
for each row execute function private.summarize_reports();

create type public.ban_element as enum ('user', 'post');
create type public.ban_action as enum ('ban', 'unban');

comment on type public.ban_element is 'What a ban applies to: a user or a post.';
comment on type public.ban_action is 'A ban history entry''s action: ban or unban.';

-- Every ban and unban says why: the history is what other admins read.
create table public.ban_history (
  id uuid primary key default gen_random_uuid(),
  element_type public.ban_element not null,
  -- No foreign key: the history outlives the element.
  element_id uuid not null,
  action public.ban_action not null,
  reason text not null check (char_length(btrim(reason)) between 1 and 1000),
  admin_id uuid references auth.users (id) on delete set null,
  database_role text,
  created_at timestamptz not null default now()
);
alter table public.ban_history enable row level security;
create index ban_history_element_idx on public.ban_history (element_id, created_at desc, id desc);
create index ban_history_admin_idx on public.ban_history (admin_id, created_at desc, id desc);

comment on table public.ban_history is 'Every ban and unban of a user or post: who, when, why. Admins only.';
comment on column public.ban_history.id is 'The entry''s id.';
comment on column public.ban_history.element_type is 'user or post.';
comment on column public.ban_history.element_id is 'The user or post id; kept after the element is deleted.';
comment on column public.ban_history.action is 'ban or unban.';
comment on column public.ban_history.reason is 'Why the admin banned or unbanned, 1 to 1000 characters.';
comment on column public.ban_history.admin_id is
  'The admin who acted through the API; null when the action came from a database session, or once their account is deleted.';
comment on column public.ban_history.database_role is
  'The database role of a session without a user that acted (Supabase Studio, the SQL editor); null for the API.';
comment on column public.ban_history.created_at is 'When the admin acted.';

-- A history is a record: nobody rewrites or deletes an entry, in Studio either (the ban history here, the write
-- limit history in 24_write_limits.sql). Only the admin's id is cleared, by the foreign key, when the admin's
-- account is deleted. The table needs an admin_id column.
create function private.keep_record()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  -- The one change allowed: the foreign key clearing the admin once their account is gone.
  if tg_op = 'UPDATE' and new.admin_id is null
     and not exists (select 1 from auth.users u where u.id = old.admin_id)
     and to_jsonb(new) - 'admin_id' = to_jsonb(old) - 'admin_id' then
    return new;
  end if;
  if tg_table_name = 'ban_history' then
    perform private.fail(403, 'ban_history_is_append_only', 'The ban history is a record: its entries are never changed or deleted');
  end if;
  perform private.fail(403, 'history_is_append_only', format('The %s is a record: its entries are never changed or deleted',
    replace(tg_table_name, '_', ' ')));
  return null;
end;
$$;
revoke execute on function private.keep_record() from public;
comment on function private.keep_record() is
  'Trigger: refuses changing or deleting an entry of a history (but for its admin''s deletion).';

create trigger keep_ban_history
before update or delete on public.ban_history
for each row execute function private.keep_record();

create trigger keep_ban_history_whole
before truncate on public.ban_history
for each statement execute function private.keep_record();

-- E-mails of deleted banned accounts: they cannot register again, nor be taken by an e-mail change.
create table private.banned_emails (
  email text primary key check (email = lower(email)),
  banned_at timestamptz not null default now()
);
alter table private.banned_emails enable row level security;

comment on table private.banned_emails is 'E-mails of banned accounts that were deleted; sign-up with them is refused.';
