package operation

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/eventmember"
	"github.com/podium/podium/ent/reviewassignment"
	"github.com/podium/podium/ent/reviewroundmember"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

// A reviewer's user record, organization membership and event membership are each created once,
// whoever adds them and however many requests race: the statements insert or keep what exists.
const (
	upsertUserSQL = `
INSERT INTO users (id, created_at, updated_at, email, name) VALUES ($1, now(), now(), $2, $3)
ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
RETURNING id, name`
	addOrgMemberSQL = `
INSERT INTO organization_members (id, created_at, updated_at, role, organization_id, user_id)
VALUES ($1, now(), now(), 'member', $2, $3) ON CONFLICT (organization_id, user_id) DO NOTHING`
	addEventMemberSQL = `
INSERT INTO event_members (id, created_at, updated_at, role, event_id, user_id)
VALUES ($1, now(), now(), 'reviewer', $2, $3) ON CONFLICT (event_id, user_id) DO NOTHING`
	eventMemberIDSQL = `SELECT id FROM event_members WHERE event_id = $1 AND user_id = $2`
)

// reviewerPath is where review emails link to when no access path was given.
const reviewerPath = "/reviews"

// AddReviewer adds a reviewer to a round's pool by email, creating their user record and event
// membership when new, or updates their cap (docs/rest-api.md: POST …/members). A reviewer new to the
// pool is emailed an invitation.
func (r *Service) AddReviewer(ctx context.Context, eventID, roundID string, in model.AddReviewerInput) (*model.ReviewerProvisioned, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReviewerProvisioned, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, true)
		if err != nil {
			return nil, err
		}
		if in.AssignmentCap != nil && *in.AssignmentCap < 1 {
			return nil, apperr.Invalid("Assignment cap must be a whole number of at least 1")
		}
		addr, err := normalizeEmail(in.Email)
		if err != nil {
			return nil, err
		}
		accessPath := strings.TrimSpace(in.AccessPath)
		if !validAccessPath(accessPath) {
			return nil, apperr.Invalid("accessPath must be a path starting with / or an https URL")
		}

		newName := strings.SplitN(addr, "@", 2)[0]
		if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
			newName = strings.TrimSpace(*in.Name)
			if utf8.RuneCountInString(newName) > 200 {
				return nil, apperr.Invalid("A reviewer's name must be at most 200 characters")
			}
		}

		q := r.sql(ctx)
		var userID, name string
		if err := q.QueryRow(ctx, upsertUserSQL, pid.New("usr"), addr, newName).Scan(&userID, &name); err != nil {
			return nil, err
		}
		if _, err := q.Exec(ctx, addOrgMemberSQL, pid.New("om"), ev.OrganizationID, userID); err != nil {
			return nil, err
		}
		if _, err := q.Exec(ctx, addEventMemberSQL, pid.New("emb"), ev.ID, userID); err != nil {
			return nil, err
		}
		var memberID string
		if err := q.QueryRow(ctx, eventMemberIDSQL, ev.ID, userID).Scan(&memberID); err != nil {
			return nil, err
		}

		// The round is locked, so the pool changes one request at a time.
		m, err := c.ReviewRoundMember.Query().
			Where(reviewroundmember.RoundID(rd.ID), reviewroundmember.EventMemberID(memberID)).Only(ctx)
		alreadyInPool := err == nil
		switch {
		case alreadyInPool:
			m, err = m.Update().SetNillableAssignmentCap(in.AssignmentCap).Save(ctx)
			if err == nil && in.AssignmentCap == nil {
				m, err = m.Update().ClearAssignmentCap().Save(ctx)
			}
		case ent.IsNotFound(err):
			m, err = c.ReviewRoundMember.Create().SetRoundID(rd.ID).SetEventMemberID(memberID).
				SetNillableAssignmentCap(in.AssignmentCap).Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		out := &model.ReviewerProvisioned{
			Reviewer:   &model.Reviewer{Member: toRoundMember(m), Name: name, Email: addr},
			AccessPath: accessPath, AlreadyInPool: alreadyInPool,
		}
		if alreadyInPool {
			return out, nil
		}
		// The invitation says how much there is to review and by when, as the round's workspace
		// counts it: the event's proposals from its forms, less drafts and withdrawn ones.
		proposals, err := c.Submission.Query().Where(submission.EventID(ev.ID), fromCFP(),
			submission.StatusNotIn(submission.StatusDraft, submission.StatusWithdrawn)).Count(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := r.Outbox.Queue(ctx, email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: addr,
			Template: email.ReviewerInvitation,
			Data: email.Data{EventName: ev.Name, FirstName: name, RoundName: rd.Name, Path: accessPath, Count: proposals,
				When: rd.ClosesAt.In(EventLocation(ev.Timezone)).Format("Monday 2 January 2006, 15:04 MST")}})
		if err != nil {
			return nil, err
		}
		out.InvitationLogged, out.InvitationLogID = true, new(rows[0].ID)
		return out, nil
	})
}

