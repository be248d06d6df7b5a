package operation

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

var errRoundNotFound = apperr.NotFound("Review round")

// The workspace reads a fixed number of queries, whatever the number of rounds, reviewers,
// submissions, assignments and answers: each statement below, plus the two of humanReviews. Each
// takes events as $1, so the workspaces of a page of events cost what one does.
const (
	// Rounds come with their criteria, one row per criterion (or one for a round without any).
	wsRoundsSQL = `
SELECT r.event_id, r.id, r.created_at, r.updated_at, r.name, r.opens_at, r.closes_at, r.blind, r.reviews_per_submission,
       r.position, c.id, c.created_at, c.updated_at, c.label, c.type, c.min, c.max, c.options, c.required, c.weight,
       c.position
FROM review_rounds r LEFT JOIN review_criteria c ON c.round_id = r.id
WHERE r.event_id = ANY($1) AND ($2 = '' OR r.id = $2)
ORDER BY r.position, r.created_at, r.id, c.position, c.id`

	wsMembersSQL = `
SELECT m.id, m.created_at, m.updated_at, m.round_id, m.event_member_id, m.assignment_cap, u.name, u.email
FROM review_round_members m
JOIN review_rounds r ON r.id = m.round_id
JOIN event_members em ON em.id = m.event_member_id
JOIN users u ON u.id = em.user_id
WHERE r.event_id = ANY($1) AND ($2 = '' OR r.id = $2)
ORDER BY u.name, u.email, m.id`

	// Summaries cover the call-for-proposals submissions and any other submission of the event an
	// assignment of the event points at, so every assignment can show its submission; one row per
	// participant.
	wsSubmissionsSQL = `
SELECT s.event_id, s.id, s.code, s.title, s.description, s.status, COALESCE(s.submitted_at, s.created_at),
       NOT ` + manualSQL + `, c.id, c.first_name, c.last_name, c.company, c.email, c.headshot_url,
       c.linkedin_url, c.twitter_url, c.website_url, p.role
FROM submissions s
LEFT JOIN submission_participants p ON p.submission_id = s.id
LEFT JOIN contacts c ON c.id = p.contact_id
WHERE s.event_id = ANY($1) AND (NOT ` + manualSQL + ` OR EXISTS (
  SELECT 1 FROM review_assignments a JOIN review_rounds r ON r.id = a.round_id
  WHERE a.submission_id = s.id AND r.event_id = s.event_id))
ORDER BY s.number, s.id, p.position, c.id`

	// The event's tracks, each with the submissions in it (one row per link, or one for a track
	// without any).
	wsTracksSQL = `
SELECT t.event_id, t.id, t.name, t.color, st.submission_id
FROM tracks t LEFT JOIN submission_tracks st ON st.track_id = t.id
WHERE t.event_id = ANY($1)
ORDER BY t.position, t.name, t.id, st.submission_id`

	wsAIResultsSQL = `
SELECT a.id, a.created_at, a.updated_at, a.round_id, a.submission_id, a.score, a.reasoning, a.provider, a.model,
       a.overridden_score, a.override_reason, a.overridden_by_user_id, a.overridden_by_api_key_id,
       a.overridden_at, u.name
FROM ai_review_results a
JOIN review_rounds r ON r.id = a.round_id
LEFT JOIN users u ON u.id = a.overridden_by_user_id
WHERE r.event_id = ANY($1) AND ($2 = '' OR r.id = $2)`
)

// submissionFacts is what the workspace knows of a submission before a round presents it.
type submissionFacts struct {
	summary *model.EvaluationSubmission
	cfp     bool
	// identity lists what would reveal who submitted it: names, companies, emails, profile URLs.
	identity []string
	// blind is the summary as blind rounds show it, made on first use.
	blind *model.EvaluationSubmission
}

// statusAt is a round's status at now: its window decides (docs/rest-api.md: "Status comes from the
// window"). Podium reads it from the window every time, so a round opens and closes on time
// without being saved again.
func statusAt(now, opensAt, closesAt time.Time) model.ReviewRoundStatus {
	switch {
	case now.Before(opensAt):
		return model.ReviewRoundStatusDraft
	case now.After(closesAt):
		return model.ReviewRoundStatusClosed
	default:
		return model.ReviewRoundStatusOpen
	}
}

