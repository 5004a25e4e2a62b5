-- Issue 55: the name of the pending counter of an element's reports ('<type>_reports') is built in one place,
-- private.reports_counter(), by the reporters, a removal's recount, the admin list, Studio's view and the
-- integrity report.

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

create or replace function private.add_report_to_summary(
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

create or replace function private.summarize_reports()
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
           'target_type', g.target_type, 'target_id', g.target_id,
           'reports_count', g.reports_count + coalesce((select t.delta from private.pending_totals t
             where t.counter = private.reports_counter(g.target_type) and t.target_id = g.target_id), 0),
           'latest_at', g.latest_at,
           'latest_reports', (
             select jsonb_agg(jsonb_build_object('id', r.id, 'reason', r.reason, 'created_at', r.created_at,
                      'reporter', private.card(r.reporter_id)) order by r.created_at desc)
             from (select * from public.reports r2
                   where coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id) = g.target_id
                   order by coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id), r2.created_at desc
                   limit 5) r)))
         order by g.latest_at desc, g.target_id desc), '[]'::jsonb)
  into v_rows
  from (
    select e.* from private.reported_elements e
    where (p_type is null or e.target_type = p_type)
      and (e.latest_at, e.target_id) < (v_after.at, v_after.id)
    order by e.latest_at desc, e.target_id desc
    limit v_limit + 1
  ) g;
  return private.to_page(v_rows, v_limit);
end;
$$;

create or replace view moderation.reported_elements as
select e.target_type, e.target_id, moderation.label(e.target_type::text, e.target_id) as label,
  e.reports_count + coalesce((select t.delta from private.pending_totals t
    where t.counter = private.reports_counter(e.target_type) and t.target_id = e.target_id), 0) as open_reports,
  e.latest_at,
  (select r.reason from public.reports r
   where coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) = e.target_id
   order by coalesce(r.target_user_id, r.target_post_id, r.target_comment_id), r.created_at desc limit 1) as latest_reason
from private.reported_elements e
order by e.latest_at desc, e.target_id desc;

create or replace function moderation.integrity_report()
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
