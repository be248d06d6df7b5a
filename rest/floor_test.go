package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/seed"
)

// The floors of the performance benchmark (make bench): PostgreSQL alone producing the very bytes
// Podium answers for GET E/sessions (W1) and GET E/evaluation (W3), one SQL statement each, built
// with json_build_object and json_agg. They are what those pages cannot cost less than; the
// benchmark reports Podium's latency as a ratio to them, and TestFloorsMatchREST keeps them equal
// to Podium's responses byte for byte, so the comparison stays honest.
//
// The statements aggregate each kind of child row once (GROUP BY) and join the groups by key;
// the outermost levels, which hold megabytes, are concatenated as text. Each CTE is referenced
// once where the planner needs statistics: a CTE referenced twice is materialized, and joins on it
// were planned badly enough to cost seconds. json_build_object output has spaces after colons and
// commas; json.Compact removes them (a byte scan, no reflection). Blind rounds are not covered:
// their redaction is Podium's own logic.

// ts formats a timestamptz column as Podium's timestamps: UTC with milliseconds, or null.
func ts(col string) string {
	return fmt.Sprintf(`to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, col)
}

var floorSessionsSQL = strings.NewReplacer("{{ts starts}}", ts("s.starts_at"), "{{ts ends}}", ts("s.ends_at"),
	"{{ts cancelled}}", ts("s.cancelled_at"), "{{ts created}}", ts("s.created_at"), "{{ts confirmed}}", ts("c.confirmed_at")).
	Replace(`
WITH s AS (
  SELECT s.*, f.name AS format_name, r.name AS room_name
  FROM submissions s LEFT JOIN formats f ON f.id = s.format_id LEFT JOIN rooms r ON r.id = s.room_id
  WHERE s.event_id = $1 AND s.status = 'accepted'
),
tracks_of AS (
  SELECT st.submission_id, json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
           ORDER BY t.position, t.name, t.id) AS list
  FROM submission_tracks st JOIN tracks t ON t.id = st.track_id
  JOIN submissions x ON x.id = st.submission_id AND x.event_id = $1 AND x.status = 'accepted'
  GROUP BY st.submission_id
),
speakers_of AS (
  SELECT p.submission_id, json_agg(json_build_object('id', c.id, 'name', trim(c.first_name || ' ' || c.last_name),
           'email', c.email, 'role', p.role, 'position', p.position, 'headshotUrl', c.headshot_url,
           'confirmedAt', {{ts confirmed}}) ORDER BY p.position, c.id) AS list
  FROM submission_participants p JOIN contacts c ON c.id = p.contact_id
  JOIN submissions x ON x.id = p.submission_id AND x.event_id = $1 AND x.status = 'accepted'
  GROUP BY p.submission_id
),
tasks_of AS (
  SELECT ta.submission_id, count(*) FILTER (WHERE ta.status <> 'waived') AS total, count(*) FILTER (WHERE ta.status = 'done') AS done
  FROM task_assignments ta JOIN submissions x ON x.id = ta.submission_id AND x.event_id = $1 AND x.status = 'accepted'
  GROUP BY ta.submission_id
),
files_of AS (
  SELECT da.submission_id, count(*) AS total, count(*) FILTER (WHERE da.status = 'uploaded') AS uploaded
  FROM deliverable_assignments da JOIN submissions x ON x.id = da.submission_id AND x.event_id = $1 AND x.status = 'accepted'
  GROUP BY da.submission_id
)
SELECT '{"sessions":' || COALESCE((SELECT json_agg(json_build_object(
      'id', s.id, 'eventId', s.event_id, 'code', s.code, 'title', s.title, 'description', s.description,
      'format', s.format_name, 'source', CASE WHEN s.source_form_id IS NULL THEN 'manual' ELSE 'cfp' END,
      'tracks', COALESCE(tr.list, '[]'::json), 'speakers', COALESCE(sp.list, '[]'::json),
      'startsAt', {{ts starts}}, 'endsAt', {{ts ends}}, 'roomId', s.room_id, 'roomName', s.room_name,
      'deliverablesTotal', COALESCE(f.total, 0), 'deliverablesUploaded', COALESCE(f.uploaded, 0),
      'tasksTotal', COALESCE(t.total, 0), 'tasksDone', COALESCE(t.done, 0),
      'contentReviewStatus', s.content_review_status,
      'publicationApproved', s.content_review_status = 'approved' AND s.approved_snapshot <> '{}'::jsonb,
      'cancelledAt', {{ts cancelled}}, 'cancelledBy', s.cancelled_by, 'capacity', s.capacity, 'createdAt', {{ts created}},
      'decisionSent', s.source_form_id IS NULL OR s.notified_at IS NOT NULL)
    ORDER BY s.starts_at ASC NULLS LAST, s.created_at DESC, s.id DESC)
    FROM s LEFT JOIN tracks_of tr ON tr.submission_id = s.id LEFT JOIN speakers_of sp ON sp.submission_id = s.id
    LEFT JOIN tasks_of t ON t.submission_id = s.id LEFT JOIN files_of f ON f.submission_id = s.id), '[]'::json)::text
  || ',"tracks":' || COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.position, t.name, t.id)
                      FROM tracks t WHERE t.event_id = $1 AND EXISTS (
                        SELECT 1 FROM submission_tracks st JOIN submissions x ON x.id = st.submission_id
                        WHERE st.track_id = t.id AND x.event_id = $1 AND x.status = 'accepted')), '[]'::json)::text
  || ',"formats":' || COALESCE((SELECT json_agg(n ORDER BY n COLLATE "C")
                       FROM (SELECT DISTINCT f.name AS n FROM submissions x JOIN formats f ON f.id = x.format_id
                             WHERE x.event_id = $1 AND x.status = 'accepted') x), '[]'::json)::text
  || '}'`)

var floorEvaluationSQL = strings.NewReplacer(
	"{{ts r.created}}", ts("r.created_at"), "{{ts r.updated}}", ts("r.updated_at"), "{{ts r.opens}}", ts("r.opens_at"),
	"{{ts r.closes}}", ts("r.closes_at"), "{{ts c.created}}", ts("c.created_at"), "{{ts c.updated}}", ts("c.updated_at"),
	"{{ts m.created}}", ts("m.created_at"), "{{ts m.updated}}", ts("m.updated_at"),
	"{{ts a.created}}", ts("a.created_at"), "{{ts a.updated}}", ts("a.updated_at"), "{{ts a.assigned}}", ts("a.assigned_at"),
	"{{ts a.completed}}", ts("a.completed_at"), "{{ts a.recused}}", ts("a.recused_at"),
	"{{ts s.submitted}}", ts("COALESCE(s.submitted_at, s.created_at)"),
	"{{ts ai.created}}", ts("ai.created_at"), "{{ts ai.updated}}", ts("ai.updated_at"), "{{ts ai.overridden}}", ts("ai.overridden_at"),
).Replace(`
WITH rnd AS (SELECT * FROM review_rounds WHERE event_id = $1),
sub AS (SELECT * FROM submissions WHERE event_id = $1 AND source_form_id IS NOT NULL),
sub_tracks AS (
  SELECT st.submission_id, json_agg(t.id ORDER BY t.position, t.name, t.id) AS ids,
         json_agg(t.name ORDER BY t.position, t.name, t.id) AS names
  FROM submission_tracks st JOIN tracks t ON t.id = st.track_id JOIN sub s ON s.id = st.submission_id
  GROUP BY st.submission_id
),
sub_people AS (
  SELECT p.submission_id, json_agg(json_build_object('name', trim(c.first_name || ' ' || c.last_name), 'role', p.role,
           'contactId', c.id, 'headshotUrl', c.headshot_url) ORDER BY p.position, c.id) AS list
  FROM submission_participants p JOIN contacts c ON c.id = p.contact_id JOIN sub s ON s.id = p.submission_id
  GROUP BY p.submission_id
),
summary AS (
  SELECT s.id, s.number, json_build_object('id', s.id, 'code', s.code, 'title', s.title, 'description', s.description,
           'status', s.status, 'submittedAt', {{ts s.submitted}}, 'trackIds', COALESCE(st.ids, '[]'::json),
           'trackNames', COALESCE(st.names, '[]'::json), 'participants', COALESCE(sp.list, '[]'::json)) AS obj
  FROM sub s LEFT JOIN sub_tracks st ON st.submission_id = s.id LEFT JOIN sub_people sp ON sp.submission_id = s.id
),
summaries AS (SELECT json_agg(obj ORDER BY number, id) AS list FROM summary),
asg AS (
  SELECT a.*, u.name AS reviewer_name, u.email AS reviewer_email, json_build_object(
      'id', a.id, 'createdAt', {{ts a.created}}, 'updatedAt', {{ts a.updated}}, 'roundId', a.round_id,
      'submissionId', a.submission_id, 'eventMemberId', a.event_member_id, 'status', a.status,
      'assignedAt', {{ts a.assigned}}, 'completedAt', {{ts a.completed}}, 'recusedAt', {{ts a.recused}},
      'recusalReason', a.recusal_reason) AS obj
  FROM review_assignments a JOIN rnd r ON r.id = a.round_id
  JOIN event_members em ON em.id = a.event_member_id JOIN users u ON u.id = em.user_id
),
ans AS (
  SELECT x.assignment_id, x.option_value, x.numeric_value, c.weight, c.type, c.position, c.id AS criterion_id,
         a.round_id, a.submission_id, a.status AS assignment_status, a.assigned_at,
         json_build_object('criterionId', c.id, 'label', c.label, 'type', c.type, 'numericValue', x.numeric_value,
                           'textValue', x.text_value, 'optionValue', x.option_value) AS obj
  FROM review_answers x JOIN review_criteria c ON c.id = x.criterion_id JOIN asg a ON a.id = x.assignment_id
),
ans_by_asg AS (SELECT assignment_id, json_agg(obj ORDER BY position, criterion_id) AS list FROM ans GROUP BY assignment_id),
reviews AS (
  SELECT a.round_id, a.submission_id, count(*) AS total, count(*) FILTER (WHERE a.status = 'completed') AS completed,
         json_agg(json_build_object('assignment', a.obj, 'reviewerName', a.reviewer_name, 'reviewerEmail', a.reviewer_email,
                                    'answers', COALESCE(l.list, '[]'::json)) ORDER BY a.assigned_at, a.id) AS list
  FROM asg a LEFT JOIN ans_by_asg l ON l.assignment_id = a.id
  GROUP BY a.round_id, a.submission_id
),
weighted AS (
  SELECT round_id, submission_id, floor(sum(numeric_value * weight) / sum(weight) * 100 + 0.5) / 100 AS value
  FROM ans WHERE assignment_status = 'completed' AND type = 'numeric' AND numeric_value IS NOT NULL
  GROUP BY round_id, submission_id
),
picks AS (
  SELECT round_id, submission_id, option_value,
         row_number() OVER (PARTITION BY round_id, submission_id ORDER BY assigned_at, assignment_id, position, criterion_id) AS n
  FROM ans WHERE assignment_status = 'completed' AND type = 'dropdown' AND option_value IS NOT NULL
),
recommendation AS (
  SELECT round_id, submission_id, string_agg(option_value, ', ' ORDER BY first) AS value
  FROM (SELECT round_id, submission_id, option_value, min(n) AS first FROM picks GROUP BY round_id, submission_id, option_value) f
  GROUP BY round_id, submission_id
),
ai AS (
  SELECT ai.round_id, ai.submission_id, u.name AS overridden_by_name, json_build_object('id', ai.id,
           'createdAt', {{ts ai.created}}, 'updatedAt', {{ts ai.updated}}, 'roundId', ai.round_id,
           'submissionId', ai.submission_id, 'score', ai.score, 'reasoning', ai.reasoning, 'provider', ai.provider,
           'model', ai.model, 'overriddenScore', ai.overridden_score, 'overrideReason', ai.override_reason,
           'overriddenByUserId', ai.overridden_by_user_id, 'overriddenByApiKeyId', ai.overridden_by_api_key_id,
           'overriddenAt', {{ts ai.overridden}}) AS obj
  FROM ai_review_results ai JOIN rnd r ON r.id = ai.round_id LEFT JOIN users u ON u.id = ai.overridden_by_user_id
),
results AS (
  SELECT r.id AS round_id, json_agg(json_build_object('submission', s.obj, 'humanReviews', COALESCE(v.list, '[]'::json),
           'reviewerCount', COALESCE(v.total, 0), 'completedCount', COALESCE(v.completed, 0),
           'weightedAggregate', w.value, 'recommendation', rc.value, 'aiResult', ai.obj,
           'aiOverriddenByName', ai.overridden_by_name) ORDER BY s.number, s.id) AS list
  FROM rnd r CROSS JOIN summary s
  LEFT JOIN reviews v ON v.round_id = r.id AND v.submission_id = s.id
  LEFT JOIN weighted w ON w.round_id = r.id AND w.submission_id = s.id
  LEFT JOIN recommendation rc ON rc.round_id = r.id AND rc.submission_id = s.id
  LEFT JOIN ai ON ai.round_id = r.id AND ai.submission_id = s.id
  GROUP BY r.id
),
mem AS (
  SELECT m.*, u.name, u.email, json_build_object('id', m.id, 'createdAt', {{ts m.created}}, 'updatedAt', {{ts m.updated}},
           'roundId', m.round_id, 'eventMemberId', m.event_member_id, 'assignmentCap', m.assignment_cap) AS obj
  FROM review_round_members m JOIN rnd r ON r.id = m.round_id
  JOIN event_members em ON em.id = m.event_member_id JOIN users u ON u.id = em.user_id
),
load AS (
  SELECT round_id, event_member_id, count(*) AS assigned, count(*) FILTER (WHERE status = 'completed') AS completed,
         count(*) FILTER (WHERE status = 'recused') AS recused
  FROM asg GROUP BY round_id, event_member_id
),
pool AS (
  SELECT m.round_id,
         json_agg(m.obj ORDER BY m.name, m.email, m.id) AS members,
         json_agg(json_build_object('member', m.obj, 'name', m.name, 'email', m.email) ORDER BY m.name, m.email, m.id) AS reviewers,
         json_agg(json_build_object('eventMemberId', m.event_member_id, 'name', m.name, 'email', m.email,
           'assigned', COALESCE(l.assigned, 0), 'completed', COALESCE(l.completed, 0), 'recused', COALESCE(l.recused, 0),
           'remaining', COALESCE(l.assigned - l.completed - l.recused, 0),
           'percentage', CASE WHEN COALESCE(l.assigned - l.recused, 0) > 0
                              THEN floor(l.completed::float8 / (l.assigned - l.recused) * 100 + 0.5)::int ELSE 0 END)
           ORDER BY m.name, m.email, m.id) AS progress
  FROM mem m LEFT JOIN load l ON l.round_id = m.round_id AND l.event_member_id = m.event_member_id
  GROUP BY m.round_id
),
crit AS (
  SELECT c.round_id, json_agg(json_build_object('id', c.id, 'createdAt', {{ts c.created}}, 'updatedAt', {{ts c.updated}},
           'roundId', c.round_id, 'label', c.label, 'type', c.type, 'min', c.min, 'max', c.max, 'options', c.options,
           'required', c.required, 'weight', c.weight, 'position', c.position) ORDER BY c.position, c.id) AS list
  FROM review_criteria c JOIN rnd r ON r.id = c.round_id GROUP BY c.round_id
),
asgs AS (SELECT round_id, json_agg(obj ORDER BY assigned_at, id) AS list FROM asg GROUP BY round_id)
SELECT '{"eventId":' || to_json($1::text)::text || ',"aiConfigured":' || CASE WHEN $2::boolean THEN 'true' ELSE 'false' END
  || ',"tracks":' || COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                               ORDER BY t.position, t.name, t.id) FROM tracks t WHERE t.event_id = $1), '[]'::json)::text
  || ',"rounds":[' || COALESCE((SELECT string_agg('{"configuration":' || json_build_object(
      'round', json_build_object('id', r.id, 'createdAt', {{ts r.created}}, 'updatedAt', {{ts r.updated}}, 'eventId', r.event_id,
          'name', r.name, 'opensAt', {{ts r.opens}}, 'closesAt', {{ts r.closes}}, 'blind', r.blind,
          'reviewsPerSubmission', r.reviews_per_submission, 'position', r.position,
          'status', CASE WHEN now() < r.opens_at THEN 'draft' WHEN now() > r.closes_at THEN 'closed' ELSE 'open' END),
      'criteria', COALESCE(c.list, '[]'::json),
      'members', COALESCE(p.members, '[]'::json))::text
    || ',"reviewers":' || COALESCE(p.reviewers, '[]'::json)::text
    || ',"assignments":' || COALESCE(a.list, '[]'::json)::text
    || ',"submissions":' || COALESCE((SELECT list FROM summaries), '[]'::json)::text
    || ',"progress":' || COALESCE(p.progress, '[]'::json)::text
    || ',"results":' || COALESCE(res.list, '[]'::json)::text || '}', ',' ORDER BY r.position, r.created_at, r.id)
    FROM rnd r LEFT JOIN crit c ON c.round_id = r.id LEFT JOIN pool p ON p.round_id = r.id
    LEFT JOIN asgs a ON a.round_id = r.id LEFT JOIN results res ON res.round_id = r.id), '') || ']}'`)

// floorQuerier is what the floors run on: a pool or a connection.
type floorQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var _ floorQuerier = (*pgxpool.Pool)(nil)

// floorSessions is GET E/sessions (no state filter) as PostgreSQL alone builds it.
func floorSessions(ctx context.Context, q floorQuerier, eventID string) ([]byte, error) {
	return floorJSON(ctx, q, floorSessionsSQL, eventID)
}

// floorEvaluation is GET E/evaluation as PostgreSQL alone builds it.
func floorEvaluation(ctx context.Context, q floorQuerier, eventID string, aiConfigured bool) ([]byte, error) {
	return floorJSON(ctx, q, floorEvaluationSQL, eventID, aiConfigured)
}

// floorJSON runs a statement returning one json value and writes it as Podium's encoder does:
// compact, with a final newline.
func floorJSON(ctx context.Context, q floorQuerier, sql string, args ...any) ([]byte, error) {
	var raw []byte
	if err := q.QueryRow(ctx, sql, args...).Scan(&raw); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(raw))
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// TestFloorsMatchREST holds the benchmark's floors to Podium's responses: on the benchmark data set
// (small) and on data made through the API (cancellations, overrides, answers of every kind), the
// floor's bytes are Podium's bytes.
func TestFloorsMatchREST(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.sys()
	var res seed.BenchResult
	require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
		var err error
		res, err = seed.Bench(ctx, dbx.TxFromContext(ctx).PGX(), seed.BenchOptions{OrganizationID: b.acmeOrg,
			Sessions: 40, Submissions: 25})
		return err
	}))

	// Data made through the API: a scorecard with every kind of criterion, answers, a recusal, an
	// AI result overridden by a key, a cancelled session and one without a format.
	sc := b.scorecard()
	submit := func(member, submission string, list ...map[string]any) {
		b.must(http.StatusOK, http.MethodPost, sc.answersURL(sc.assignment(member, submission)), b.acme, answers(list...))
	}
	submit(sc.r1, sc.s1, answer(sc.quality, 4, nil, nil), answer(sc.depth, 2, nil, nil), answer(sc.verdict, nil, nil, "Reject"),
		answer(sc.notes, nil, "Fine \"work\" <b>", nil))
	submit(sc.r2, sc.s1, answer(sc.quality, 5, nil, nil), answer(sc.verdict, nil, nil, "Accept"))
	b.must(http.StatusOK, http.MethodPost, sc.w.base+"/review-assignments/"+sc.assignment(sc.r3, sc.s2)+"/recuse", b.acme,
		map[string]any{"reason": "conflict"})
	p := newFakeProvider(t)
	b.useAI(p)
	result := b.must(http.StatusOK, http.MethodPost, sc.w.base+"/review-rounds/"+sc.round+"/ai-review", b.acme,
		map[string]any{"submissionId": sc.s1}).Obj()
	b.must(http.StatusOK, http.MethodPost, sc.w.base+"/ai-review-override", b.acme,
		map[string]any{"resultId": result["id"], "score": 2.75, "reason": "Too long"})
	manual := b.createSession(sc.w, "Keynote", sc.w.grace)
	b.must(http.StatusOK, http.MethodPost, sc.w.base+"/sessions/"+str(manual, "id")+"/cancel", b.acme,
		map[string]any{"cause": "speaker", "notifySpeakers": false})
	b.must(http.StatusCreated, http.MethodPost, sc.w.base+"/sessions", b.acme,
		map[string]any{"title": "No format", "description": nil, "formatId": nil, "speakerIds": []any{sc.w.ada}})

	check := func(name, path string, floor func() ([]byte, error)) {
		t.Helper()
		want := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Raw
		got, err := floor()
		require.NoError(t, err)
		require.Greater(t, len(want), 1000, "%s: too little data to compare", name)
		require.Equal(t, want, string(got), "%s: the floor's bytes differ from Podium's", name)
	}
	pool := b.db.System
	for _, ev := range []string{res.SessionsEventID, sc.w.event} {
		check("sessions "+ev, "/api/v1/events/"+ev+"/sessions", func() ([]byte, error) { return floorSessions(ctx, pool, ev) })
	}
	for _, ev := range []string{res.ReviewsEventID, sc.w.event} {
		check("evaluation "+ev, "/api/v1/events/"+ev+"/evaluation", func() ([]byte, error) { return floorEvaluation(ctx, pool, ev, true) })
	}
}
