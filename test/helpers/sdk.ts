// supabase-js itself, as an app would use it: pointed at the gateway's origin with the anon key, so every
// call goes through /rest/v1 (PostgREST) and /auth/v1 (Supabase Auth) of the test stack.
import { createClient, type PostgrestError, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../client/database.ts';
import { type Account, banDirectly, createAccount } from './accounts.ts';
import { asRoot } from './db.ts';
import { stack } from './stack.ts';
import { defaultPassword } from './users.ts';

export type Sdk = SupabaseClient<Database>;

/** A client that has signed in with nobody: it acts as `anon`. */
export function anonSdk(): Sdk {
  return createClient<Database>(stack.apiUrl, stack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

/** A client signed in through Supabase Auth with the account's e-mail and password (tests' accounts share one). */
export async function signedInSdk(account: { email: string }, password = defaultPassword): Promise<Sdk> {
  const client = anonSdk();
  const { error } = await client.auth.signInWithPassword({ email: account.email, password });
  if (error) throw error;
  return client;
}

/** An account made through Supabase Auth with a supabase-js client signed in as it. */
export interface SdkUser extends Account {
  sdk: Sdk;
}

/** A fresh account (see createAccount) and a supabase-js client signed in as it. */
export async function sdkUser(label: string, options: { isPrivate?: boolean } = {}): Promise<SdkUser> {
  const account = await createAccount(label, options);
  return { ...account, sdk: await signedInSdk(account) };
}

/** An account signed in first, then banned: its client still holds the access token of the session the ban ended. */
export async function bannedSdkUser(label: string): Promise<SdkUser> {
  const user = await sdkUser(label);
  await banDirectly(user);
  return user;
}

/** What a refused call answered: the HTTP status, PostgREST's code (a SQLSTATE or PGRST…) and the hint. */
export function refusal(result: { status: number; error: PostgrestError | null }) {
  return { status: result.status, code: result.error?.code, hint: result.error?.hint ?? null };
}

// Arranging data as the superuser, so that a test's setup does not depend on the rules it tests.

export type Privacy = 'public' | 'close_friends' | 'private';

export async function rootPost(author: { id: string }, privacy: Privacy = 'public', body = 'a day'): Promise<string> {
  const [row] = await asRoot`
    insert into public.posts (author_id, body, privacy) values (${author.id}, ${body}, ${privacy}) returning id`;
  return row.id;
}

export async function rootComment(
  postId: string,
  author: { id: string },
  body = 'a comment',
  parentId: string | null = null,
): Promise<string> {
  const [row] = await asRoot`
    insert into public.comments (post_id, author_id, body, parent_id) values (${postId}, ${author.id}, ${body}, ${parentId})
    returning id`;
  return row.id;
}

/** An accepted follow, even of a private account. */
export async function rootFollow(follower: { id: string }, followee: { id: string }): Promise<void> {
  await asRoot`insert into public.follows (follower_id, followee_id) values (${follower.id}, ${followee.id})`;
  await asRoot`update public.follows set status = 'accepted'
    where follower_id = ${follower.id} and followee_id = ${followee.id} and status = 'pending'`;
}

export async function rootBlock(blocker: { id: string }, blocked: { id: string }): Promise<void> {
  await asRoot`insert into public.blocks (blocker_id, blocked_id) values (${blocker.id}, ${blocked.id})`;
}

export async function rootCloseFriend(owner: { id: string }, friend: { id: string }): Promise<void> {
  await asRoot`insert into public.close_friends (owner_id, friend_id) values (${owner.id}, ${friend.id})`;
}