// validAccessPath accepts a path under PUBLIC_URL or an absolute http(s) URL.
func validAccessPath(p string) bool {
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
		return !strings.ContainsAny(p, " \t\r\n")
	}
	u, err := url.Parse(p)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func toRoundMember(m *ent.ReviewRoundMember) *model.RoundMember {
	return &model.RoundMember{ID: m.ID, CreatedAt: scalar.At(m.CreatedAt), UpdatedAt: scalar.At(m.UpdatedAt), RoundID: m.RoundID,
		EventMemberID: m.EventMemberID, AssignmentCap: m.AssignmentCap}
}

// EventReviewers lists the event's reviewers — its members with the reviewer role, in every
// round or none — by name, then email: the people a round's pool is chosen from.
func (r *Service) EventReviewers(ctx context.Context, eventID string) ([]*model.ReviewerIdentity, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	out := []*model.ReviewerIdentity{}
	err = eachRowArgs(ctx, r.sql(ctx), `
SELECT em.id, u.name, u.email FROM event_members em JOIN users u ON u.id = em.user_id
WHERE em.event_id = $1 AND em.role = 'reviewer' ORDER BY u.name, u.email, em.id`, []any{ev.ID},
		func(scan func(...any) error) error {
			rv := &model.ReviewerIdentity{}
			if err := scan(&rv.EventMemberID, &rv.Name, &rv.Email); err != nil {
				return err
			}
			out = append(out, rv)
			return nil
		})
	return out, err
}

// ReviewerTracks lists every member of the event with their reviewer tracks; the events of one
// request are read together (loaders).
func (r *Service) ReviewerTracks(ctx context.Context, eventID string) ([]*model.ReviewerTrackSet, error) {
	return r.loaders(ctx).reviewerTracks.Load(ctx, eventID)
}

// eventsReviewerTracks lists, for each of the events, every member with their reviewer tracks,
// by member id.
func (r *Service) eventsReviewerTracks(ctx context.Context, events []string) (map[string][]*model.ReviewerTrackSet, error) {
	out := make(map[string][]*model.ReviewerTrackSet, len(events))
	for _, id := range events {
		out[id] = []*model.ReviewerTrackSet{}
	}
	err := eachRowArgs(ctx, r.sql(ctx), `
SELECT em.event_id, em.id, emt.track_id FROM event_members em
LEFT JOIN event_member_tracks emt ON emt.event_member_id = em.id
WHERE em.event_id = ANY($1) ORDER BY em.event_id, em.id, emt.track_id`, []any{events}, func(scan func(...any) error) error {
		var eventID, memberID string
		var trackID *string
		if err := scan(&eventID, &memberID, &trackID); err != nil {
			return err
		}
		list := out[eventID]
		if len(list) == 0 || list[len(list)-1].EventMemberID != memberID {
			list = append(list, &model.ReviewerTrackSet{EventMemberID: memberID, TrackIds: []string{}})
			out[eventID] = list
		}
		if trackID != nil {
			last := list[len(list)-1]
			last.TrackIds = append(last.TrackIds, *trackID)
		}
		return nil
	})
	return out, err
}

