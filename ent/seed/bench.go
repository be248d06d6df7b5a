// Package seed writes data sets into Podium's database: a large, realistic one for benchmarks
// (Bench), written with set-based SQL so that tens of thousands of rows take seconds.
package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent/schema/pid"
)

// BenchOptions size the benchmark data set. Zero values take the defaults of the performance
// issue: 2,000 sessions × 3 speakers × 2 tracks, and a round of 500 submissions × 3 reviewers × 8
// criteria.
type BenchOptions struct {
	// OrganizationID owns both events.
	OrganizationID string
	// Sessions, SpeakersPerSession and TracksPerSession shape the session board.
	Sessions, SpeakersPerSession, TracksPerSession int
	// Submissions, Reviewers and Criteria shape the review round.
	Submissions, Reviewers, Criteria int
}

func (o *BenchOptions) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Sessions, 2000)
	def(&o.SpeakersPerSession, 3)
	def(&o.TracksPerSession, 2)
	def(&o.Submissions, 500)
	def(&o.Reviewers, 3)
	def(&o.Criteria, 8)
}

// BenchResult names what Bench wrote.
type BenchResult struct {
	// SessionsEventID holds the session board: accepted sessions with speakers, tracks, tasks and
	// deliverables, most of them scheduled.
	SessionsEventID string
	// ReviewsEventID holds the review round: call-for-proposals submissions, every one reviewed
	// by every reviewer on every criterion, half of them scored by the AI.
	ReviewsEventID string
	RoundID        string
}

// trackCount is how many tracks each event has.
const trackCount = 8

// Bench writes the benchmark data set in one transaction and refreshes the planner's statistics.
func Bench(ctx context.Context, tx pgx.Tx, opts BenchOptions) (BenchResult, error) {
	opts.defaults()
	if opts.TracksPerSession > trackCount {
		return BenchResult{}, fmt.Errorf("seed: at most %d tracks per session", trackCount)
	}
	w := &writer{tx: tx, ctx: ctx, base: pid.New("x")[2:15]}
	res := BenchResult{
		SessionsEventID: w.id("evt", 1),
		ReviewsEventID:  w.id("evt", 2),
		RoundID:         w.id("rnd", 1),
	}
	w.exec(`INSERT INTO events (id, created_at, updated_at, name, slug, type, timezone, starts_at, ends_at, published_agenda,
		organization_id) VALUES
		($1, now(), now(), 'Bench Conference', 'bench-conference-' || $4, 'conference', 'Europe/Berlin', $5, $6, '[]', $3),
		($2, now(), now(), 'Bench Reviews', 'bench-reviews-' || $4, 'conference', 'Europe/Berlin', $5, $6, '[]', $3)`,
		res.SessionsEventID, res.ReviewsEventID, opts.OrganizationID, w.base,
		time.Date(2027, 9, 10, 7, 0, 0, 0, time.UTC), time.Date(2027, 9, 12, 17, 0, 0, 0, time.UTC))
	w.sessions(res.SessionsEventID, opts)
	w.reviews(res.ReviewsEventID, res.RoundID, opts)
	if w.err != nil {
		return res, w.err
	}
	// Fresh statistics, or the planner picks plans for empty tables. Only a table's owner may
	// analyze it, and system work acts as dbx.SystemRole, which owns nothing: for these
	// statements the transaction steps back to its login role (the system pool's connections log
	// in as the owner), then returns to the role it had. SET LOCAL ends with the transaction
	// whatever happens.
	var role string
	if w.err == nil {
		w.err = tx.QueryRow(ctx, "SELECT current_user").Scan(&role)
	}
	w.exec("SET LOCAL ROLE NONE")
	for _, table := range []string{"submissions", "contacts", "submission_participants", "submission_tracks", "task_assignments",
		"deliverable_assignments", "review_assignments", "review_answers", "review_criteria", "ai_review_results"} {
		w.exec("ANALYZE " + table)
	}
	w.exec("SET LOCAL ROLE " + pgx.Identifier{role}.Sanitize())
	return res, w.err
}

// writer runs statements until the first error.
type writer struct {
	tx   pgx.Tx
	ctx  context.Context
	base string
	err  error
}

