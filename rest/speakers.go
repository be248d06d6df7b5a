package rest

import (
	"context"
	"strings"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// The speakers of an event: its directory and contact records (docs/rest-api.md §4 "Speakers").

func (a *API) listSpeakers(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	d, err := a.ops.EventSpeakerDirectory(ctx, ev)
	if err != nil {
		return nil, err
	}
	if !current(ctx) {
		return toRESTDirectory(d), nil
	}
	ids := make([]string, len(d.Rows))
	for i, row := range d.Rows {
		ids[i] = row.Contact.ID
	}
	pipelines, err := a.ops.SpeakerPipelines(ctx, ids)
	if err != nil {
		return nil, err
	}
	subs, err := a.ops.SpeakerSubmissions(ctx, ev.ID)
	if err != nil {
		return nil, err
	}
	return toCurrentDirectory(d, pipelines, subs), nil
}

// saveSpeaker creates or updates a speaker. From API version 2026-08-21 the body has no
// workflowStatus (the pipeline is derived; the body check refuses the key): a new speaker starts
// invited, as GraphQL's default, and an update keeps the status the speaker has.
func (a *API) saveSpeaker(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveSpeakerInput](q)
	if err != nil {
		return nil, err
	}
	if !current(ctx) {
		return toRESTContactOf(a.ops.SaveSpeaker(ctx, q.param("eventId"), in))
	}
	in.WorkflowStatus = contact.WorkflowStatusInvited
	if in.ID != nil {
		ev, err := a.event(ctx, q)
		if err != nil {
			return nil, err
		}
		was, err := a.ops.Speaker(ctx, ev.ID, *in.ID)
		if err != nil {
			return nil, err
		}
		in.WorkflowStatus = was.WorkflowStatus
	}
	return toCurrentContactOf(a.ops.SaveSpeaker(ctx, q.param("eventId"), in))
}

func (a *API) getSpeaker(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	if current(ctx) {
		return toCurrentContactOf(a.ops.Speaker(ctx, ev.ID, q.param("contactId")))
	}
	return toRESTContactOf(a.ops.Speaker(ctx, ev.ID, q.param("contactId")))
}

func (a *API) setSpeakerWorkflow(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SetSpeakerWorkflowInput](q)
	if err != nil {
		return nil, err
	}
	return toRESTContactOf(a.ops.SetSpeakerWorkflow(ctx, q.param("eventId"), q.param("contactId"), in))
}

func (a *API) importSpeakers(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ImportSpeakersInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ImportSpeakers(ctx, q.param("eventId"), in)
}

func (a *API) inviteSpeakerPortals(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.InviteSpeakerPortalsInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.InviteSpeakerPortals(ctx, q.param("eventId"), in)
	if err != nil || !current(ctx) {
		return res, err
	}
	return Invited{Invitations: res.Invitations, Queued: res.Sent}, nil
}

// Invited is POST E/speakers/invite's answer from API version 2026-08-21: the invitations and
// the emails queued now.
type Invited struct {
	Invitations []*model.PortalInvitation `json:"invitations"`
	Queued      int                       `json:"queued"`
}

// toRESTContactOf presents the contact an operation returned, passing its error on.
func toRESTContactOf(c *ent.Contact, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return toRESTContact(c), nil
}

// toCurrentContactOf is toRESTContactOf in API version 2026-08-21: without workflowStatus.
func toCurrentContactOf(c *ent.Contact, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return toRESTContact(c).ContactCurrent, nil
}

// Contact is an event contact (docs/rest-api.md: Speakers).
type Contact struct {
	ContactCurrent
	WorkflowStatus string `json:"workflowStatus" enum:"invited,onboarding,confirmed,ready,declined"`
}

// ContactCurrent is an event contact in API version 2026-08-21: the original derives the
// speaker's pipeline and no longer shows a workflow status.
type ContactCurrent struct {
	ID                  string         `json:"id"`
	CreatedAt           string         `json:"createdAt"`
	UpdatedAt           string         `json:"updatedAt"`
	EventID             string         `json:"eventId"`
	Email               string         `json:"email"`
	FirstName           string         `json:"firstName"`
	LastName            string         `json:"lastName"`
	Participation       string         `json:"participation" enum:"speaker,organizer"`
	Title               *string        `json:"title"`
	Company             *string        `json:"company"`
	Salutation          *string        `json:"salutation"`
	Honorific           *string        `json:"honorific"`
	Pronouns            *string        `json:"pronouns"`
	Gender              *string        `json:"gender"`
	Bio                 *string        `json:"bio"`
	HeadshotURL         *string        `json:"headshotUrl"`
	HeadshotKey         *string        `json:"headshotKey"`
	DietaryRequirements string         `json:"dietaryRequirements" enum:"none,vegetarian,vegan,gluten_free,other"`
	TshirtSize          *string        `json:"tshirtSize" enum:"XS,S,M,L,XL,XXL"`
	Phone               *string        `json:"phone"`
	LinkedinURL         *string        `json:"linkedinUrl"`
	TwitterURL          *string        `json:"twitterUrl"`
	FacebookURL         *string        `json:"facebookUrl"`
	WebsiteURL          *string        `json:"websiteUrl"`
	ConfirmedAt         *string        `json:"confirmedAt"`
	Custom              map[string]any `json:"custom"`
	ApprovedProfile     map[string]any `json:"approvedProfile"`
	ProfileReviewStatus string         `json:"profileReviewStatus" enum:"approved,pending_review,rejected"`
}