// SetReviewerTracks replaces a member's reviewer tracks.
func (r *Service) SetReviewerTracks(ctx context.Context, eventID, memberID string, in model.SetReviewerTracksInput) (*model.ReviewerTrackSet, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReviewerTrackSet, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		notFound := apperr.NotFound("Event member")
		if !pid.Plausible(memberID) {
			return nil, notFound
		}
		m, err := c.EventMember.Query().Where(eventmember.ID(memberID), eventmember.EventID(ev.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, notFound
		}
		if err != nil {
			return nil, err
		}
		ids, err := tracksOf(ctx, c, ev.ID, in.TrackIds)
		if err != nil {
			return nil, err
		}
		if err := m.Update().ClearTracks().AddTrackIDs(ids...).Exec(ctx); err != nil {
			return nil, err
		}
		return &model.ReviewerTrackSet{EventMemberID: m.ID, TrackIds: ids}, nil
	})
}

// tracksOf de-duplicates and sorts track ids, all of which must be tracks of the event.
func tracksOf(ctx context.Context, c *ent.Client, eventID string, in []string) ([]string, error) {
	ids := slices.Compact(slices.Sorted(slices.Values(in)))
	if len(ids) == 0 {
		return []string{}, nil
	}
	n, err := c.Track.Query().Where(track.IDIn(ids...), track.EventID(eventID)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n != len(ids) {
		return nil, apperr.Invalid("Choose tracks from this event")
	}
	return ids, nil
}

// SendReviewReminders emails each of the given reviewers of the round who has pending assignments
// how many wait for them (docs/rest-api.md: POST …/reminders).
func (r *Service) SendReviewReminders(ctx context.Context, eventID, roundID string, in model.SendReviewRemindersInput) (*model.ReviewRemindersResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ReviewRemindersResult, error) {
		c, ev, rd, err := r.eventRound(ctx, eventID, roundID, false)
		if err != nil {
			return nil, err
		}
		ids := slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(in.EventMemberIds))), func(id string) bool { return !pid.Plausible(id) })
		res := &model.ReviewRemindersResult{}
		if len(ids) == 0 {
			return res, nil
		}
		members, err := c.ReviewRoundMember.Query().
			Where(reviewroundmember.RoundID(rd.ID), reviewroundmember.EventMemberIDIn(ids...)).
			WithEventMember(func(q *ent.EventMemberQuery) { q.WithUser() }).
			Order(ent.Asc(reviewroundmember.FieldEventMemberID)).All(ctx)
		if err != nil {
			return nil, err
		}
		var counts []struct {
			MemberID string `json:"event_member_id"`
			Count    int    `json:"count"`
		}
		err = c.ReviewAssignment.Query().
			Where(reviewassignment.RoundID(rd.ID), reviewassignment.StatusEQ(reviewassignment.StatusPending),
				reviewassignment.EventMemberIDIn(ids...)).
			GroupBy(reviewassignment.FieldEventMemberID).Aggregate(ent.Count()).Scan(ctx, &counts)
		if err != nil {
			return nil, err
		}
		pending := map[string]int{}
		for _, p := range counts {
			pending[p.MemberID] = p.Count
		}
		when := closesAt(rd.ClosesAt, ev.Timezone)
		var batch []email.Email
		for _, m := range members {
			n := pending[m.EventMemberID]
			if n == 0 {
				continue
			}
			u := m.Edges.EventMember.Edges.User
			batch = append(batch, email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: u.Email, Template: email.ReviewReminder,
				Data: email.Data{EventName: ev.Name, FirstName: u.Name, RoundName: rd.Name, Count: n, When: when, Path: reviewerPath}})
		}
		rows, err := r.Outbox.Queue(ctx, batch...)
		if err != nil {
			return nil, err
		}
		res.Queued = len(rows)
		return res, nil
	})
}

// closesAt formats a round's deadline in the event's time zone.
func closesAt(t time.Time, tz string) string {
	return t.In(EventLocation(tz)).Format("Jan 2, 2006 at 3:04 PM MST")
}
