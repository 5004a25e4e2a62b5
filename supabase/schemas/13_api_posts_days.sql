-- API: posts, their likes and reports, the calendar and posts by day.

create function public.create_post(
  p_body text, p_media text[] default '{}', p_emotion integer default null,
  p_privacy public.post_privacy default 'public'
)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts;
begin
  perform private.require_uid();
  insert into public.posts (body, media, emotion, privacy)
  values (coalesce(p_body, ''), coalesce(p_media, '{}'), p_emotion, coalesce(p_privacy, 'public'))
  returning * into v_post;
  return private.post_item(v_post.id);
end;
$$;
revoke execute on function public.create_post(text, text[], integer, public.post_privacy) from public;
grant execute on function public.create_post(text, text[], integer, public.post_privacy) to authenticated, service_role;
comment on function public.create_post(text, text[], integer, public.post_privacy) is
  'Write a post as the caller; its day is today in the caller''s time zone.';

create function public.get_post(p_post_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_item jsonb := private.post_item(p_post_id);
begin
  if v_item is null then
    perform private.find_post(p_post_id); -- the 404
  end if;
  return v_item;
end;
$$;
revoke execute on function public.get_post(uuid) from public;
grant execute on function public.get_post(uuid) to anon, authenticated, service_role;
comment on function public.get_post(uuid) is 'A visible post with fresh counts and viewer flags; 404 otherwise.';

-- Visible but not theirs: 403 (the caller already knows the post exists).
create function private.require_post_author(p_post public.posts)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_post.author_id is distinct from private.uid() then
    perform private.fail(403, 'not_author', 'Only the author may change this post');
  end if;
end;
$$;
revoke execute on function private.require_post_author(public.posts) from public;
grant execute on function private.require_post_author(public.posts) to authenticated, service_role;
comment on function private.require_post_author(public.posts) is 'Raises 403 not_author unless the caller wrote the post.';

-- p_changes holds the fields to change: body, media, emotion (null clears it), privacy.
create function public.edit_post(p_post_id uuid, p_changes jsonb)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts;
begin
  perform private.require_uid();
  v_post := private.find_post(p_post_id);
  perform private.require_post_author(v_post);
  if jsonb_typeof(p_changes) is distinct from 'object'
     or exists (select 1 from jsonb_object_keys(p_changes) k where k not in ('body', 'media', 'emotion', 'privacy')) then
    perform private.fail(400, 'invalid_changes', 'Changes are an object of body, media, emotion and privacy');
  end if;
  update public.posts p set
    body = case when p_changes ? 'body' then p_changes ->> 'body' else p.body end,
    media = case when p_changes ? 'media'
      then coalesce((select array_agg(m) from jsonb_array_elements_text(p_changes -> 'media') m), '{}') else p.media end,
    emotion = case when p_changes ? 'emotion' then (p_changes ->> 'emotion')::smallint else p.emotion end,
    privacy = case when p_changes ? 'privacy' then (p_changes ->> 'privacy')::public.post_privacy else p.privacy end
  where p.id = p_post_id
  returning * into v_post;
  return private.post_item(v_post.id);
end;
$$;
revoke execute on function public.edit_post(uuid, jsonb) from public;
grant execute on function public.edit_post(uuid, jsonb) to authenticated, service_role;
comment on function public.edit_post(uuid, jsonb) is 'Edit the caller''s post (body, media, emotion, privacy); sets edited_at.';

create function public.delete_post(p_post_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts := private.find_post(p_post_id);
begin
  perform private.require_uid();
  perform private.require_post_author(v_post);
  delete from public.posts p where p.id = p_post_id;
  return jsonb_build_object('deleted', true, 'id', p_post_id);
end;
$$;
revoke execute on function public.delete_post(uuid) from public;
grant execute on function public.delete_post(uuid) to authenticated, service_role;
comment on function public.delete_post(uuid) is 'Delete the caller''s post with its comments and likes.';

-- A page of posts of one author, optionally of one day, newest first: one query per case, each served by
-- its index (posts_author_idx, posts_author_day_idx) in list order. The author's card is read once, not once a
-- post (private.post_bodies).
create function private.posts_page(p_author uuid, p_day date, p_cursor text, p_limit integer, p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_newer record := private.decode_newer_than(p_newer_than);
  v_author jsonb := jsonb_build_object('author', (select a.card from private.cards a where a.id = p_author));
  v_rows jsonb;
begin
  if p_day is null then
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item || v_author)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.post_bodies i
      where i.author_id = p_author and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  else
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item || v_author)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.post_bodies i
      where i.author_id = p_author and i.day = p_day and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  end if;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.posts_page(uuid, date, text, integer, text) from public;
grant execute on function private.posts_page(uuid, date, text, integer, text) to anon, authenticated, service_role;
comment on function private.posts_page(uuid, date, text, integer, text) is
  'A page of an author''s posts the caller may see (of one day when p_day is given; newer than p_newer_than when given), newest first.';

create function public.user_posts(p_username text, p_cursor text default null, p_limit integer default null,
  p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner public.profiles := private.find_user(p_username);
begin
  perform private.require_activity_visible(v_owner);
  return private.posts_page(v_owner.id, null, p_cursor, p_limit, p_newer_than);
end;
$$;
revoke execute on function public.user_posts(text, text, integer, text) from public;
grant execute on function public.user_posts(text, text, integer, text) to anon, authenticated, service_role;
comment on function public.user_posts(text, text, integer, text) is 'A user''s posts the caller may see, newest first (newer than p_newer_than when given).';

-- The caller's own day when no username is given.
create function public.posts_by_day(
  p_day date, p_username text default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid;
  v_owner public.profiles;
begin
  if p_day is null then
    perform private.fail(400, 'invalid_date', 'Give the day as an ISO date (YYYY-MM-DD)');
  end if;
  if p_username is null then
    v_me := private.require_uid();
    select * into v_owner from public.profiles p where p.id = v_me;
  else
    v_owner := private.find_user(p_username);
  end if;
  perform private.require_activity_visible(v_owner);
  return private.posts_page(v_owner.id, p_day, p_cursor, p_limit);
end;
$$;
revoke execute on function public.posts_by_day(date, text, text, integer) from public;
grant execute on function public.posts_by_day(date, text, text, integer) to anon, authenticated, service_role;
comment on function public.posts_by_day(date, text, text, integer) is
  'Posts the caller may see of one user (the caller when none is named) on one day.';

-- Per day of the range, the owner's posts the caller may see, with a level 0..4: 0 for none, then the
-- quartile of the count against the range's busiest day. Only days with posts are listed.
create function public.calendar(p_username text default null, p_from date default null, p_to date default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid;
  v_owner public.profiles;
  v_to date;
  v_from date;
  v_days jsonb;
begin
  if p_username is null then
    v_me := private.require_uid();
    select * into v_owner from public.profiles p where p.id = v_me;
  else
    v_owner := private.find_user(p_username);
  end if;
  perform private.require_activity_visible(v_owner);
  v_to := coalesce(p_to, (now() at time zone v_owner.time_zone)::date);
  v_from := coalesce(p_from, v_to - 364);
  if v_from > v_to then
    perform private.fail(400, 'invalid_range', 'from must not be after to');
  end if;
  if v_to - v_from > 3660 then
    perform private.fail(400, 'range_too_long', 'A calendar covers at most ten years');
  end if;
  select coalesce(jsonb_agg(jsonb_build_object(
           'day', d.day, 'count', d.count,
           'level', least(4, greatest(1, ceil(4.0 * d.count / d.busiest)::integer)))
         order by d.day), '[]'::jsonb)
  into v_days
  from (
    select p.day, count(*)::integer as count, max(count(*)) over ()::integer as busiest
    from public.posts p
    where p.author_id = v_owner.id and p.day between v_from and v_to
    group by p.day
  ) d;
  return jsonb_build_object(
    'user', private.card(v_owner.id), 'from', v_from, 'to', v_to, 'days', v_days);
end;
$$;
revoke execute on function public.calendar(text, date, date) from public;
grant execute on function public.calendar(text, date, date) to anon, authenticated, service_role;
comment on function public.calendar(text, date, date) is
  'Posts per day the caller may see (default: the last 365 days; at most ten years), with a level 0..4.';

-- likes ------------------------------------------------------------------------------------------------
create function public.like_post(p_post_id uuid, p_like boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_post public.posts := private.find_post(p_post_id);
  v_liked boolean := exists (select 1 from public.post_likes l where l.post_id = v_post.id and l.user_id = v_me);
begin
  if coalesce(p_like, not v_liked) then
    insert into public.post_likes (post_id) values (v_post.id) on conflict do nothing;
  else
    delete from public.post_likes l where l.post_id = v_post.id and l.user_id = v_me;
  end if;
  return private.post_item(p_post_id);
end;
$$;
revoke execute on function public.like_post(uuid, boolean) from public;
grant execute on function public.like_post(uuid, boolean) to authenticated, service_role;
comment on function public.like_post(uuid, boolean) is 'Like or unlike; p_like null toggles. Returns the post with fresh counts.';

create function private.likers_page(p_kind text, p_target uuid, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  if p_kind = 'post' then
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.user_id,
             'item', x.card || jsonb_build_object('liked_at', x.created_at))
           order by x.created_at desc, x.user_id desc), '[]'::jsonb)
    into v_rows
    from (
      select l.created_at, l.user_id, (select a.card from private.cards a where a.id = l.user_id) as card
      from public.post_likes l
      where l.post_id = p_target and (l.created_at, l.user_id) < (v_after.at, v_after.id)
      order by l.created_at desc, l.user_id desc
      limit v_limit + 1
    ) x;
  else
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.user_id,
             'item', x.card || jsonb_build_object('liked_at', x.created_at))
           order by x.created_at desc, x.user_id desc), '[]'::jsonb)
    into v_rows
    from (
      select l.created_at, l.user_id, (select a.card from private.cards a where a.id = l.user_id) as card
      from public.comment_likes l
      where l.comment_id = p_target and (l.created_at, l.user_id) < (v_after.at, v_after.id)
      order by l.created_at desc, l.user_id desc
      limit v_limit + 1
    ) x;
  end if;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.likers_page(text, uuid, text, integer) from public;
grant execute on function private.likers_page(text, uuid, text, integer) to anon, authenticated, service_role;
comment on function private.likers_page(text, uuid, text, integer) is
  'A page of who liked a post (p_kind post) or comment (p_kind comment), visible users only, newest first.';

create function public.post_likes(p_post_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.likers_page('post', (private.find_post(p_post_id)).id, p_cursor, p_limit)
$$;
revoke execute on function public.post_likes(uuid, text, integer) from public;
grant execute on function public.post_likes(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.post_likes(uuid, text, integer) is 'Who liked a visible post (visible users only), newest first.';

create function public.report_post(p_post_id uuid, p_reason text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.file_report('post', null, (private.find_post(p_post_id)).id, null, p_reason)
$$;
revoke execute on function public.report_post(uuid, text) from public;
grant execute on function public.report_post(uuid, text) to authenticated, service_role;
comment on function public.report_post(uuid, text) is 'Report a visible post; one open report per reporter per post.';
