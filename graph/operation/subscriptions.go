package operation

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/jobs"
)

// Live changes (docs/subscriptions.md). An operation that changes what organizers watch calls
// change in its transaction; jobs.EmitChange writes it and notifies every process at the commit,
// where the Feed hands it to the subscriptions of EventChanges and MyReviewChanges.

// Change types beside the webhook event types, which are change types too (emit records both).
const (
	changeSessionReadiness = "session.readiness_changed"
	changeReviewAssigned   = "review.assigned"
	changeReviewRecused    = "review.recused"
	changeReviewUnassigned = "review.unassigned"
	changeAgenda           = "agenda.changed"
	changeResync           = "resync.required"
)

// ChangeType is the GraphQL enum value of a change type: "session.cancelled" is SESSION_CANCELLED.
func ChangeType(t string) model.EventChangeType {
	return model.EventChangeType(strings.ToUpper(strings.ReplaceAll(t, ".", "_")))
}

// changeTypeName is the change type of a GraphQL enum value, the inverse of ChangeType.
func changeTypeName(t model.EventChangeType) string {
	s := strings.ToLower(string(t))
	return strings.Replace(s, "_", ".", 1)
}

// change records a change to the event eventID in the transaction of ctx. data holds the ids it
// concerns and its new status by their GraphQL names. System work (seeds) records nothing.
func (r *Service) change(ctx context.Context, changeType, eventID string, data map[string]string) error {
	org, tx, err := recordingTx(ctx)
	if org == "" || err != nil {
		return err
	}
	return jobs.EmitChange(ctx, tx, org, eventID, changeType, data)
}

// recordingTx is the organization of ctx and its transaction, where webhook events and changes
// are recorded; org is "" for system work (seeds, migrations), which records nothing.
func recordingTx(ctx context.Context) (org string, tx pgx.Tx, err error) {
	org = viewer.OrganizationID(ctx)
	if org == "" {
		return "", nil, nil
	}
	t := dbx.TxFromContext(ctx)
	if t == nil {
		return "", nil, errNoTransaction
	}
	return org, t.PGX(), nil
}

// changeOfHook is the change a webhook event records: the same type, its ids, and its status.
func changeOfHook(data hookData) (string, map[string]string) {
	out := map[string]string{}
	event, _ := data["eventId"].(string)
	for _, k := range []string{"sessionId", "submissionId", "speakerId", "roundId", "assignmentId", "reviewerId", "emailId"} {
		if v := hookString(data[k]); v != "" {
			out[k] = v
		}
	}
	for _, k := range []string{"status", "cause", "workflowStatus"} {
		if v := hookString(data[k]); v != "" {
			out["status"] = v
		}
	}
	return event, out
}

// maxReplay bounds the changes a resuming subscription reads back; beyond it the client
// refetches instead (RESYNC_REQUIRED).
const maxReplay = 10_000

// EventChanges subscribes the caller to the changes of the event eventID (the eventChanges
// subscription): the changes since after first when given, then each as it commits, of the given
// types (all when empty). The channel closes when ctx ends, when the caller may no longer read
// the event, when the subscriber falls too far behind, or when the process shuts down.
func (r *Service) EventChanges(ctx context.Context, eventID string, after *string, types []model.EventChangeType) (<-chan *model.EventChange, error) {
	if r.Feed == nil {
		return nil, apperr.Unavailable()
	}
	// gqlgen runs no root field interceptor for a subscription: the rule is checked here.
	if err := access.RootField(ctx, "Subscription", "eventChanges"); err != nil {
		return nil, err
	}
	ev, err := r.Event(ctx, eventID)
	if err != nil {
		return nil, err
	}
	from, err := parseCursor(after)
	if err != nil {
		return nil, err
	}
	s := &subscriber{eventID: ev.ID, changes: make(chan *jobs.Change, r.Feed.limits.Buffer), ended: make(chan struct{})}
	if len(types) > 0 {
		s.types = map[string]bool{}
		for _, t := range types {
			s.types[changeTypeName(t)] = true
		}
	}
	if err := r.Feed.add(ctx, s); err != nil {
		return nil, err
	}
	replay := func(ctx context.Context, from int64) ([]jobs.Change, error) {
		return r.readChanges(ctx, `event_id = $1`, []any{ev.ID}, from)
	}
	recheck := func(ctx context.Context) error {
		_, err := r.Event(ctx, ev.ID)
		return err
	}
	out := make(chan *model.EventChange)
	go r.Feed.serve(ctx, s, from, replay, recheck, func(c jobs.Change) bool {
		return send(ctx, s, out, eventChangeOf(c))
	}, func() { close(out) })
	return out, nil
}