// id is a plausible id made from the writer's base and a number: prefix_ + 13 base32 digits of the
// base + 13 decimal digits. SQL builds the same from the base with sqlID.
func (w *writer) id(prefix string, n int) string { return fmt.Sprintf("%s_%s%013d", prefix, w.base, n) }

// sqlID is the SQL expression of id for a prefix and an integer expression.
func sqlID(prefix, n string) string {
	return fmt.Sprintf(`'%s_' || $base || lpad((%s)::text, 13, '0')`, prefix, n)
}

func (w *writer) exec(sql string, args ...any) {
	if w.err != nil {
		return
	}
	if _, err := w.tx.Exec(w.ctx, sql, args...); err != nil {
		w.err = fmt.Errorf("seed: %w\n%s", err, sql)
	}
}

// execBase runs sql with $base replaced by the writer's base as a literal.
func (w *writer) execBase(sql string, args ...any) {
	w.exec(replaceBase(sql, w.base), args...)
}

func replaceBase(sql, base string) string {
	out := make([]byte, 0, len(sql))
	for i := 0; i < len(sql); i++ {
		if i+5 <= len(sql) && sql[i:i+5] == "$base" {
			out = append(out, "'"+base+"'"...)
			i += 4
			continue
		}
		out = append(out, sql[i])
	}
	return string(out)
}

// library writes the event's tracks, formats and rooms. Ids number from offset so that two events
// share no id.
func (w *writer) library(eventID string, offset int) {
	w.execBase(`INSERT INTO tracks (id, created_at, updated_at, name, position, color, event_id)
		SELECT `+sqlID("trk", "$2 + i")+`, now(), now(), (ARRAY['Go','Data','Cloud','Security','Web','Mobile','AI','Community'])[i],
		       i, (ARRAY['#00add8','#7c3aed','#0ea5e9','#dc2626','#16a34a','#f59e0b','#db2777','#1d6b4c'])[i], $1
		FROM generate_series(1, 8) i`, eventID, offset)
	w.execBase(`INSERT INTO formats (id, created_at, updated_at, name, position, duration_minutes, event_id)
		SELECT `+sqlID("fmt", "$2 + i")+`, now(), now(), (ARRAY['Talk','Workshop','Lightning talk'])[i], i,
		       (ARRAY[30, 90, 10])[i], $1
		FROM generate_series(1, 3) i`, eventID, offset)
	w.execBase(`INSERT INTO rooms (id, created_at, updated_at, name, position, capacity, event_id)
		SELECT `+sqlID("room", "$2 + i")+`, now(), now(), 'Room ' || i, i, 100 * i, $1
		FROM generate_series(1, 6) i`, eventID, offset)
}