func toRESTContact(c *ent.Contact) Contact {
	var size *string
	if c.TshirtSize != nil {
		size = new(string(*c.TshirtSize))
	}
	return Contact{ContactCurrent: ContactCurrent{
		ID: c.ID, CreatedAt: scalar.FormatTime(c.CreatedAt), UpdatedAt: scalar.FormatTime(c.UpdatedAt),
		EventID: c.EventID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName,
		Participation: v1Participation(c.Participation), Title: c.Title, Company: c.Company, Salutation: c.Salutation,
		Honorific: c.Honorific, Pronouns: c.Pronouns, Gender: c.Gender, Bio: c.Bio, HeadshotURL: c.HeadshotURL,
		HeadshotKey: c.HeadshotKey, DietaryRequirements: string(c.DietaryRequirements), TshirtSize: size,
		Phone: c.Phone, LinkedinURL: c.LinkedinURL, TwitterURL: c.TwitterURL, FacebookURL: c.FacebookURL,
		WebsiteURL: c.WebsiteURL, ConfirmedAt: scalar.FormatTimePtr(c.ConfirmedAt), Custom: nonNilMap(c.Custom),
		ApprovedProfile: nonNilMap(c.ApprovedProfile), ProfileReviewStatus: string(c.ProfileReviewStatus),
	}, WorkflowStatus: string(c.WorkflowStatus)}
}

// v1Participation is a contact's participation as this API's clients know it: speaker or
// organizer. A submitter (someone who sent a proposal, docs/people.md) was a speaker to them and
// still reads as one; GraphQL says submitter.
func v1Participation(p contact.Participation) string {
	if p == contact.ParticipationSubmitter {
		return string(contact.ParticipationSpeaker)
	}
	return string(p)
}

// DirectoryCard is the part of a contact the speaker directory shows in every API version, in
// the order of its keys; the versions add the speaker's stage after it.
type DirectoryCard struct {
	ID                  string  `json:"id"`
	Email               string  `json:"email"`
	ProfileReviewStatus string  `json:"profileReviewStatus" enum:"approved,pending_review,rejected"`
	FirstName           string  `json:"firstName"`
	LastName            string  `json:"lastName"`
	Title               *string `json:"title"`
	Company             *string `json:"company"`
	Bio                 *string `json:"bio"`
	HeadshotURL         *string `json:"headshotUrl"`
	DietaryRequirements string  `json:"dietaryRequirements"`
	TshirtSize          *string `json:"tshirtSize"`
	Phone               *string `json:"phone"`
	LinkedinURL         *string `json:"linkedinUrl"`
	TwitterURL          *string `json:"twitterUrl"`
	FacebookURL         *string `json:"facebookUrl"`
	WebsiteURL          *string `json:"websiteUrl"`
}

// directoryCard is the directory's card of a contact as REST shows it.
func directoryCard(c Contact) DirectoryCard {
	return DirectoryCard{ID: c.ID, Email: c.Email, ProfileReviewStatus: c.ProfileReviewStatus,
		FirstName: c.FirstName, LastName: c.LastName, Title: c.Title, Company: c.Company, Bio: c.Bio,
		HeadshotURL: c.HeadshotURL, DietaryRequirements: c.DietaryRequirements, TshirtSize: c.TshirtSize,
		Phone: c.Phone, LinkedinURL: c.LinkedinURL, TwitterURL: c.TwitterURL, FacebookURL: c.FacebookURL,
		WebsiteURL: c.WebsiteURL}
}

// DirectoryContact is the part of a contact the speaker directory shows.
type DirectoryContact struct {
	DirectoryCard
	WorkflowStatus string         `json:"workflowStatus" enum:"invited,onboarding,confirmed,ready,declined"`
	Custom         map[string]any `json:"custom"`
}

// DirectoryRow is one speaker of GET E/speakers.
type DirectoryRow struct {
	Contact        DirectoryContact       `json:"contact"`
	Sessions       []*model.SessionRef    `json:"sessions"`
	Tasks          []*model.SpeakerTask   `json:"tasks"`
	Files          []*model.SpeakerFile   `json:"files"`
	Emails         []*model.SpeakerEmail  `json:"emails"`
	ProfileChanges []*model.ProfileChange `json:"profileChanges"`
}

