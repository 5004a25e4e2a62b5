-- Issue 55: a hot counter's row takes a new version about every 50 ms of a burst, not at almost every change. Each
-- version carried a multixact (the writers' foreign-key checks hold the row in key share), whose dead index entries
-- no scan marks dead, so after a long burst every look-up of a hot post walked every page its row had filled.
alter table private.pending_counts add column pending_since timestamptz not null default now();
comment on column private.pending_counts.pending_since is 'When the change on the row was left (of no meaning once folded).';

-- Leaves a change pending: written on a row of its counter left at 0 that no writer holds this instant, else on a
-- new row. Never added to a row still holding a change: a fold must be able to take every committed change (those
-- on rows a writer holds it would skip, and could then take the column below zero while one of them is pending).
create or replace function private.leave_pending(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update private.pending_counts d set delta = d.delta + p_delta, pending_since = now()
  where d.id = (
    select f.id from private.pending_counts f where f.counter = p_counter and f.target_id = p_target and f.delta = 0
    limit 1 for no key update skip locked
  );
  if not found then
    insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
  end if;
end;
$$;

-- Adds p_delta to a counter: onto its row when the row is free, with every change pending for it; else as a
-- pending change. A target that is gone counts nothing.
--
-- While a counter has changes pending since less than 50 ms (a burst), a change is left pending too, without
-- trying the row: the row takes a new version about every 50 ms of a burst instead of at almost every change.
-- Each version of a hot row carries a multixact (the writers' foreign-key checks hold it in key share while it is
-- updated), and a scan never marks such a dead version's index entry dead, so every look-up of the row walked every
-- page the row had filled and left, until the next vacuum (supabase/bench/reports/WRITES-1M.md, "A hot post
-- after a long burst"). A quiet counter has nothing pending: its change goes onto the row at once, as before.
create or replace function private.add_to_counter(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_total integer;
  v_free boolean := false;
begin
  if p_target is null then
    return;
  end if;
  if p_delta = 0 or coalesce((
    select min(d.pending_since) <= now() - interval '50 milliseconds'
    from private.pending_counts d
    where d.counter = p_counter and d.target_id = p_target and d.delta <> 0
  ), true) then
    if p_counter in ('post_likes', 'post_comments') then
      perform from public.posts p where p.id = p_target for no key update skip locked;
    elsif p_counter = 'comment_likes' then
      perform from public.comments c where c.id = p_target for no key update skip locked;
    else
      perform from public.profiles p where p.id = p_target for no key update skip locked;
    end if;
    v_free := found;
  end if;
  if not v_free then
    -- A fold (p_delta 0) of a row busy this instant leaves its pending changes for the next.
    if p_delta <> 0 and ((p_counter in ('post_likes', 'post_comments') and exists (select from public.posts p where p.id = p_target))
       or (p_counter = 'comment_likes' and exists (select from public.comments c where c.id = p_target))
       or (p_counter in ('followers', 'following') and exists (select from public.profiles p where p.id = p_target))) then
      perform private.leave_pending(p_counter, p_target, p_delta);
    end if;
    return;
  end if;
  v_total := p_delta + private.take_pending(p_counter, p_target);
  if v_total = 0 then
    return;
  end if;
  case p_counter
    when 'post_likes' then
      update public.posts p set likes_count = greatest(p.likes_count + v_total, 0) where p.id = p_target;
    when 'post_comments' then
      update public.posts p set comments_count = greatest(p.comments_count + v_total, 0) where p.id = p_target;
    when 'comment_likes' then
      update public.comments c set likes_count = greatest(c.likes_count + v_total, 0) where c.id = p_target;
    when 'followers' then
      update public.profiles p set followers_count = greatest(p.followers_count + v_total, 0) where p.id = p_target;
    else
      update public.profiles p set following_count = greatest(p.following_count + v_total, 0) where p.id = p_target;
  end case;
end;
$$;