// MyReviewChanges subscribes the caller to changes of their own review assignments, in every
// event where they review (the myReviewChanges subscription). An API key and a person who reviews
// nothing get a channel that stays open and receives nothing.
func (r *Service) MyReviewChanges(ctx context.Context, after *string) (<-chan *model.MyReviewChange, error) {
	if r.Feed == nil {
		return nil, apperr.Unavailable()
	}
	if err := access.RootField(ctx, "Subscription", "myReviewChanges"); err != nil {
		return nil, err
	}
	from, err := parseCursor(after)
	if err != nil {
		return nil, err
	}
	reviewing := reviewingOf(ctx)
	members := []string{}
	for _, ids := range reviewing {
		members = append(members, ids...)
	}
	slices.Sort(members)
	s := &subscriber{members: members, changes: make(chan *jobs.Change, r.Feed.limits.Buffer), ended: make(chan struct{})}
	if err := r.Feed.add(ctx, s); err != nil {
		return nil, err
	}
	replay := func(ctx context.Context, from int64) ([]jobs.Change, error) {
		var all []jobs.Change
		for _, org := range slices.Sorted(maps.Keys(reviewing)) {
			cs, err := r.readChanges(inOrganization(ctx, org), `type LIKE 'review.%' AND data->>'reviewerId' = ANY($1)`,
				[]any{reviewing[org]}, from)
			if err != nil {
				return nil, err
			}
			all = append(all, cs...)
		}
		slices.SortFunc(all, func(a, b jobs.Change) int { return cmp.Compare(a.ID, b.ID) })
		return all, nil
	}
	out := make(chan *model.MyReviewChange)
	go r.Feed.serve(ctx, s, from, replay, nil, func(c jobs.Change) bool {
		return send(ctx, s, out, myReviewChangeOf(c))
	}, func() { close(out) })
	return out, nil
}

// serve runs one subscription: the changes since from (when given) read back by replay, then the
// live ones, each handed to deliver, skipping those already delivered. recheck, when set, runs
// every Limits.Recheck and ends the subscription when it fails. finish runs at the end.
func (f *Feed) serve(ctx context.Context, s *subscriber, from *int64,
	replay func(context.Context, int64) ([]jobs.Change, error), recheck func(context.Context) error,
	deliver func(jobs.Change) bool, finish func()) {
	defer finish()
	defer f.drop(s)
	// A resuming subscription may be offered, live, a change it read back: it skips those. One that
	// does not resume gets each change once (the feed offers each once).
	seen := newRecent(4 * f.limits.Buffer)
	if from == nil {
		seen = nil
	}
	if from != nil {
		missed, resync, err := f.resume(ctx, *from, replay)
		if err != nil {
			f.log.ErrorContext(ctx, "change feed: resume failed", "err", err)
			resync = true
		}
		if resync {
			if !deliver(jobs.Change{ID: *from, EventID: s.eventID, Type: changeResync, At: time.Now().UTC()}) {
				return
			}
		}
		for _, c := range missed {
			if s.types != nil && !s.types[c.Type] {
				continue
			}
			if seen.add(c.ID) && !deliver(c) {
				return
			}
		}
	}
	caller, _ := ctx.Value(callerCheckKey{}).(CallerCheck)
	if caller != nil {
		inner := recheck
		recheck = func(ctx context.Context) error {
			fresh, err := caller(ctx)
			if err != nil {
				return err
			}
			if !sameCaller(viewer.FromContext(ctx), fresh) {
				return apperr.Forbidden("Your role changed: subscribe again")
			}
			if inner != nil {
				return inner(ctx)
			}
			return nil
		}
	}
	var tick <-chan time.Time
	if recheck != nil && f.limits.Recheck > 0 {
		t := time.NewTicker(f.limits.Recheck)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ended:
			// Deliver what was already queued when the feed closes; a slow subscriber gets nothing
			// more.
			if errors.Is(s.err, ErrFeedClosed) {
				for {
					select {
					case c := <-s.changes:
						if seen.add(c.ID) && !deliver(*c) {
							return
						}
					default:
						return
					}
				}
			}
			return
		case <-tick:
			if err := recheck(ctx); err != nil {
				return
			}
		case c := <-s.changes:
			if seen.add(c.ID) && !deliver(*c) {
				return
			}
		}
	}
}

