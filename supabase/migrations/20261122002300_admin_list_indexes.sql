-- Admin lists whose pages cost the same however many reports and bans there are: reported elements are
-- kept as one summary row each (count and latest report, by trigger), and banned users are indexed in ban
-- order like banned posts, so each page is a keyset read of an index.

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

grant select on private.reported_elements to authenticated;
create policy "admins read reported elements" on private.reported_elements
for select to authenticated
using ((select private.is_admin()));

-- The reports of one element, newest first: the summary's upkeep and the admin list's latest reasons.
create index reports_target_latest_idx
  on public.reports (coalesce(target_user_id, target_post_id, target_comment_id), created_at desc);

-- A new report adds one to its element's row (an upsert, atomic under concurrency). A removed report locks
-- the row first, then recounts in a new statement, which sees every report committed meanwhile: a report
-- filed concurrently is neither lost nor left out of the latest date.
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
    insert into private.reported_elements as e (target_type, target_id, reports_count, latest_at)
    values (v_row.target_type, v_target, 1, v_row.created_at)
    on conflict (target_type, target_id) do update
      set reports_count = e.reports_count + 1, latest_at = greatest(e.latest_at, excluded.latest_at);
    return null;
  end if;
  perform 1 from private.reported_elements e
  where e.target_type = v_row.target_type and e.target_id = v_target
  for update;
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

create trigger summarize_reports
after insert or delete on public.reports
for each row execute function private.summarize_reports();

insert into private.reported_elements (target_type, target_id, reports_count, latest_at)
select r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id), count(*), max(r.created_at)
from public.reports r
group by 1, 2;

create or replace function public.admin_reports(
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
           'target_type', g.target_type, 'target_id', g.target_id, 'reports_count', g.reports_count,
           'latest_at', g.latest_at,
           'latest_reports', (
             select jsonb_agg(jsonb_build_object('id', r.id, 'reason', r.reason, 'created_at', r.created_at,
                      'reporter', private.author_json(r.reporter_id)) order by r.created_at desc)
             from (select * from public.reports r2
                   where coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id) = g.target_id
                   order by coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id), r2.created_at desc
                   limit 5) r)))
         order by g.latest_at desc, g.target_id desc), '[]'::jsonb)
  into v_rows
  from (
    select e.* from private.reported_elements e
    where (p_type is null or e.target_type = p_type)
      -- No "cursor is null or …": a condition the index can serve in a generic plan too.
      and (e.latest_at, e.target_id)
        < (coalesce(v_after.at, 'infinity'), coalesce(v_after.id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    order by e.latest_at desc, e.target_id desc
    limit v_limit + 1
  ) g;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.admin_reports(public.report_target, text, integer) from public;
grant execute on function public.admin_reports(public.report_target, text, integer) to authenticated, service_role;

-- Banned posts have had theirs since the posts migration.
create index profiles_banned_idx on public.profiles (banned_at desc, id desc) where banned_at is not null;
