-- Media in Supabase Storage. The buckets are declared in config.toml (`avatars`, public; `media`, private),
-- each user writes only in their own folder `<user id>/…`, and a media object is readable by whoever may see
-- a post that references it: the visibility rule of posts, in its one-row form (private.may_see_post).

-- Whether the caller may see a post whose media include this object path. Security definer: the GIN index
-- finds the posts past RLS (a containment test is not leakproof, so under RLS it could only filter rows the
-- policy has already checked, one by one), and private.may_see_post keeps to what the caller may see.
create function private.may_read_media(p_name text)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_me constant uuid := private.uid();
begin
  return exists (select 1 from public.posts p where p.media @> array[p_name] and private.may_see_post(p, v_me));
end;
$$;
revoke execute on function private.may_read_media(text) from public;
grant execute on function private.may_read_media(text) to anon, authenticated, service_role;
comment on function private.may_read_media(text) is
  'Whether the caller may see a post whose media include this object path of the media bucket.';

-- The policies on storage.objects, where the storage schema exists (a hosted project, or a local stack that
-- runs Supabase Storage). This project's local stack cannot run Storage, so here this does nothing.
do $$
begin
  if to_regclass('storage.objects') is null then
    raise notice 'no storage.objects here: the storage policies are not created';
    return;
  end if;
  -- Avatars need no read policy: a public bucket serves its files by URL, and a policy would let anyone
  -- list the bucket, that is every account's id.
  create policy "media are read by who may see a post using them" on storage.objects
  for select to anon, authenticated
  using (bucket_id = 'media' and (private.in_own_folder((select private.uid()), name) or private.may_read_media(name)));
  create policy "users upload into their own folder" on storage.objects
  for insert to authenticated
  with check (bucket_id in ('avatars', 'media') and private.in_own_folder((select private.uid()), name));
  create policy "users replace their own files" on storage.objects
  for update to authenticated
  using (bucket_id in ('avatars', 'media') and private.in_own_folder((select private.uid()), name))
  with check (bucket_id in ('avatars', 'media') and private.in_own_folder((select private.uid()), name));
  create policy "users delete their own files" on storage.objects
  for delete to authenticated
  using (bucket_id in ('avatars', 'media') and private.in_own_folder((select private.uid()), name));
end;
$$;