// sameCaller reports whether fresh, the caller authenticated again, holds the roles old held
// when the subscription started: the same organization and role, and the same reviewer
// memberships. A member removed from the organization, or a reviewer from an event, no longer
// does; the subscription then ends, and a new one gets what the caller holds now.
func sameCaller(old, fresh *viewer.Viewer) bool {
	if old == nil || fresh == nil {
		return old == fresh
	}
	if old.OrganizationID != fresh.OrganizationID || old.Role != fresh.Role || old.APIKeyID != fresh.APIKeyID {
		return false
	}
	reviewerOf := func(v *viewer.Viewer) []string {
		var ids []string
		for _, members := range reviewingOf(viewer.NewContext(context.Background(), v)) {
			ids = append(ids, members...)
		}
		slices.Sort(ids)
		return ids
	}
	return slices.Equal(reviewerOf(old), reviewerOf(fresh))
}

// callerCheckKey is the context key of WithCallerCheck's function.
type callerCheckKey struct{}

// CallerCheck authenticates a subscription's caller again, with the credential they came with.
type CallerCheck func(context.Context) (*viewer.Viewer, error)

// WithCallerCheck gives the subscriptions of ctx a check that their caller is still who they were
// — the API key not revoked, the browser session not ended, the same roles held — which they run
// every FeedLimits.Recheck, ending when it fails. The transport that authenticated the caller
// makes it.
func WithCallerCheck(ctx context.Context, check CallerCheck) context.Context {
	return context.WithValue(ctx, callerCheckKey{}, check)
}

// resume reads back the changes after from. It reaches back replayWindow before from for changes
// written before it and committed after it (a duplicate is skipped by the subscriber, or by the
// client on its cursor). resync reports that changes after from may be gone already (pruned), or
// that there are more than maxReplay.
func (f *Feed) resume(ctx context.Context, from int64, replay func(context.Context, int64) ([]jobs.Change, error)) ([]jobs.Change, bool, error) {
	var oldest int64
	sys := viewer.System(ctx, "change feed: the oldest change kept, for a resuming subscription")
	// With nothing kept, the oldest change there could be is the next one to be written: every
	// change up to the last written was pruned.
	if err := f.db.PoolFor(sys).QueryRow(sys, `SELECT coalesce((SELECT min(id) FROM event_changes),
		coalesce(pg_sequence_last_value(pg_get_serial_sequence('event_changes', 'id')), 0) + 1)`).Scan(&oldest); err != nil {
		return nil, false, err
	}
	if oldest > from+1 {
		return nil, true, nil
	}
	changes, err := replay(ctx, from)
	if err != nil {
		return nil, false, err
	}
	if len(changes) > maxReplay {
		return nil, true, nil
	}
	return changes, false, nil
}

// readChanges reads the changes matching where (args from $1) after from, reaching back
// replayWindow before it, oldest first, at most maxReplay+1.
func (r *Service) readChanges(ctx context.Context, where string, args []any, from int64) ([]jobs.Change, error) {
	n, w := strconv.Itoa(len(args)+1), strconv.Itoa(len(args)+2)
	rows, err := r.sql(ctx).Query(ctx, `SELECT id, organization_id, event_id, type, data, created_at FROM event_changes
		WHERE `+where+` AND (id > $`+n+` OR created_at >= (SELECT created_at FROM event_changes WHERE id = $`+n+`) - $`+w+`::interval)
		ORDER BY id LIMIT `+strconv.Itoa(maxReplay+1), append(args, from, replayWindow)...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanChange)
}

// parseCursor reads a subscription's after argument.
func parseCursor(after *string) (*int64, error) {
	if after == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*after, 10, 64)
	if err != nil || n < 0 {
		return nil, apperr.Invalid("after must be the cursor of a change")
	}
	return &n, nil
}