// evaluation loads the review workspace of an event whose access was checked: every round, or
// only roundID.
func (r *Service) evaluation(ctx context.Context, eventID, roundID string) (*model.EvaluationWorkspace, error) {
	ws, err := r.workspaces(ctx, []string{eventID}, roundID)
	if err != nil {
		return nil, err
	}
	return ws[eventID], nil
}

// evaluations answers Event.evaluation for a page of events: their whole workspaces, in their
// order, in the statements of one.
func (r *Service) evaluations(ctx context.Context, evs []*ent.Event) ([]*model.EvaluationWorkspace, error) {
	ws, err := r.workspaces(ctx, eventIDs(evs), "")
	if err != nil {
		return nil, err
	}
	return mapAll(evs, func(ev *ent.Event) *model.EvaluationWorkspace { return ws[ev.ID] }), nil
}

// workspaces loads the review workspaces of events whose access was checked, by event: every
// round, or only roundID. Rounds, criteria, reviews and AI results are found by id, unique across
// events; what belongs to an event (tracks, submissions) goes by its event.
func (r *Service) workspaces(ctx context.Context, eventIDs []string, roundID string) (map[string]*model.EvaluationWorkspace, error) {
	q := r.sql(ctx)
	now := time.Now()
	out := make(map[string]*model.EvaluationWorkspace, len(eventIDs))
	for _, id := range eventIDs {
		out[id] = &model.EvaluationWorkspace{EventID: id, AiConfigured: r.AI != nil, Tracks: []agenda.Track{}, Rounds: []*model.RoundView{}}
	}
	views := map[string]*model.RoundView{}
	var roundIDs []string
	criteria := map[string]*model.Criterion{}
	err := eachRowArgs(ctx, q, wsRoundsSQL, []any{eventIDs, roundID}, func(scan func(...any) error) error {
		rd := &model.Round{}
		var created, updated, opens, closes time.Time
		var cID, cLabel, cType *string
		var cCreated, cUpdated *time.Time
		var cMin, cMax, cWeight *float64
		var cOptions []string
		var cRequired *bool
		var cPosition *int
		if err := scan(&rd.EventID, &rd.ID, &created, &updated, &rd.Name, &opens, &closes, &rd.Blind, &rd.ReviewsPerSubmission, &rd.Position,
			&cID, &cCreated, &cUpdated, &cLabel, &cType, &cMin, &cMax, &cOptions, &cRequired, &cWeight, &cPosition); err != nil {
			return err
		}
		v, seen := views[rd.ID]
		if !seen {
			rd.CreatedAt, rd.UpdatedAt, rd.OpensAt, rd.ClosesAt = scalar.At(created), scalar.At(updated), scalar.At(opens), scalar.At(closes)
			rd.Status = statusAt(now, opens, closes)
			v = &model.RoundView{
				Configuration: &model.RoundConfiguration{Round: rd, Criteria: []*model.Criterion{}, Members: []*model.RoundMember{}},
				Reviewers:     []*model.Reviewer{}, Assignments: []*model.ReviewAssignmentRecord{}, Submissions: []*model.EvaluationSubmission{},
				Progress: []*model.ReviewProgressRow{}, Results: []*model.ReviewResultRow{},
				Index: &model.RoundIndex{Submissions: map[string]*model.EvaluationSubmission{}, Identity: map[string][]string{},
					Reviews:   map[string]*model.HumanReview{},
					Reviewers: map[string]*model.ReviewerIdentity{}},
			}
			out[rd.EventID].Rounds = append(out[rd.EventID].Rounds, v)
			views[rd.ID] = v
			roundIDs = append(roundIDs, rd.ID)
		}
		if cID == nil {
			return nil
		}
		c := &model.Criterion{ID: *cID, CreatedAt: scalar.At(*cCreated), UpdatedAt: scalar.At(*cUpdated), RoundID: v.Configuration.Round.ID,
			Label: *cLabel, Type: model.ReviewCriterionType(*cType), Min: cMin, Max: cMax, Options: nonNilSlice(cOptions),
			Required: *cRequired, Weight: *cWeight, Position: *cPosition}
		v.Configuration.Criteria = append(v.Configuration.Criteria, c)
		criteria[c.ID] = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Track links wait for the submissions they name; the rows of a track come together.
	var links [][2]string
	names := map[string]string{}
	err = eachRowArgs(ctx, q, wsTracksSQL, []any{eventIDs}, func(scan func(...any) error) error {
		var event string
		var t agenda.Track
		var submissionID *string
		if err := scan(&event, &t.ID, &t.Name, &t.Color, &submissionID); err != nil {
			return err
		}
		if _, ok := names[t.ID]; !ok {
			names[t.ID] = t.Name
			out[event].Tracks = append(out[event].Tracks, t)
		}
		if submissionID != nil {
			links = append(links, [2]string{*submissionID, t.ID})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(roundIDs) == 0 {
		return out, nil
	}

	err = eachRowArgs(ctx, q, wsMembersSQL, []any{eventIDs, roundID}, func(scan func(...any) error) error {
		m := &model.RoundMember{}
		rv := &model.Reviewer{Member: m}
		var created, updated time.Time
		if err := scan(&m.ID, &created, &updated, &m.RoundID, &m.EventMemberID, &m.AssignmentCap, &rv.Name, &rv.Email); err != nil {
			return err
		}
		m.CreatedAt, m.UpdatedAt = scalar.At(created), scalar.At(updated)
		v := views[m.RoundID]
		v.Configuration.Members = append(v.Configuration.Members, m)
		v.Reviewers = append(v.Reviewers, rv)
		v.Index.Reviewers[m.EventMemberID] = &model.ReviewerIdentity{EventMemberID: m.EventMemberID, Name: rv.Name, Email: rv.Email}
		return nil
	})
	if err != nil {
		return nil, err
	}

	facts, order, err := r.submissionFacts(ctx, eventIDs, names, links)
	if err != nil {
		return nil, err
	}
	reviews, err := r.humanReviews(ctx, nil, roundIDs)
	if err != nil {
		return nil, err
	}
	ai, err := r.aiResults(ctx, eventIDs, roundID)
	if err != nil {
		return nil, err
	}

	// Reviews by round and submission, in assignment order.
	bySubmission := map[[2]string][]*model.HumanReview{}
	for _, h := range reviews {
		a := h.Assignment
		v := views[a.RoundID]
		a.Index = v.Index
		v.Assignments = append(v.Assignments, a)
		v.Index.Reviews[a.ID] = h
		if _, ok := v.Index.Reviewers[a.EventMemberID]; !ok {
			v.Index.Reviewers[a.EventMemberID] = &model.ReviewerIdentity{EventMemberID: a.EventMemberID, Name: h.ReviewerName, Email: h.ReviewerEmail}
		}
		key := [2]string{a.RoundID, a.SubmissionID}
		bySubmission[key] = append(bySubmission[key], h)
	}

	for _, ws := range out {
		for _, v := range ws.Rounds {
			rd := v.Configuration.Round
			for _, id := range order[ws.EventID] {
				f := facts[id]
				s := f.summary
				if rd.Blind {
					s = f.blindSummary()
					v.Index.Identity[id] = f.identity
				}
				v.Index.Submissions[id] = s
				if !f.cfp {
					continue
				}
				v.Submissions = append(v.Submissions, s)
				row := result(s, bySubmission[[2]string{rd.ID, id}], criteria)
				if res, ok := ai[[2]string{rd.ID, id}]; ok {
					row.AiResult, row.AiOverriddenByName = res.result, res.overriddenByName
				}
				v.Results = append(v.Results, row)
			}
			v.Progress = progress(v.Reviewers, v.Assignments)
		}
	}
	return out, nil
}

// submissionFacts loads the summaries of the events' submissions that the workspace shows, with
// what identifies their participants, and each event's in code order; links (submission, track)
// give their tracks, names the tracks' names.
func (r *Service) submissionFacts(ctx context.Context, eventIDs []string, names map[string]string,
	links [][2]string) (map[string]*submissionFacts, map[string][]string, error) {
	facts := map[string]*submissionFacts{}
	order := map[string][]string{}
	err := eachRowArgs(ctx, r.sql(ctx), wsSubmissionsSQL, []any{eventIDs}, func(scan func(...any) error) error {
		var event, id, code, title, description, status string
		var submitted time.Time
		var cfp bool
		var contactID, first, last, email, role *string
		var company, headshot, linkedin, twitter, website *string
		if err := scan(&event, &id, &code, &title, &description, &status, &submitted, &cfp, &contactID, &first, &last, &company,
			&email, &headshot, &linkedin, &twitter, &website, &role); err != nil {
			return err
		}
		f, ok := facts[id]
		if !ok {
			f = &submissionFacts{cfp: cfp, summary: &model.EvaluationSubmission{ID: id, Code: code, Title: title, Description: description,
				Status: model.SubmissionStatus(status), SubmittedAt: scalar.At(submitted), TrackIds: []string{}, TrackNames: []string{},
				Participants: []*model.EvaluationParticipant{}}}
			facts[id] = f
			order[event] = append(order[event], id)
		}
		if contactID == nil {
			return nil
		}
		name := fullName(*first, *last)
		f.summary.Participants = append(f.summary.Participants, &model.EvaluationParticipant{
			Name: name, Role: *role, ContactID: contactID, HeadshotURL: headshot})
		f.identity = append(f.identity, name, *first, *last, *email)
		for _, v := range []*string{company, linkedin, twitter, website} {
			if v != nil {
				f.identity = append(f.identity, *v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, l := range links {
		if f, ok := facts[l[0]]; ok {
			f.summary.TrackIds = append(f.summary.TrackIds, l[1])
			f.summary.TrackNames = append(f.summary.TrackNames, names[l[1]])
		}
	}
	return facts, order, nil
}

// blindSummary is the summary a blind round shows: participants become "Speaker n" without
// contact or headshot, and their names, companies, emails and profile URLs are redacted from the
// title and description.
func (f *submissionFacts) blindSummary() *model.EvaluationSubmission {
	if f.blind != nil {
		return f.blind
	}
	s := *f.summary
	s.Title, s.Description = redact(s.Title, f.identity), redact(s.Description, f.identity)
	s.Participants = make([]*model.EvaluationParticipant, len(f.summary.Participants))
	for i, p := range f.summary.Participants {
		s.Participants[i] = &model.EvaluationParticipant{Name: fmt.Sprintf("Speaker %d", i+1), Role: p.Role}
	}
	f.blind = &s
	return f.blind
}

// redacted replaces what identifies a participant.
const redacted = "[redacted]"

// redact replaces every identity value in text, ignoring case. Values are matched as whole words
// where they begin or end with a letter or digit, so a speaker called "Al" leaves "Also" alone;
// longer values go first, so a full name is replaced before its parts. Values shorter than two
// characters are not worth hiding and would mangle the text.
func redact(text string, identity []string) string {
	values := slices.Clone(identity)
	slices.SortFunc(values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, v := range slices.Compact(values) {
		v = strings.TrimSpace(v)
		if utf8.RuneCountInString(v) < 2 {
			continue
		}
		pattern := regexp.QuoteMeta(v)
		if first, _ := utf8.DecodeRuneInString(v); isWordRune(first) {
			pattern = `\b` + pattern
		}
		if last, _ := utf8.DecodeLastRuneInString(v); isWordRune(last) {
			pattern += `\b`
		}
		text = regexp.MustCompile(`(?i)`+pattern).ReplaceAllLiteralString(text, redacted)
	}
	return text
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// result computes a submission's result in a round from its reviews (docs/rest-api.md: "Result per
// submission").
func result(s *model.EvaluationSubmission, reviews []*model.HumanReview, criteria map[string]*model.Criterion) *model.ReviewResultRow {
	row := &model.ReviewResultRow{Submission: s, HumanReviews: nonNilSlice(reviews), ReviewerCount: len(reviews)}
	var scores []weighted
	var recommendations []string
	for _, h := range reviews {
		if h.Assignment.Status != model.ReviewAssignmentStatusCompleted {
			continue
		}
		row.CompletedCount++
		for _, a := range h.Answers {
			switch {
			case a.Type == model.ReviewCriterionTypeNumeric && a.NumericValue != nil:
				if c, ok := criteria[a.CriterionID]; ok {
					scores = append(scores, weighted{value: *a.NumericValue, weight: c.Weight})
				}
			case a.Type == model.ReviewCriterionTypeDropdown && a.OptionValue != nil:
				if !slices.Contains(recommendations, *a.OptionValue) {
					recommendations = append(recommendations, *a.OptionValue)
				}
			}
		}
	}
	row.WeightedAggregate = weightedAggregate(scores)
	if len(recommendations) > 0 {
		row.Recommendation = new(strings.Join(recommendations, ", "))
	}
	return row
}

// weighted is a numeric answer with its criterion's weight.
type weighted struct{ value, weight float64 }

// weightedAggregate is Σ(value × weight) / Σ(weight) rounded to 2 decimals (half up), or nil
// without scores: 4 and 2 weighted 2 and 1 give 3.33.
func weightedAggregate(scores []weighted) *float64 {
	var sum, weights float64
	for _, s := range scores {
		sum += s.value * s.weight
	}
	for _, s := range scores {
		weights += s.weight
	}
	if weights == 0 {
		return nil
	}
	v := roundHalfUp(sum/weights*100) / 100
	return &v
}

// roundHalfUp rounds to the nearest integer, halves towards +∞ (as JavaScript's Math.round, which
// the original API used).
func roundHalfUp(x float64) float64 { return math.Floor(x + 0.5) }

// progress computes each reviewer's progress (docs/rest-api.md: "Progress per reviewer").
func progress(reviewers []*model.Reviewer, assignments []*model.ReviewAssignmentRecord) []*model.ReviewProgressRow {
	rows := make([]*model.ReviewProgressRow, len(reviewers))
	byMember := make(map[string]*model.ReviewProgressRow, len(reviewers))
	for i, rv := range reviewers {
		rows[i] = &model.ReviewProgressRow{EventMemberID: rv.Member.EventMemberID, Name: rv.Name, Email: rv.Email}
		byMember[rv.Member.EventMemberID] = rows[i]
	}
	for _, a := range assignments {
		p, ok := byMember[a.EventMemberID]
		if !ok {
			continue
		}
		p.Assigned++
		switch a.Status {
		case model.ReviewAssignmentStatusCompleted:
			p.Completed++
		case model.ReviewAssignmentStatusRecused:
			p.Recused++
		}
	}
	for _, p := range rows {
		p.Remaining = p.Assigned - p.Completed - p.Recused
		if required := p.Assigned - p.Recused; required > 0 {
			p.Percentage = int(roundHalfUp(float64(p.Completed) / float64(required) * 100))
		}
	}
	return rows
}

// aiResultRow is an AI result with the name of the user who overrode it.
type aiResultRow struct {
	result           *model.AIResult
	overriddenByName *string
}

// aiResults loads the AI results of the events' rounds (or one), by round and submission.
func (r *Service) aiResults(ctx context.Context, eventIDs []string, roundID string) (map[[2]string]aiResultRow, error) {
	out := map[[2]string]aiResultRow{}
	err := eachRowArgs(ctx, r.sql(ctx), wsAIResultsSQL, []any{eventIDs, roundID}, func(scan func(...any) error) error {
		a, name, err := scanAIResult(scan)
		if err != nil {
			return err
		}
		out[[2]string{a.RoundID, a.SubmissionID}] = aiResultRow{result: a, overriddenByName: name}
		return nil
	})
	return out, err
}

// scanAIResult reads the columns of wsAIResultsSQL.
func scanAIResult(scan func(...any) error) (*model.AIResult, *string, error) {
	a := &model.AIResult{}
	var created, updated time.Time
	var overriddenAt *time.Time
	var name *string
	if err := scan(&a.ID, &created, &updated, &a.RoundID, &a.SubmissionID, &a.Score, &a.Reasoning, &a.Provider, &a.Model,
		&a.OverriddenScore, &a.OverrideReason, &a.OverriddenByUserID, &a.OverriddenByAPIKeyID, &overriddenAt, &name); err != nil {
		return nil, nil, err
	}
	a.CreatedAt, a.UpdatedAt, a.OverriddenAt = scalar.At(created), scalar.At(updated), scalar.AtPtr(overriddenAt)
	return a, name, nil
}

// RoundView loads one round of the event with its workspace.
func (r *Service) RoundView(ctx context.Context, eventID, roundID string) (*model.RoundView, error) {
	if !pid.Plausible(roundID) {
		return nil, errRoundNotFound
	}
	ws, err := r.evaluation(ctx, eventID, roundID)
	if err != nil {
		return nil, err
	}
	if len(ws.Rounds) == 0 {
		return nil, errRoundNotFound
	}
	return ws.Rounds[0], nil
}

// RoundAssignments filters a round's assignments by status.
func RoundAssignments(v *model.RoundView, status *model.ReviewAssignmentStatus) []*model.ReviewAssignmentRecord {
	if status == nil {
		return v.Assignments
	}
	out := []*model.ReviewAssignmentRecord{}
	for _, a := range v.Assignments {
		if a.Status == *status {
			out = append(out, a)
		}
	}
	return out
}

// SortResults orders a round's results. Rows without the value sorted by come last in either
// direction; ties keep code order.
func SortResults(rows []*model.ReviewResultRow, order *model.ReviewResultOrder) []*model.ReviewResultRow {
	if order == nil || order.Field == model.ReviewResultOrderFieldCode {
		if order != nil && order.Direction == "DESC" {
			out := slices.Clone(rows)
			slices.Reverse(out)
			return out
		}
		return rows
	}
	value := func(row *model.ReviewResultRow) *float64 {
		switch order.Field {
		case model.ReviewResultOrderFieldWeightedAggregate:
			return row.WeightedAggregate
		case model.ReviewResultOrderFieldCompletedCount:
			v := float64(row.CompletedCount)
			return &v
		default:
			if row.AiResult == nil {
				return nil
			}
			if row.AiResult.OverriddenScore != nil {
				return row.AiResult.OverriddenScore
			}
			return &row.AiResult.Score
		}
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b *model.ReviewResultRow) int {
		va, vb := value(a), value(b)
		switch {
		case va == nil && vb == nil:
			return 0
		case va == nil:
			return 1
		case vb == nil:
			return -1
		}
		if order.Direction == "DESC" {
			return cmp.Compare(*vb, *va)
		}
		return cmp.Compare(*va, *vb)
	})
	return out
}

// assignmentIndex returns the index of an assignment's round, loading the round's workspace (once
// per request) when the assignment was not read with it.
func (r *Service) assignmentIndex(ctx context.Context, a *model.ReviewAssignmentRecord) (*model.RoundIndex, error) {
	if a.Index != nil {
		return a.Index, nil
	}
	idx, err := r.loaders(ctx).rounds.Load(ctx, a.RoundID)
	if err != nil {
		return nil, err
	}
	if idx == nil {
		return nil, errRoundNotFound
	}
	a.Index = idx
	return idx, nil
}

// AssignmentSubmission answers ReviewAssignmentRecord.submission.
func (r *Service) AssignmentSubmission(ctx context.Context, a *model.ReviewAssignmentRecord) (*model.EvaluationSubmission, error) {
	idx, err := r.assignmentIndex(ctx, a)
	if err != nil {
		return nil, err
	}
	return idx.Submissions[a.SubmissionID], nil
}

// AssignmentReviewer answers ReviewAssignmentRecord.reviewer.
func (r *Service) AssignmentReviewer(ctx context.Context, a *model.ReviewAssignmentRecord) (*model.ReviewerIdentity, error) {
	idx, err := r.assignmentIndex(ctx, a)
	if err != nil {
		return nil, err
	}
	return idx.Reviewers[a.EventMemberID], nil
}

// AssignmentAnswers answers ReviewAssignmentRecord.answers.
func (r *Service) AssignmentAnswers(ctx context.Context, a *model.ReviewAssignmentRecord) ([]*model.ReviewAnswerView, error) {
	idx, err := r.assignmentIndex(ctx, a)
	if err != nil {
		return nil, err
	}
	return answersView(idx.Reviews[a.ID]), nil
}
