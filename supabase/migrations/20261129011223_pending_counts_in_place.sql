-- Issue 55: a pending counter change is added in place to a row of its counter no writer holds, and a fold sets the
-- rows it takes back to 0 instead of deleting them (HOT updates within a page kept mostly empty): a hot counter's
-- readers no longer walk the dead index entries of a row inserted and deleted per change.

alter table private.pending_counts drop constraint pending_counts_delta_check;
alter table private.pending_counts set (fillfactor = 10);
comment on column private.pending_counts.id is 'In the order the rows were made.';
comment on column private.pending_counts.delta is 'The change to add (0 once folded: the row waits for the next busy writer).';

create or replace view private.pending_totals with (security_invoker = true) as
select d.counter, d.target_id, sum(d.delta)::integer as delta
from private.pending_counts d
where d.delta <> 0
group by d.counter, d.target_id;

CREATE OR REPLACE FUNCTION private.add_report_to_summary (
  p_type   public.report_target,
  p_target uuid,
  p_delta  integer,
  p_at     timestamp with time zone DEFAULT NULL::timestamp WITH time zone
)
  RETURNS void
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
declare
  v_pending text := p_type::text || '_reports';
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
$function$;

CREATE OR REPLACE FUNCTION private.add_to_counter (
  p_counter text,
  p_target  uuid,
  p_delta   integer
)
  RETURNS void
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
declare
  v_total integer;
begin
  if p_target is null then
    return;
  end if;
  if p_counter in ('post_likes', 'post_comments') then
    perform from public.posts p where p.id = p_target for no key update skip locked;
  elsif p_counter = 'comment_likes' then
    perform from public.comments c where c.id = p_target for no key update skip locked;
  else
    perform from public.profiles p where p.id = p_target for no key update skip locked;
  end if;
  if not found then
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
$function$;

CREATE OR REPLACE FUNCTION private.fold_pending_counts()
  RETURNS integer
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
declare
  v_pending record;
  v_folded integer := 0;
begin
  -- The counters refuse any other writer (private.refuse_counter_edit).
  perform set_config('private.recounting', 'on', true);
  for v_pending in select distinct d.counter, d.target_id from private.pending_counts d where d.delta <> 0 loop
    if v_pending.counter like '%\_reports' then
      perform private.add_report_to_summary(split_part(v_pending.counter, '_', 1)::public.report_target, v_pending.target_id, 0);
    else
      perform private.add_to_counter(v_pending.counter, v_pending.target_id, 0);
    end if;
    v_folded := v_folded + 1;
  end loop;
  delete from private.pending_counts d
  where d.id in (select f.id from private.pending_counts f where f.delta = 0 for update skip locked);
  perform set_config('private.recounting', 'off', true);
  return v_folded;
end;
$function$;

CREATE OR REPLACE FUNCTION private.leave_pending (
  p_counter text,
  p_target  uuid,
  p_delta   integer
)
  RETURNS void
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
begin
  update private.pending_counts d set delta = d.delta + p_delta
  where d.id = (
    select f.id from private.pending_counts f where f.counter = p_counter and f.target_id = p_target
    limit 1 for no key update skip locked
  );
  if not found then
    insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
  end if;
end;
$function$;

CREATE OR REPLACE FUNCTION private.take_pending (
  p_counter text,
  p_target  uuid
)
  RETURNS integer
  LANGUAGE sql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
  with taken as (
    select d.id, d.delta from private.pending_counts d
    where d.counter = p_counter and d.target_id = p_target and d.delta <> 0
    for no key update skip locked
  ),
  zeroed as (
    update private.pending_counts d set delta = 0 from taken t where d.id = t.id returning t.delta
  )
  select coalesce(sum(z.delta), 0)::integer from zeroed z
$function$;


revoke execute on function private.leave_pending(text, uuid, integer) from public;
comment on function private.leave_pending(text, uuid, integer) is
  'Leaves a counter change pending, in place on a free row of its counter or on a new one.';
revoke execute on function private.take_pending(text, uuid) from public;
comment on function private.take_pending(text, uuid) is
  'Takes (sets to 0) the pending changes of a counter no writer holds, and answers their sum.';