// sessions writes the session board: accepted sessions, some cancelled, most scheduled, each with
// its speakers, tracks, tasks and deliverables.
func (w *writer) sessions(eventID string, o BenchOptions) {
	const off = 0
	w.library(eventID, off)
	n, k, tpc := o.Sessions, o.SpeakersPerSession, o.TracksPerSession
	w.execBase(`INSERT INTO contacts (id, created_at, updated_at, email, first_name, last_name, company, title, bio,
		custom, approved_profile, workflow_status, confirmed_at, event_id)
		SELECT `+sqlID("ctc", "i")+`, now(), now(), 'speaker' || i || '@bench.example', 'Speaker', 'Number ' || i,
		       'Company ' || (i % 97), 'Engineer', 'Speaks about things, at length.', '{}', '{}',
		       CASE WHEN i % 3 = 0 THEN 'confirmed' ELSE 'invited' END,
		       CASE WHEN i % 3 = 0 THEN now() END, $1
		FROM generate_series(1, $2) i`, eventID, n*k)
	w.execBase(`INSERT INTO submissions (id, created_at, updated_at, number, code, status, title, description, language,
		starts_at, ends_at, answers, approved_snapshot, content_review_status, cancelled_at, cancelled_by, capacity,
		submitted_at, format_id, room_id, event_id)
		SELECT `+sqlID("sub", "i")+`, now() - make_interval(secs => i), now(), i, 'SESS-' || i, 'accepted',
		       'Session ' || i || ': lessons from production', 'What we learned running things, part ' || i || '.', 'en',
		       CASE WHEN i % 5 <> 0 THEN $3::timestamptz + make_interval(days => i % 3, mins => 30 * (i % 16)) END,
		       CASE WHEN i % 5 <> 0 THEN $3::timestamptz + make_interval(days => i % 3, mins => 30 * (i % 16) + 30) END,
		       '{}', CASE WHEN i % 2 = 0 THEN '{"title":"approved"}'::jsonb ELSE '{}'::jsonb END,
		       CASE WHEN i % 4 = 0 THEN 'pending_review' ELSE 'approved' END,
		       CASE WHEN i % 50 = 0 THEN now() END, CASE WHEN i % 50 = 0 THEN 'organizer' END,
		       CASE WHEN i % 7 = 0 THEN 120 END, now() - make_interval(secs => i),
		       `+sqlID("fmt", "1 + i % 3")+`, CASE WHEN i % 5 <> 0 THEN `+sqlID("room", "1 + i % 6")+` END, $1
		FROM generate_series(1, $2) i`, eventID, n, time.Date(2027, 9, 10, 7, 0, 0, 0, time.UTC))
	w.execBase(`INSERT INTO submission_participants (id, created_at, updated_at, role, position, contact_id, submission_id)
		SELECT `+sqlID("spt", "(i - 1) * $2 + j")+`, now(), now(), 'speaker', j - 1, `+sqlID("ctc", "(i - 1) * $2 + j")+`,
		       `+sqlID("sub", "i")+`
		FROM generate_series(1, $1) i, generate_series(1, $2) j`, n, k)
	w.execBase(`INSERT INTO submission_tracks (submission_id, track_id)
		SELECT `+sqlID("sub", "i")+`, `+sqlID("trk", "1 + (i + j) % 8")+`
		FROM generate_series(1, $1) i, generate_series(1, $2) j`, n, tpc)
	// Readiness: a session-scoped and a speaker-scoped task, and the same for files.
	w.execBase(`INSERT INTO task_templates (id, created_at, updated_at, title, scope, position, event_id) VALUES
		(`+sqlID("ttpl", "1")+`, now(), now(), 'Confirm the session details', 'session', 1, $1),
		(`+sqlID("ttpl", "2")+`, now(), now(), 'Complete your speaker profile', 'speaker', 2, $1)`, eventID)
	w.execBase(`INSERT INTO file_requirements (id, created_at, updated_at, label, scope, position, event_id) VALUES
		(`+sqlID("freq", "1")+`, now(), now(), 'Slides', 'session', 1, $1),
		(`+sqlID("freq", "2")+`, now(), now(), 'Headshot', 'speaker', 2, $1)`, eventID)
	w.execBase(`INSERT INTO task_assignments (id, created_at, updated_at, status, completed_at, contact_id, submission_id, template_id)
		SELECT `+sqlID("task", "i")+`, now(), now(), CASE WHEN i % 3 = 0 THEN 'done' WHEN i % 50 = 0 THEN 'waived' ELSE 'todo' END,
		       CASE WHEN i % 3 = 0 THEN now() END, NULL, `+sqlID("sub", "i")+`, `+sqlID("ttpl", "1")+`
		FROM generate_series(1, $1) i`, n)
	w.execBase(`INSERT INTO task_assignments (id, created_at, updated_at, status, completed_at, contact_id, submission_id, template_id)
		SELECT `+sqlID("task", "$1 + (i - 1) * $2 + j")+`, now(), now(), CASE WHEN j = 1 THEN 'done' ELSE 'todo' END,
		       CASE WHEN j = 1 THEN now() END, `+sqlID("ctc", "(i - 1) * $2 + j")+`, `+sqlID("sub", "i")+`, `+sqlID("ttpl", "2")+`
		FROM generate_series(1, $1) i, generate_series(1, $2) j`, n, k)
	w.execBase(`INSERT INTO deliverable_assignments (id, created_at, updated_at, status, file_name, content_type, size, storage_key,
		uploaded_at, contact_id, requirement_id, submission_id)
		SELECT `+sqlID("dlv", "i")+`, now(), now(), CASE WHEN i % 2 = 0 THEN 'uploaded' ELSE 'outstanding' END,
		       CASE WHEN i % 2 = 0 THEN 'slides.pdf' END, CASE WHEN i % 2 = 0 THEN 'application/pdf' END,
		       CASE WHEN i % 2 = 0 THEN 1048576 END, CASE WHEN i % 2 = 0 THEN 'slides/' || i || '.pdf' END,
		       CASE WHEN i % 2 = 0 THEN now() END, NULL, `+sqlID("freq", "1")+`, `+sqlID("sub", "i")+`
		FROM generate_series(1, $1) i`, n)
	w.execBase(`INSERT INTO deliverable_assignments (id, created_at, updated_at, status, contact_id, requirement_id, submission_id)
		SELECT `+sqlID("dlv", "$1 + (i - 1) * $2 + j")+`, now(), now(), 'outstanding', `+sqlID("ctc", "(i - 1) * $2 + j")+`,
		       `+sqlID("freq", "2")+`, `+sqlID("sub", "i")+`
		FROM generate_series(1, $1) i, generate_series(1, $2) j`, n, k)
}

