-- API: the home feed, the posts of the accounts the caller follows (but mutes not) and the caller's own, newest first.
-- Which of them the caller may see is the posts policy's answer, as everywhere.
--
-- The plan. The authors are known before the query (the caller's follows, computed once), and
-- `author_id = any (<array>)` is leakproof, so it is checked before the policy:
--   * following a few accounts (up to 100): the planner sees the array (plan_cache_mode = force_custom_plan:
--     a generic plan, built for an unknown array, would fix one choice for the session) and picks between
--     posts_author_idx (posts_author_day_idx for one day), fetching those authors' posts below the cursor and
--     sorting them, and walking posts_created_idx;
--   * following more: posts_created_idx is walked newest first, each entry tested against the array, and the
--     walk stops at the page's end. The planner cannot be left to choose here: the policy's per-row cost
--     makes every row of the walk look expensive, so from a page of ~100 it would fetch and check every post
--     of the thousand authors before sorting (45 ms instead of 18 ms at 100k accounts and 1M posts). Written
--     `(… = any (…)) is true`, the test is the same but no index can serve it, which leaves the walk; the
--     CASE is decided when the query is planned, since v_walk is a constant of the custom plan.
-- With a day, the created_at window around it (the day in any time zone, UTC-12 to UTC+14) lets the walk
-- start at that day instead of today.
create function public.feed(p_day date default null, p_cursor text default null, p_limit integer default null,
  p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  v_me uuid := private.require_uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_newer record := private.decode_newer_than(p_newer_than);
  -- Muted accounts' posts leave the feed (28_mutes.sql), whoever else sees them.
  v_authors uuid[] := array(select private.accounts_i_follow() except select private.accounts_i_mute()) || v_me;
  v_walk boolean := cardinality(v_authors) > 100;
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
         order by x.created_at desc, x.id desc), '[]'::jsonb)
  into v_rows
  from (
    select i.created_at, i.id, i.item from private.post_items i
    where case when v_walk then (i.author_id = any (v_authors)) is true else i.author_id = any (v_authors) end
      and (i.created_at, i.id) < (v_after.at, v_after.id) and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      and (p_day is null
        or i.day = p_day
           and i.created_at >= p_day::timestamp at time zone 'UTC' - interval '14 hours'
           and i.created_at < (p_day + 1)::timestamp at time zone 'UTC' + interval '12 hours')
    order by i.created_at desc, i.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.feed(date, text, integer, text) from public;
grant execute on function public.feed(date, text, integer, text) to authenticated, service_role;
comment on function public.feed(date, text, integer, text) is
  'The caller''s home feed: posts they may see by the accounts they follow (but mute not) and their own, newest first (of one day when p_day is given; newer than p_newer_than when given).';