// send hands v to out, unless the subscription ends first.
func send[T any](ctx context.Context, s *subscriber, out chan<- T, v T) bool {
	select {
	case out <- v:
		return true
	case <-ctx.Done():
		return false
	case <-s.ended:
		return errors.Is(s.err, ErrFeedClosed) && trySend(out, v)
	}
}

// trySend hands v to out if it is read within a moment (the last changes of a closing feed).
func trySend[T any](out chan<- T, v T) bool {
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case out <- v:
		return true
	case <-t.C:
		return false
	}
}

// eventChangeOf presents c to an organizer.
func eventChangeOf(c jobs.Change) *model.EventChange {
	opt := func(k string) *string {
		if v, ok := c.Data[k]; ok && v != "" {
			return &v
		}
		return nil
	}
	return &model.EventChange{Cursor: strconv.FormatInt(c.ID, 10), Type: ChangeType(c.Type), At: c.At, EventID: c.EventID,
		SessionID: opt("sessionId"), SubmissionID: opt("submissionId"), SpeakerID: opt("speakerId"),
		RoundID: opt("roundId"), AssignmentID: opt("assignmentId"), ReviewerID: opt("reviewerId"),
		EmailID: opt("emailId"), BlockID: opt("blockId"), Status: opt("status"), Count: optInt(c.Data["count"])}
}

// optInt is a change's number, nil when it has none.
func optInt(s string) *int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return &n
}

// myReviewChangeOf presents c to its reviewer: the assignment, nothing about its submission.
func myReviewChangeOf(c jobs.Change) *model.MyReviewChange {
	out := &model.MyReviewChange{Cursor: strconv.FormatInt(c.ID, 10), Type: ChangeType(c.Type), At: c.At, EventID: c.EventID,
		Count: optInt(c.Data["count"])}
	if a := c.Data["assignmentId"]; a != "" {
		out.AssignmentID = &a
	}
	return out
}

// recent remembers the last ids seen, at most n, to skip a change seen twice (read back, then
// offered live). Its memory grows with the ids it holds, not with n; a nil recent holds none and
// takes every id as new.
type recent struct {
	n    int
	ids  map[int64]struct{}
	ring []int64
	next int
}

func newRecent(n int) *recent { return &recent{n: n} }

// add reports whether id is new, and remembers it.
func (r *recent) add(id int64) bool {
	if r == nil {
		return true
	}
	if _, ok := r.ids[id]; ok {
		return false
	}
	if r.ids == nil {
		r.ids = map[int64]struct{}{}
	}
	if len(r.ring) < r.n {
		r.ring = append(r.ring, id)
	} else {
		delete(r.ids, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % r.n
	}
	r.ids[id] = struct{}{}
	return true
}

// ChangedSession is the current state of the session a change concerns, read with the caller's
// access; nil when it concerns none or the session is gone.
func (r *Service) ChangedSession(ctx context.Context, c *model.EventChange) (*model.Session, error) {
	if c.SessionID == nil {
		return nil, nil
	}
	return goneIsNil(r.Session(ctx, c.EventID, *c.SessionID))
}

// ChangedSubmission is the current state of the submission a change concerns; nil when it
// concerns none or the submission is gone.
func (r *Service) ChangedSubmission(ctx context.Context, c *model.EventChange) (*model.Submission, error) {
	if c.SubmissionID == nil {
		return nil, nil
	}
	return goneIsNil(r.Submission(ctx, c.EventID, *c.SubmissionID))
}

// ChangedAssignment is the current state of the caller's assignment a change concerns, as
// myReviewAssignment presents it (blind rounds redacted); nil when it is gone.
func (r *Service) ChangedAssignment(ctx context.Context, c *model.MyReviewChange) (*model.MyReviewAssignment, error) {
	if c.AssignmentID == nil {
		return nil, nil
	}
	return goneIsNil(r.MyReviewAssignment(ctx, *c.AssignmentID))
}

// goneIsNil answers a not_found error as nil: what a change concerned may be gone by the time it
// is delivered.
func goneIsNil[T any](v *T, err error) (*T, error) {
	if e, ok := apperr.As(err); ok && e.Code == apperr.CodeNotFound {
		return nil, nil
	}
	return v, err
}
