-- Issue 55: rebuilding the reports' summary takes every summary row first, so that a report in flight (left on a
-- pending row it updated in place) is neither dropped uncounted nor counted twice.
-- Rebuilds the reports' summary (private.reported_elements) from the reports, as recount_counters does the
-- counters; returns how many summary rows were wrong, missing or left over (0 when all is well).
create or replace function private.resummarize_reports()
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
comment on function private.resummarize_reports() is
  'Rebuilds private.reported_elements from the reports; returns the number of summary rows corrected.';
