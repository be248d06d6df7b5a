package operation

import (
	"context"
	"strings"

	"github.com/podium/podium/graph/model"
)

// What the public sees of a session and of a speaker (docs/profile-review.md "What the public
// sees"). Every public surface reads them here: the program and the widgets built on it
// (program.go), the agenda publication that the public agenda feeds serve (agenda.go), and the
// calendar invitations. They read the approved content only — approvedSnapshot and
// approvedProfile — never the live columns, so a change waiting for review is invisible whatever
// path wrote it (the portal, a form, an import, a direct write), and a rejected one is gone.

// PublicContent is a session's content as the public sees it: the approved snapshot's.
type PublicContent struct {
	Title, Description string
	FormatID, LevelID  *string
}

// publicContentOf reads a session's approved snapshot. ok is false when nothing of the session
// is approved — accepted for review first, or accepted before acceptance recorded its content —
// and such a session is on no public surface.
func publicContentOf(snapshot map[string]any) (PublicContent, bool) {
	title, _ := snapshot["title"].(string)
	if strings.TrimSpace(title) == "" {
		return PublicContent{}, false
	}
	description, _ := snapshot["description"].(string)
	return PublicContent{Title: title, Description: description, FormatID: snapshotRef(snapshot, "formatId"),
		LevelID: snapshotRef(snapshot, "levelId")}, true
}

// snapshotRef is snapshot[key] when it is a string; anything else (null, missing) is none.
func snapshotRef(snapshot map[string]any, key string) *string {
	if s, ok := snapshot[key].(string); ok {
		return &s
	}
	return nil
}

// publicSpeakerOf is a speaker as the public sees them: name, bio and photo from their approved
// profile; title and company, which only organizers set, as they are. ok is false when the
// approved profile holds no name (placeholderName): such a speaker is left out of every public
// list until organizers approve a real one.
func publicSpeakerOf(id, email string, title, company *string, approved map[string]any) (*model.ProgramSpeaker, bool) {
	first, _ := approved["firstName"].(string)
	last, _ := approved["lastName"].(string)
	if placeholderName(first, last, email) {
		return nil, false
	}
	if strings.TrimSpace(last) == "-" {
		last = ""
	}
	return &model.ProgramSpeaker{ID: id, FirstName: strings.TrimSpace(first), LastName: strings.TrimSpace(last),
		Title: title, Company: company, Bio: snapshotRef(approved, "bio"), HeadshotURL: snapshotRef(approved, "headshotUrl"),
		HeadshotKey: snapshotRef(approved, "headshotKey")}, true
}

// placeholderName reports whether a first and last name are no name at all: an empty first name,
// an address, or the local part of the contact's own address with "-" or nothing as last name
// (what the call for proposals once stored for a speaker who typed no name). The public never
// sees an email address, not even part of one.
func placeholderName(first, last, email string) bool {
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	local, _, _ := strings.Cut(email, "@")
	return first == "" || strings.Contains(first, "@") || strings.Contains(last, "@") ||
		(strings.EqualFold(first, strings.TrimSpace(local)) && (last == "" || last == "-"))
}

// publicSession is an active session as the public sees it, with its publishable speakers in
// their order.
type publicSession struct {
	ID string
	PublicContent
	Speakers []*model.ProgramSpeaker
}

// The public view reads two statements, whatever the number of sessions: the approved snapshots
// of the active sessions (all of the event's when $2 is null), then their speakers. An acceptance
// not yet announced to its speakers is no active session for the public (docs/decisions.md).
const (
	publicSessionsSQL = `
SELECT id, approved_snapshot
FROM submissions s
WHERE event_id = $1 AND status = 'accepted' AND cancelled_at IS NULL AND ` + informedSQL + `
  AND ($2::varchar[] IS NULL OR id = ANY($2::varchar[]))`

	publicSpeakersSQL = `
SELECT p.submission_id, c.id, c.email, c.title, c.company, c.approved_profile
FROM submission_participants p JOIN contacts c ON c.id = p.contact_id
WHERE p.submission_id = ANY($1)
ORDER BY p.submission_id, p.position, c.id`
)

// publicSessions is the public view of the event's active sessions among ids, or of all of them
// when ids is nil, by id. A session with nothing approved is left out; so is a speaker without an
// approved name.
func (r *Service) publicSessions(ctx context.Context, eventID string, ids []string) (map[string]*publicSession, error) {
	q := r.sql(ctx)
	var only any
	if ids != nil {
		only = ids
	}
	out := map[string]*publicSession{}
	var live []string
	err := eachRowArgs(ctx, q, publicSessionsSQL, []any{eventID, only}, func(scan func(...any) error) error {
		var id string
		var snapshot map[string]any
		if err := scan(&id, &snapshot); err != nil {
			return err
		}
		if c, ok := publicContentOf(snapshot); ok {
			out[id] = &publicSession{ID: id, PublicContent: c, Speakers: []*model.ProgramSpeaker{}}
			live = append(live, id)
		}
		return nil
	})
	if err != nil || len(live) == 0 {
		return out, err
	}
	err = eachRowArgs(ctx, q, publicSpeakersSQL, []any{live}, func(scan func(...any) error) error {
		var sessionID, id, email string
		var title, company *string
		var approved map[string]any
		if err := scan(&sessionID, &id, &email, &title, &company, &approved); err != nil {
			return err
		}
		if sp, ok := publicSpeakerOf(id, email, title, company, approved); ok {
			out[sessionID].Speakers = append(out[sessionID].Speakers, sp)
		}
		return nil
	})
	return out, err
}

// invitationContent is the title and description a calendar invitation carries: the approved
// ones, like the public feeds that share its UID; for a session with nothing approved yet, which
// no public feed shows, the session's own, since the invitation goes to its speakers only.
func invitationContent(title, description string, snapshot map[string]any) (string, string) {
	if c, ok := publicContentOf(snapshot); ok {
		return c.Title, c.Description
	}
	return title, description
}
