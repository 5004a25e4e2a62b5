-- A fold (add_to_counter with 0) of a counter whose row is busy this instant leaves its pending changes for the
-- next, instead of failing on the pending row's check (delta <> 0), which failed the whole recount.
create or replace function private.add_to_counter(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
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
      insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
    end if;
    return;
  end if;
  with folded as (
    delete from private.pending_counts d where d.counter = p_counter and d.target_id = p_target returning d.delta
  )
  select p_delta + coalesce(sum(f.delta), 0) into v_total from folded f;
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
