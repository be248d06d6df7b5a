-- The public sees approved content only (docs/profile-review.md "Data from before"). Acceptance
-- now records the accepted content as approvedSnapshot and the speakers' profiles as
-- approvedProfile; this brings the rows accepted before up to that rule, and takes unapproved
-- content out of agendas published before.

-- 1. Accepted sessions without an approved snapshot. Nothing recorded their content at
--    acceptance. One whose row has not changed since its last decision (updated_at no later
--    than the decision's timeline entry, which the decision writes after the row) still holds
--    what was accepted: that becomes its snapshot. Any other may hold a speaker's unreviewed
--    edit: it keeps no snapshot, so it is on no public surface, and waits for the organizers as
--    pending_review.
UPDATE "submissions" s SET "approved_snapshot" = jsonb_build_object('title', s."title",
    'description', s."description", 'formatId', s."format_id", 'levelId', s."level_id",
    'language', s."language", 'answers', s."answers")
WHERE s."status" = 'accepted' AND s."approved_snapshot" = '{}'::jsonb AND btrim(s."title") <> ''
  AND s."updated_at" <= (SELECT max(t."at") FROM "timeline_entries" t
                         WHERE t."submission_id" = s."id" AND t."kind" = 'decided');
UPDATE "submissions" SET "content_review_status" = 'pending_review'
WHERE "status" = 'accepted' AND "approved_snapshot" = '{}'::jsonb;

-- 2. Speakers of an accepted session without an approved profile. A speaker's own change to a
--    public field records approvedProfile the first time (the values before it), so an empty
--    one means no such change since they were accepted: their profile is what was accepted.
UPDATE "contacts" c SET "approved_profile" = jsonb_build_object('firstName', c."first_name",
    'lastName', c."last_name", 'pronouns', c."pronouns", 'bio', c."bio", 'linkedinUrl', c."linkedin_url",
    'twitterUrl', c."twitter_url", 'facebookUrl', c."facebook_url", 'websiteUrl', c."website_url",
    'headshotUrl', c."headshot_url", 'headshotKey', c."headshot_key")
WHERE c."approved_profile" = '{}'::jsonb AND EXISTS (
  SELECT 1 FROM "submission_participants" p JOIN "submissions" s ON s."id" = p."submission_id"
  WHERE p."contact_id" = c."id" AND s."status" = 'accepted');

-- 3. Published agendas: each entry's title and description become the session's approved ones,
--    an entry whose session has none is dropped, and a speaker is named from their approved
--    profile, or dropped when it holds no name (no first name, an address, or their address's
--    local part with "-" or nothing as last name: graph/public_view.go placeholderName).
UPDATE "events" e SET "published_agenda" = COALESCE((
  SELECT jsonb_agg(x.entry || jsonb_build_object(
      'title', s."approved_snapshot"->>'title',
      'description', COALESCE(s."approved_snapshot"->>'description', ''),
      'speakers', COALESCE((
        SELECT jsonb_agg(jsonb_build_object('id', c."id", 'name', btrim(
                 btrim(c."approved_profile"->>'firstName') || ' ' ||
                 CASE WHEN btrim(c."approved_profile"->>'lastName') = '-' THEN ''
                      ELSE btrim(COALESCE(c."approved_profile"->>'lastName', '')) END)) ORDER BY sp.ord)
        FROM jsonb_array_elements(x.entry->'speakers') WITH ORDINALITY AS sp(speaker, ord)
        JOIN "contacts" c ON c."id" = sp.speaker->>'id'
        WHERE btrim(COALESCE(c."approved_profile"->>'firstName', '')) <> ''
          AND strpos(c."approved_profile"->>'firstName', '@') = 0
          AND strpos(COALESCE(c."approved_profile"->>'lastName', ''), '@') = 0
          AND NOT (lower(btrim(c."approved_profile"->>'firstName')) = lower(btrim(split_part(c."email", '@', 1)))
                   AND btrim(COALESCE(c."approved_profile"->>'lastName', '')) IN ('', '-'))), '[]'::jsonb))
    ORDER BY x.ord)
  FROM jsonb_array_elements(e."published_agenda") WITH ORDINALITY AS x(entry, ord)
  JOIN "submissions" s ON s."id" = x.entry->>'id'
  WHERE btrim(COALESCE(s."approved_snapshot"->>'title', '')) <> ''), '[]'::jsonb)
WHERE jsonb_typeof(e."published_agenda") = 'array' AND jsonb_array_length(e."published_agenda") > 0;