// Directory is GET E/speakers.
type Directory struct {
	Rows []DirectoryRow `json:"rows"`
	CSV  string         `json:"csv"`
}

func toRESTDirectory(d *model.SpeakerDirectory) Directory {
	out := Directory{Rows: make([]DirectoryRow, len(d.Rows)), CSV: d.CSV}
	for i, row := range d.Rows {
		c := toRESTContact(row.Contact)
		out.Rows[i] = DirectoryRow{
			Contact:  DirectoryContact{DirectoryCard: directoryCard(c), WorkflowStatus: c.WorkflowStatus, Custom: c.Custom},
			Sessions: row.Sessions, Tasks: row.Tasks, Files: row.Files, Emails: row.Emails, ProfileChanges: row.ProfileChanges,
		}
	}
	return out
}

// DirectoryCurrent is GET E/speakers in API version 2026-08-21.
type DirectoryCurrent struct {
	Rows []DirectoryRowCurrent `json:"rows"`
	CSV  string                `json:"csv"`
}

// DirectoryRowCurrent is one speaker of the directory in API version 2026-08-21: sessions are
// their accepted submissions (cancelled ones too, with cancelledAt), otherSubmissions the rest.
type DirectoryRowCurrent struct {
	Contact          DirectoryContactCurrent  `json:"contact"`
	Sessions         []SpeakerSession         `json:"sessions"`
	OtherSubmissions []SpeakerOtherSubmission `json:"otherSubmissions"`
	Tasks            []*model.SpeakerTask     `json:"tasks"`
	Files            []*model.SpeakerFile     `json:"files"`
	Emails           []*model.SpeakerEmail    `json:"emails"`
	ProfileChanges   []*model.ProfileChange   `json:"profileChanges"`
}

// DirectoryContactCurrent is the directory's contact in API version 2026-08-21: the derived
// pipeline instead of the workflow status.
type DirectoryContactCurrent struct {
	DirectoryCard
	Pipeline string         `json:"pipeline" enum:"withdrawn,ready,onboarding,invited,added"`
	Custom   map[string]any `json:"custom"`
}

// SpeakerSession is an accepted submission of a speaker in the directory of API version 2026-08-21.
type SpeakerSession struct {
	ID           string            `json:"id"`
	Code         string            `json:"code"`
	Title        string            `json:"title"`
	StartsAt     *scalar.Timestamp `json:"startsAt"`
	CancelledAt  *scalar.Timestamp `json:"cancelledAt"`
	DecisionSent bool              `json:"decisionSent"`
}

// SpeakerOtherSubmission is a submission of a speaker that is not accepted.
type SpeakerOtherSubmission struct {
	ID           string                 `json:"id"`
	Code         string                 `json:"code"`
	Title        string                 `json:"title"`
	Status       model.SubmissionStatus `json:"status"`
	DecisionSent bool                   `json:"decisionSent"`
}

// pipelineName is a pipeline stage as REST writes it; a contact without one (not a speaker,
// which the directory does not list) reads as added.
func pipelineName(p *model.SpeakerPipeline) string {
	if p == nil {
		return strings.ToLower(string(model.SpeakerPipelineAdded))
	}
	return strings.ToLower(string(*p))
}

func toCurrentDirectory(d *model.SpeakerDirectory, pipelines map[string]*model.SpeakerPipeline,
	subs map[string][]*model.SpeakerSubmission) DirectoryCurrent {
	out := DirectoryCurrent{Rows: make([]DirectoryRowCurrent, len(d.Rows)), CSV: d.CSV}
	for i, row := range d.Rows {
		c := toRESTContact(row.Contact)
		r := DirectoryRowCurrent{
			Contact: DirectoryContactCurrent{DirectoryCard: directoryCard(c), Pipeline: pipelineName(pipelines[c.ID]),
				Custom: c.Custom},
			Sessions: []SpeakerSession{}, OtherSubmissions: []SpeakerOtherSubmission{},
			Tasks: row.Tasks, Files: row.Files, Emails: row.Emails, ProfileChanges: row.ProfileChanges,
		}
		for _, s := range subs[c.ID] {
			if s.Status == model.SubmissionStatusAccepted {
				r.Sessions = append(r.Sessions, SpeakerSession{ID: s.ID, Code: s.Code, Title: s.Title,
					StartsAt: s.StartsAt, CancelledAt: s.CancelledAt, DecisionSent: s.DecisionSent})
			} else {
				r.OtherSubmissions = append(r.OtherSubmissions, SpeakerOtherSubmission{ID: s.ID, Code: s.Code,
					Title: s.Title, Status: s.Status, DecisionSent: s.DecisionSent})
			}
		}
		out.Rows[i] = r
	}
	return out
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
