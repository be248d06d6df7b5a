package operation

// The session list is read in a fixed number of queries, whatever the number of sessions and
// whatever the page: the sessions of the page with their readiness counts; the counts, tracks and
// formats of the whole list; the page's tracks; the page's speakers. A page of 10 costs what it
// shows: the page is chosen in SQL on the list order with a keyset predicate and a LIMIT, and only
// its sessions are joined with their counts, tracks and speakers.
//
// The list order is start time (unscheduled last), then newest first, then id: a total order on
// stored values, so a cursor — the key of a session in that order — keeps its place when sessions
// are added or removed before it, and stays valid when its own session is deleted.
const (
	// sessionScopeSQL selects the accepted submissions of event $1 — or the one named $2 — in
	// state $3 ('', active, cancelled), after the key ($4, $5, $6) and before the key ($7, $8, $9)
	// when those are set. A key is (starts_at, created_at, id); $5 or $8 null means no cursor.
	sessionScopeSQL = `s.event_id = $1 AND s.status = 'accepted' AND ($2 = '' OR s.id = $2)
  AND ($3 = '' OR ($3 = 'active') = (s.cancelled_at IS NULL))`
	sessionAfterSQL = `($5::timestamptz IS NULL OR CASE WHEN $4::timestamptz IS NULL
    THEN s.starts_at IS NULL AND (s.created_at, s.id) < ($5::timestamptz, $6::text)
    ELSE s.starts_at > $4::timestamptz OR s.starts_at IS NULL
      OR (s.starts_at = $4::timestamptz AND (s.created_at, s.id) < ($5::timestamptz, $6::text)) END)`
	sessionBeforeSQL = `($8::timestamptz IS NULL OR CASE WHEN $7::timestamptz IS NULL
    THEN s.starts_at IS NOT NULL OR (s.created_at, s.id) > ($8::timestamptz, $9::text)
    ELSE s.starts_at < $7::timestamptz
      OR (s.starts_at = $7::timestamptz AND (s.created_at, s.id) > ($8::timestamptz, $9::text)) END)`
	sessionOrderSQL        = `s.starts_at ASC NULLS LAST, s.created_at DESC, s.id DESC`
	sessionReverseOrderSQL = `s.starts_at DESC NULLS FIRST, s.created_at ASC, s.id ASC`

	// sessionColumnsSQL is the board's row of a session s (format f, room r) with its readiness
	// counts (tasks t, deliverables d), as readSessions scans it.
	sessionColumnsSQL = `s.event_id, s.id, s.code, s.title, s.description, f.name, ` + manualSQL + `, s.starts_at, s.ends_at,
       s.room_id, r.name, s.content_review_status, s.approved_snapshot <> '{}'::jsonb, s.cancelled_at,
       s.cancelled_by, s.capacity, s.created_at, ` + informedSQL + `,
       COALESCE(t.total, 0), COALESCE(t.done, 0), COALESCE(d.total, 0), COALESCE(d.uploaded, 0)`

	// sessionRowsOfPageSQL reads the board's row of each session of the CTE page, with its
	// readiness counts, in the order %[1]s: the end of sessionPageSQL and of the events' pages
	// (sessionsPageSQL).
	sessionRowsOfPageSQL = `SELECT ` + sessionColumnsSQL + `
FROM page
JOIN submissions s ON s.id = page.id
LEFT JOIN formats f ON f.id = s.format_id
LEFT JOIN rooms r ON r.id = s.room_id
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE ta.status <> 'waived') AS total, count(*) FILTER (WHERE ta.status = 'done') AS done
  FROM task_assignments ta WHERE ta.submission_id = s.id) t ON true
LEFT JOIN LATERAL (
  SELECT count(*) AS total, count(*) FILTER (WHERE da.status = 'uploaded') AS uploaded
  FROM deliverable_assignments da WHERE da.submission_id = s.id) d ON true
ORDER BY %[1]s`

	// sessionPageSQL chooses the page on the submissions alone ($10 rows, all when null), then
	// joins only those with their readiness counts. %s is the order: reversed for a page taken
	// from the end (last), which the caller turns around.
	sessionPageSQL = `
WITH page AS (
  SELECT s.id FROM submissions s
  WHERE ` + sessionScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `
  ORDER BY %[1]s LIMIT $10)
` + sessionRowsOfPageSQL

	// sessionAllSQL reads every session of sessionScopeSQL ($1-$3) at once, as the REST board does:
	// without a page to choose, the readiness counts are grouped once over the event's tasks and
	// deliverables and hash-joined, instead of aggregated per session in a nested loop (2,000
	// index lookups each).
	sessionAllSQL = `
SELECT ` + sessionColumnsSQL + `
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
LEFT JOIN rooms r ON r.id = s.room_id
LEFT JOIN (
  SELECT ta.submission_id, count(*) FILTER (WHERE ta.status <> 'waived') AS total, count(*) FILTER (WHERE ta.status = 'done') AS done
  FROM task_assignments ta JOIN submissions x ON x.id = ta.submission_id
  WHERE x.event_id = $1 AND x.status = 'accepted' GROUP BY ta.submission_id) t ON t.submission_id = s.id
LEFT JOIN (
  SELECT da.submission_id, count(*) AS total, count(*) FILTER (WHERE da.status = 'uploaded') AS uploaded
  FROM deliverable_assignments da JOIN submissions x ON x.id = da.submission_id
  WHERE x.event_id = $1 AND x.status = 'accepted' GROUP BY da.submission_id) d ON d.submission_id = s.id
WHERE ` + sessionScopeSQL + `
ORDER BY ` + sessionOrderSQL

	// sessionCountsSQL counts, over the same parameters, the sessions in the state (totalCount),
	// those between the cursors, those at or before the after cursor and those at or after the
	// before cursor — from which the page's position follows — and reads the format names and
	// tracks of all accepted sessions.
	sessionCountsSQL = `
SELECT count(*) FILTER (WHERE ` + sessionScopeSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND ` + sessionAfterSQL + ` AND ` + sessionBeforeSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND NOT ` + sessionAfterSQL + `),
       count(*) FILTER (WHERE ` + sessionScopeSQL + ` AND NOT ` + sessionBeforeSQL + `),
       COALESCE(array_agg(DISTINCT f.name) FILTER (WHERE f.name IS NOT NULL), '{}'),
       (SELECT COALESCE(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                                 ORDER BY t.position, t.name, t.id), '[]')
        FROM tracks t
        WHERE EXISTS (SELECT 1 FROM submission_tracks st JOIN submissions a ON a.id = st.submission_id
                      WHERE st.track_id = t.id AND a.event_id = $1 AND a.status = 'accepted'))
FROM submissions s
LEFT JOIN formats f ON f.id = s.format_id
WHERE s.event_id = $1 AND s.status = 'accepted'`

	// sessionTracksSQL and sessionSpeakersSQL read the tracks and speakers of the sessions $1; the
	// …ScopeSQL forms read those of every session of sessionScopeSQL ($1–$3), so that they can run
	// beside the page's statement instead of after it.
	sessionTracksSQL = `
SELECT st.submission_id, t.id, t.name, t.color
FROM submission_tracks st
JOIN tracks t ON t.id = st.track_id
WHERE st.submission_id = ANY($1)
ORDER BY t.position, t.name, t.id`
	sessionTracksScopeSQL = `
SELECT st.submission_id, t.id, t.name, t.color
FROM submissions s
JOIN submission_tracks st ON st.submission_id = s.id
JOIN tracks t ON t.id = st.track_id
WHERE ` + sessionScopeSQL + `
ORDER BY t.position, t.name, t.id`

	sessionSpeakersSQL = `
SELECT p.submission_id, c.id, c.first_name, c.last_name, c.email, p.role, p.position, c.headshot_url, c.confirmed_at
FROM submission_participants p
JOIN contacts c ON c.id = p.contact_id
WHERE p.submission_id = ANY($1)
ORDER BY p.submission_id, p.position, c.id`
	sessionSpeakersScopeSQL = `
SELECT p.submission_id, c.id, c.first_name, c.last_name, c.email, p.role, p.position, c.headshot_url, c.confirmed_at
FROM submissions s
JOIN submission_participants p ON p.submission_id = s.id
JOIN contacts c ON c.id = p.contact_id
WHERE ` + sessionScopeSQL + `
ORDER BY p.submission_id, p.position, c.id`
)
