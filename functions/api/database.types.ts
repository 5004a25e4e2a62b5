
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  
  "public": {
          Tables: {
            "ban_history": {
                  Row: {
                    "action": Database["public"]['Enums']["ban_action"],"admin_id": string | null,"created_at": string,"database_role": string | null,"element_id": string,"element_type": Database["public"]['Enums']["ban_element"],"id": string,"reason": string
                  }
                  ComputedFields: never
                  Insert: {
                    "action": Database["public"]['Enums']["ban_action"],"admin_id"?: string | null,"created_at"?: string,"database_role"?: string | null,"element_id": string,"element_type": Database["public"]['Enums']["ban_element"],"id"?: string,"reason": string
                  }
                  Update: {
                    "action"?: Database["public"]['Enums']["ban_action"],"admin_id"?: string | null,"created_at"?: string,"database_role"?: string | null,"element_id"?: string,"element_type"?: Database["public"]['Enums']["ban_element"],"id"?: string,"reason"?: string
                  }
                  Relationships: [
                    
                  ]
                },"blocks": {
                  Row: {
                    "blocked_id": string,"blocker_id": string,"created_at": string
                  }
                  ComputedFields: never
                  Insert: {
                    "blocked_id": string,"blocker_id"?: string,"created_at"?: string
                  }
                  Update: {
                    "blocked_id"?: string,"blocker_id"?: string,"created_at"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "blocks_blocked_id_fkey"
      columns: ["blocked_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "blocks_blocker_id_fkey"
      columns: ["blocker_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"close_friends": {
                  Row: {
                    "created_at": string,"friend_id": string,"owner_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "created_at"?: string,"friend_id": string,"owner_id"?: string
                  }
                  Update: {
                    "created_at"?: string,"friend_id"?: string,"owner_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "close_friends_friend_id_fkey"
      columns: ["friend_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "close_friends_owner_id_fkey"
      columns: ["owner_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"comment_likes": {
                  Row: {
                    "comment_id": string,"created_at": string,"user_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "comment_id": string,"created_at"?: string,"user_id"?: string
                  }
                  Update: {
                    "comment_id"?: string,"created_at"?: string,"user_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "comment_likes_comment_id_fkey"
      columns: ["comment_id"]
isOneToOne: false
      referencedRelation: "comments"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "comment_likes_user_id_fkey"
      columns: ["user_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"comment_mentions": {
                  Row: {
                    "comment_id": string,"user_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "comment_id": string,"user_id": string
                  }
                  Update: {
                    "comment_id"?: string,"user_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "comment_mentions_comment_id_fkey"
      columns: ["comment_id"]
isOneToOne: false
      referencedRelation: "comments"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "comment_mentions_user_id_fkey"
      columns: ["user_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"comments": {
                  Row: {
                    "author_id": string,"body": string,"created_at": string,"id": string,"likes_count": number,"parent_id": string | null,"post_id": string,"replies_count": number
                  }
                  ComputedFields: never
                  Insert: {
                    "author_id"?: string,"body": string,"created_at"?: string,"id"?: string,"likes_count"?: number,"parent_id"?: string | null,"post_id": string,"replies_count"?: number
                  }
                  Update: {
                    "author_id"?: string,"body"?: string,"created_at"?: string,"id"?: string,"likes_count"?: number,"parent_id"?: string | null,"post_id"?: string,"replies_count"?: number
                  }
                  Relationships: [
                    {
      foreignKeyName: "comments_author_id_fkey"
      columns: ["author_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "comments_parent_id_post_id_fkey"
      columns: ["parent_id","post_id"]
isOneToOne: false
      referencedRelation: "comments"
      referencedColumns: ["id","post_id"]
    },{
      foreignKeyName: "comments_post_id_fkey"
      columns: ["post_id"]
isOneToOne: false
      referencedRelation: "posts"
      referencedColumns: ["id"]
    }
                  ]
                },"follows": {
                  Row: {
                    "followee_id": string,"follower_id": string,"since": string,"status": Database["public"]['Enums']["follow_status"]
                  }
                  ComputedFields: never
                  Insert: {
                    "followee_id": string,"follower_id"?: string,"since"?: string,"status"?: Database["public"]['Enums']["follow_status"]
                  }
                  Update: {
                    "followee_id"?: string,"follower_id"?: string,"since"?: string,"status"?: Database["public"]['Enums']["follow_status"]
                  }
                  Relationships: [
                    {
      foreignKeyName: "follows_followee_id_fkey"
      columns: ["followee_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "follows_follower_id_fkey"
      columns: ["follower_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"mutes": {
                  Row: {
                    "created_at": string,"expires_at": string | null,"muted_id": string,"muter_id": string,"notifications_only": boolean
                  }
                  ComputedFields: never
                  Insert: {
                    "created_at"?: string,"expires_at"?: string | null,"muted_id": string,"muter_id"?: string,"notifications_only"?: boolean
                  }
                  Update: {
                    "created_at"?: string,"expires_at"?: string | null,"muted_id"?: string,"muter_id"?: string,"notifications_only"?: boolean
                  }
                  Relationships: [
                    {
      foreignKeyName: "mutes_muted_id_fkey"
      columns: ["muted_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "mutes_muter_id_fkey"
      columns: ["muter_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"notifications": {
                  Row: {
                    "actor_id": string,"comment_id": string | null,"created_at": string,"id": string,"kind": Database["public"]['Enums']["notification_kind"],"post_id": string | null,"read_at": string | null,"recipient_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "actor_id": string,"comment_id"?: string | null,"created_at"?: string,"id"?: string,"kind": Database["public"]['Enums']["notification_kind"],"post_id"?: string | null,"read_at"?: string | null,"recipient_id": string
                  }
                  Update: {
                    "actor_id"?: string,"comment_id"?: string | null,"created_at"?: string,"id"?: string,"kind"?: Database["public"]['Enums']["notification_kind"],"post_id"?: string | null,"read_at"?: string | null,"recipient_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "notifications_actor_id_fkey"
      columns: ["actor_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "notifications_comment_id_fkey"
      columns: ["comment_id"]
isOneToOne: false
      referencedRelation: "comments"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "notifications_post_id_fkey"
      columns: ["post_id"]
isOneToOne: false
      referencedRelation: "posts"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "notifications_recipient_id_fkey"
      columns: ["recipient_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"post_likes": {
                  Row: {
                    "created_at": string,"post_id": string,"user_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "created_at"?: string,"post_id": string,"user_id"?: string
                  }
                  Update: {
                    "created_at"?: string,"post_id"?: string,"user_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "post_likes_post_id_fkey"
      columns: ["post_id"]
isOneToOne: false
      referencedRelation: "posts"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "post_likes_user_id_fkey"
      columns: ["user_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"post_mentions": {
                  Row: {
                    "post_id": string,"user_id": string
                  }
                  ComputedFields: never
                  Insert: {
                    "post_id": string,"user_id": string
                  }
                  Update: {
                    "post_id"?: string,"user_id"?: string
                  }
                  Relationships: [
                    {
      foreignKeyName: "post_mentions_post_id_fkey"
      columns: ["post_id"]
isOneToOne: false
      referencedRelation: "posts"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "post_mentions_user_id_fkey"
      columns: ["user_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"posts": {
                  Row: {
                    "author_id": string,"banned_at": string | null,"body": string,"body_search": unknown,"comments_count": number,"created_at": string,"day": string,"edited_at": string | null,"emotion": number | null,"id": string,"likes_count": number,"media": (string)[],"privacy": Database["public"]['Enums']["post_privacy"]
                  }
                  ComputedFields: never
                  Insert: {
                    "author_id"?: string,"banned_at"?: string | null,"body": string,"body_search"?: never,"comments_count"?: number,"created_at"?: string,"day"?: string,"edited_at"?: string | null,"emotion"?: number | null,"id"?: string,"likes_count"?: number,"media"?: (string)[],"privacy"?: Database["public"]['Enums']["post_privacy"]
                  }
                  Update: {
                    "author_id"?: string,"banned_at"?: string | null,"body"?: string,"body_search"?: never,"comments_count"?: number,"created_at"?: string,"day"?: string,"edited_at"?: string | null,"emotion"?: number | null,"id"?: string,"likes_count"?: number,"media"?: (string)[],"privacy"?: Database["public"]['Enums']["post_privacy"]
                  }
                  Relationships: [
                    {
      foreignKeyName: "posts_author_id_fkey"
      columns: ["author_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                },"profiles": {
                  Row: {
                    "avatar_url": string | null,"banned_at": string | null,"bio": string,"confirmed_at": string | null,"created_at": string,"display_name": string,"followers_count": number,"following_count": number,"id": string,"is_private": boolean,"posts_count": number,"time_zone": string,"updated_at": string,"username": string
                  }
                  ComputedFields: never
                  Insert: {
                    "avatar_url"?: string | null,"banned_at"?: string | null,"bio"?: string,"confirmed_at"?: string | null,"created_at"?: string,"display_name"?: string,"followers_count"?: number,"following_count"?: number,"id": string,"is_private"?: boolean,"posts_count"?: number,"time_zone"?: string,"updated_at"?: string,"username": string
                  }
                  Update: {
                    "avatar_url"?: string | null,"banned_at"?: string | null,"bio"?: string,"confirmed_at"?: string | null,"created_at"?: string,"display_name"?: string,"followers_count"?: number,"following_count"?: number,"id"?: string,"is_private"?: boolean,"posts_count"?: number,"time_zone"?: string,"updated_at"?: string,"username"?: string
                  }
                  Relationships: [
                    
                  ]
                },"reports": {
                  Row: {
                    "created_at": string,"id": string,"reason": string,"reporter_id": string,"target_comment_id": string | null,"target_post_id": string | null,"target_type": Database["public"]['Enums']["report_target"],"target_user_id": string | null
                  }
                  ComputedFields: never
                  Insert: {
                    "created_at"?: string,"id"?: string,"reason": string,"reporter_id"?: string,"target_comment_id"?: string | null,"target_post_id"?: string | null,"target_type": Database["public"]['Enums']["report_target"],"target_user_id"?: string | null
                  }
                  Update: {
                    "created_at"?: string,"id"?: string,"reason"?: string,"reporter_id"?: string,"target_comment_id"?: string | null,"target_post_id"?: string | null,"target_type"?: Database["public"]['Enums']["report_target"],"target_user_id"?: string | null
                  }
                  Relationships: [
                    {
      foreignKeyName: "reports_reporter_id_fkey"
      columns: ["reporter_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "reports_target_comment_id_fkey"
      columns: ["target_comment_id"]
isOneToOne: false
      referencedRelation: "comments"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "reports_target_post_id_fkey"
      columns: ["target_post_id"]
isOneToOne: false
      referencedRelation: "posts"
      referencedColumns: ["id"]
    },{
      foreignKeyName: "reports_target_user_id_fkey"
      columns: ["target_user_id"]
isOneToOne: false
      referencedRelation: "profiles"
      referencedColumns: ["id"]
    }
                  ]
                }
          }
          Views: {
            [_ in never]: never
          }
          Functions: {
            "admin_ban_history":
{ Args: { "p_cursor"?: string,"p_element_id": string,"p_limit"?: number }; Returns: Json
                           },
"admin_ban_history_by_admin":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_username": string }; Returns: Json
                           },
"admin_ban_post":
{ Args: { "p_ban"?: boolean,"p_post_id": string,"p_reason"?: string }; Returns: Json
                           },
"admin_ban_user":
{ Args: { "p_ban"?: boolean,"p_reason"?: string,"p_username": string }; Returns: Json
                           },
"admin_bans":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_type"?: Database["public"]['Enums']["ban_element"] }; Returns: Json
                           },
"admin_delete_banned_post":
{ Args: { "p_post_id": string }; Returns: Json
                           },
"admin_delete_banned_user":
{ Args: { "p_username": string }; Returns: Json
                           },
"admin_dismiss_report":
{ Args: { "p_report_id": string }; Returns: Json
                           },
"admin_reports":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_type"?: Database["public"]['Enums']["report_target"] }; Returns: Json
                           },
"block":
{ Args: { "p_block"?: boolean,"p_username": string }; Returns: Json
                           },
"blocks":
{ Args: { "p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"calendar":
{ Args: { "p_from"?: string,"p_to"?: string,"p_username"?: string }; Returns: Json
                           },
"cancel_factor_recovery":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"check_registration":
{ Args: { "p_email": string,"p_time_zone"?: string,"p_username": string }; Returns: Json
                           },
"close_friends":
{ Args: { "p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"comment_likes":
{ Args: { "p_comment_id": string,"p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"comment_post":
{ Args: { "p_body": string,"p_post_id": string }; Returns: Json
                           },
"comment_replies":
{ Args: { "p_comment_id": string,"p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"complete_factor_recovery":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"create_post":
{ Args: { "p_body": string,"p_emotion"?: number,"p_media"?: (string)[],"p_privacy"?: Database["public"]['Enums']["post_privacy"] }; Returns: Json
                           },
"delete_comment":
{ Args: { "p_comment_id": string }; Returns: Json
                           },
"delete_post":
{ Args: { "p_post_id": string }; Returns: Json
                           },
"edit_post":
{ Args: { "p_changes": Json,"p_post_id": string }; Returns: Json
                           },
"end_other_sessions":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"end_session":
{ Args: { "p_session_id": string }; Returns: Json
                           },
"factor_recovery":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"feed":
{ Args: { "p_cursor"?: string,"p_day"?: string,"p_limit"?: number,"p_newer_than"?: string }; Returns: Json
                           },
"follow":
{ Args: { "p_follow"?: boolean,"p_username": string }; Returns: Json
                           },
"follow_requests":
{ Args: { "p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"followers":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_username": string }; Returns: Json
                           },
"following":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_username": string }; Returns: Json
                           },
"get_comment":
{ Args: { "p_comment_id": string }; Returns: Json
                           },
"get_post":
{ Args: { "p_post_id": string }; Returns: Json
                           },
"get_profile":
{ Args: { "p_username": string }; Returns: Json
                           },
"like_comment":
{ Args: { "p_comment_id": string,"p_like"?: boolean }; Returns: Json
                           },
"like_post":
{ Args: { "p_like"?: boolean,"p_post_id": string }; Returns: Json
                           },
"me":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"mute":
{ Args: { "p_duration"?: number,"p_mute"?: boolean,"p_notifications_only"?: boolean,"p_username": string }; Returns: Json
                           },
"mutes":
{ Args: { "p_cursor"?: string,"p_limit"?: number }; Returns: Json
                           },
"my_sessions":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"notifications":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_newer_than"?: string,"p_unread"?: boolean }; Returns: Json
                           },
"post_comments":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_newer_than"?: string,"p_post_id": string }; Returns: Json
                           },
"post_likes":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_post_id": string }; Returns: Json
                           },
"posts_by_day":
{ Args: { "p_cursor"?: string,"p_day": string,"p_limit"?: number,"p_username"?: string }; Returns: Json
                           },
"prove_factor_owner":
{ Args: { "p_code"?: string,"p_factor_id": string,"p_password"?: string }; Returns: Json
                           },
"read_notifications":
{ Args: { "p_until"?: string }; Returns: Json
                           },
"remove_follower":
{ Args: { "p_username": string }; Returns: Json
                           },
"reply_comment":
{ Args: { "p_body": string,"p_comment_id": string }; Returns: Json
                           },
"report_comment":
{ Args: { "p_comment_id": string,"p_reason": string }; Returns: Json
                           },
"report_post":
{ Args: { "p_post_id": string,"p_reason": string }; Returns: Json
                           },
"report_user":
{ Args: { "p_reason": string,"p_username": string }; Returns: Json
                           },
"reset_profile_picture":
{ Args: Record<PropertyKey, never>; Returns: Json
                           },
"respond_follow_request":
{ Args: { "p_accept": boolean,"p_username": string }; Returns: Json
                           },
"search":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_q": string,"p_type": string }; Returns: Json
                           },
"set_close_friend":
{ Args: { "p_close"?: boolean,"p_username": string }; Returns: Json
                           },
"update_profile":
{ Args: { "p_changes": Json }; Returns: Json
                           },
"user_posts":
{ Args: { "p_cursor"?: string,"p_limit"?: number,"p_newer_than"?: string,"p_username": string }; Returns: Json
                           }
          }
          Enums: {
            "ban_action": "ban"|"unban","ban_element": "user"|"post","follow_status": "pending"|"accepted","notification_kind": "follow"|"follow_request"|"follow_accepted"|"post_like"|"comment_like"|"comment"|"reply"|"mention","post_privacy": "public"|"close_friends"|"private","report_target": "user"|"post"|"comment"
          }
          CompositeTypes: {
            [_ in never]: never
          }
        }
}

type DatabaseWithoutInternals = Omit<Database, '__InternalSupabase'>

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never = never
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
  ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
      Row: infer R
    }
    ? R
    : never
  : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
  ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
      Insert: infer I
    }
    ? I
    : never
  : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
  ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
      Update: infer U
    }
    ? U
    : never
  : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never = never
> = DefaultSchemaEnumNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
  ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
  : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never = never
> = PublicCompositeTypeNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
  ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
  : never

export const Constants = {
  "public": {
          Enums: {
            "ban_action": ["ban", "unban"],"ban_element": ["user", "post"],"follow_status": ["pending", "accepted"],"notification_kind": ["follow", "follow_request", "follow_accepted", "post_like", "comment_like", "comment", "reply", "mention"],"post_privacy": ["public", "close_friends", "private"],"report_target": ["user", "post", "comment"]
          }
        }
} as const