// reviews writes the review round: call-for-proposals submissions by one speaker each, reviewers,
// a scorecard, every assignment completed with an answer to every criterion, and AI scores for
// half the submissions.
func (w *writer) reviews(eventID, roundID string, o BenchOptions) {
	const off = 100 // library ids of the second event
	w.library(eventID, off)
	n, r, c := o.Submissions, o.Reviewers, o.Criteria
	const contacts, subs = 1_000_000, 1_000_000 // id offsets from the session board's
	w.execBase(`INSERT INTO forms (id, created_at, updated_at, internal_name, external_title, is_default, event_id)
		VALUES (`+sqlID("form", "1")+`, now(), now(), 'Call for proposals', 'Call for proposals', true, $1)`, eventID)
	w.execBase(`INSERT INTO contacts (id, created_at, updated_at, email, first_name, last_name, company, custom, approved_profile, event_id)
		SELECT `+sqlID("ctc", "$3 + i")+`, now(), now(), 'proposer' || i || '@bench.example', 'Proposer', 'Number ' || i,
		       'Company ' || (i % 53), '{}', '{}', $1
		FROM generate_series(1, $2) i`, eventID, n, contacts)
	w.execBase(`INSERT INTO submissions (id, created_at, updated_at, number, code, status, title, description, language,
		answers, approved_snapshot, submitted_at, source_form_id, format_id, event_id)
		SELECT `+sqlID("sub", "$3 + i")+`, now() - make_interval(secs => i), now(), i, 'SESS-' || i,
		       CASE WHEN i % 10 = 0 THEN 'maybe' ELSE 'pending' END, 'Proposal ' || i, 'A proposal about topic ' || i || '.', 'en',
		       '{}', '{}', now() - make_interval(secs => i), `+sqlID("form", "1")+`, `+sqlID("fmt", "101 + i % 3")+`, $1
		FROM generate_series(1, $2) i`, eventID, n, subs)
	w.execBase(`INSERT INTO submission_participants (id, created_at, updated_at, role, position, contact_id, submission_id)
		SELECT `+sqlID("spt", "$2 + i")+`, now(), now(), 'speaker', 0, `+sqlID("ctc", "$2 + i")+`, `+sqlID("sub", "$2 + i")+`
		FROM generate_series(1, $1) i`, n, subs)
	w.execBase(`INSERT INTO submission_tracks (submission_id, track_id)
		SELECT `+sqlID("sub", "$2 + i")+`, `+sqlID("trk", "101 + i % 8")+` FROM generate_series(1, $1) i`, n, subs)
	w.execBase(`INSERT INTO review_rounds (id, created_at, updated_at, name, opens_at, closes_at, blind, reviews_per_submission,
		position, status, event_id)
		VALUES ($2, now(), now(), 'First round', now() - interval '7 days', now() + interval '30 days', false, $3, 1, 'open', $1)`,
		eventID, roundID, r)
	w.execBase(`INSERT INTO review_criteria (id, created_at, updated_at, label, type, min, max, options, required, weight, position,
		round_id)
		SELECT `+sqlID("crit", "i")+`, now(), now(), 'Criterion ' || i,
		       CASE WHEN i = $2 THEN 'text' WHEN i = $2 - 1 THEN 'dropdown' ELSE 'numeric' END,
		       CASE WHEN i < $2 - 1 THEN 1 END, CASE WHEN i < $2 - 1 THEN 5 END,
		       CASE WHEN i = $2 - 1 THEN '["Accept","Maybe","Reject"]'::jsonb ELSE '[]'::jsonb END,
		       i = 1, CASE WHEN i < $2 - 1 THEN 1 + i % 3 ELSE 1 END, i, $1
		FROM generate_series(1, $2) i`, roundID, c)
	w.execBase(`INSERT INTO users (id, created_at, updated_at, email, name)
		SELECT `+sqlID("usr", "i")+`, now(), now(), 'reviewer' || i || '.' || $base || '@bench.example', 'Reviewer ' || i
		FROM generate_series(1, $1) i`, r)
	w.execBase(`INSERT INTO event_members (id, created_at, updated_at, role, event_id, user_id)
		SELECT `+sqlID("emb", "i")+`, now(), now(), 'reviewer', $1, `+sqlID("usr", "i")+` FROM generate_series(1, $2) i`, eventID, r)
	w.execBase(`INSERT INTO review_round_members (id, created_at, updated_at, assignment_cap, event_member_id, round_id)
		SELECT `+sqlID("rmem", "i")+`, now(), now(), NULL, `+sqlID("emb", "i")+`, $1 FROM generate_series(1, $2) i`, roundID, r)
	w.execBase(`INSERT INTO review_assignments (id, created_at, updated_at, status, assigned_at, completed_at, recused_at,
		recusal_reason, event_member_id, round_id, submission_id)
		SELECT `+sqlID("asg", "(i - 1) * $2 + j")+`, now(), now(),
		       CASE WHEN (i + j) % 17 = 0 THEN 'recused' WHEN (i + j) % 5 = 0 THEN 'pending' ELSE 'completed' END,
		       now() - make_interval(secs => i * 10 + j),
		       CASE WHEN (i + j) % 5 <> 0 AND (i + j) % 17 <> 0 THEN now() END,
		       CASE WHEN (i + j) % 17 = 0 THEN now() END, CASE WHEN (i + j) % 17 = 0 THEN 'Conflict of interest' END,
		       `+sqlID("emb", "j")+`, $1, `+sqlID("sub", "$3 + i")+`
		FROM generate_series(1, $4) i, generate_series(1, $2) j`, roundID, r, subs, n)
	w.execBase(`INSERT INTO review_answers (id, created_at, updated_at, numeric_value, text_value, option_value, assignment_id,
		criterion_id)
		SELECT `+sqlID("ans", "(a - 1) * $2 + k")+`, now(), now(),
		       CASE WHEN k < $2 - 1 THEN 1 + (a + k) % 5 END,
		       CASE WHEN k = $2 THEN 'Review notes ' || a END,
		       CASE WHEN k = $2 - 1 THEN (ARRAY['Accept','Maybe','Reject'])[1 + (a + k) % 3] END,
		       `+sqlID("asg", "a")+`, `+sqlID("crit", "k")+`
		FROM generate_series(1, $1) a, generate_series(1, $2) k
		WHERE EXISTS (SELECT 1 FROM review_assignments x WHERE x.id = `+sqlID("asg", "a")+` AND x.status <> 'pending')`,
		n*r, c)
	w.execBase(`INSERT INTO ai_review_results (id, created_at, updated_at, round_id, submission_id, score, reasoning, provider, model)
		SELECT `+sqlID("air", "i")+`, now(), now(), $1, `+sqlID("sub", "$2 + i")+`, 1 + (i % 9) / 2.0,
		       'Clear, relevant and well scoped.', 'anthropic', 'bench-model'
		FROM generate_series(2, $3, 2) i`, roundID, subs, n)
}
