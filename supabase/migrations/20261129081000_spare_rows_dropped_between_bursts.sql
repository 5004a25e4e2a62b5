-- Issue 55: a fold drops its counter's rows left at 0 beyond 64 only when it found nothing to take, between bursts.
-- Dropping them at every fold made a burst of 16 writers insert and delete about 0.7 rows per write, whose index
-- entries (7,899 read per write) every reader of the hot counter walked.
-- Takes the pending changes of a counter that no writer holds this instant: sets them to 0 (their rows stay for the
-- next busy writer) and answers their sum. Those held are a writer's not committed yet: the next fold takes them.
-- A burst leaves as many rows as changes were pending at its peak, and every reader and fold of the counter walks
-- them all: past 64 (more than a burst of 64 writers keeps in use), the rows left at 0 that no writer holds go, by
-- a fold that found nothing to take (the burst is over). Not during a burst: the next writers would insert rows
-- again, and the index entries of rows inserted and deleted pile up on the counter's one key faster than anything
-- removes them (supabase/bench/reports/WRITES.md, "The small stack's gap, found").
create or replace function private.take_pending(p_counter text, p_target uuid)
returns integer
language sql
volatile
security definer
set search_path = ''
as $$
  with taken as (
    select d.id, d.delta from private.pending_counts d
    where d.counter = p_counter and d.target_id = p_target and d.delta <> 0
    for no key update skip locked
  ),
  zeroed as (
    update private.pending_counts d set delta = 0 from taken t where d.id = t.id returning t.delta
  ),
  spare as (
    delete from private.pending_counts d
    where not exists (select from taken) and d.id in (
      select f.id from private.pending_counts f
      where f.counter = p_counter and f.target_id = p_target and f.delta = 0
      order by f.id offset 64
      for update skip locked
    )
  )
  select coalesce(sum(z.delta), 0)::integer from zeroed z
$$;
