package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/scalar"
)

// Contact is an event contact (docs/rest-api.md: Speakers).
type Contact struct {
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
	WorkflowStatus      string         `json:"workflowStatus" enum:"invited,onboarding,confirmed,ready,declined"`
}

func toRESTContact(c *ent.Contact) Contact {
	var size *string
	if c.TshirtSize != nil {
		size = ptr(string(*c.TshirtSize))
	}
	return Contact{
		ID: c.ID, CreatedAt: scalar.FormatTime(c.CreatedAt), UpdatedAt: scalar.FormatTime(c.UpdatedAt),
		EventID: c.EventID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName,
		Participation: string(c.Participation), Title: c.Title, Company: c.Company, Salutation: c.Salutation,
		Honorific: c.Honorific, Pronouns: c.Pronouns, Gender: c.Gender, Bio: c.Bio, HeadshotURL: c.HeadshotURL,
		HeadshotKey: c.HeadshotKey, DietaryRequirements: string(c.DietaryRequirements), TshirtSize: size,
		Phone: c.Phone, LinkedinURL: c.LinkedinURL, TwitterURL: c.TwitterURL, FacebookURL: c.FacebookURL,
		WebsiteURL: c.WebsiteURL, ConfirmedAt: scalar.FormatTimePtr(c.ConfirmedAt), Custom: nonNilMap(c.Custom),
		ApprovedProfile: nonNilMap(c.ApprovedProfile), ProfileReviewStatus: string(c.ProfileReviewStatus),
		WorkflowStatus: string(c.WorkflowStatus),
	}
}

// DirectoryContact is the part of a contact the speaker directory shows.
type DirectoryContact struct {
	ID                  string         `json:"id"`
	Email               string         `json:"email"`
	ProfileReviewStatus string         `json:"profileReviewStatus" enum:"approved,pending_review,rejected"`
	FirstName           string         `json:"firstName"`
	LastName            string         `json:"lastName"`
	Title               *string        `json:"title"`
	Company             *string        `json:"company"`
	Bio                 *string        `json:"bio"`
	HeadshotURL         *string        `json:"headshotUrl"`
	DietaryRequirements string         `json:"dietaryRequirements"`
	TshirtSize          *string        `json:"tshirtSize"`
	Phone               *string        `json:"phone"`
	LinkedinURL         *string        `json:"linkedinUrl"`
	TwitterURL          *string        `json:"twitterUrl"`
	FacebookURL         *string        `json:"facebookUrl"`
	WebsiteURL          *string        `json:"websiteUrl"`
	WorkflowStatus      string         `json:"workflowStatus" enum:"invited,onboarding,confirmed,ready,declined"`
	Custom              map[string]any `json:"custom"`
}

// DirectoryRow is one speaker of GET E/speakers.
type DirectoryRow struct {
	Contact        DirectoryContact       `json:"contact"`
	Sessions       []*graph.SessionRef    `json:"sessions"`
	Tasks          []*graph.SpeakerTask   `json:"tasks"`
	Files          []*graph.SpeakerFile   `json:"files"`
	Emails         []*graph.SpeakerEmail  `json:"emails"`
	ProfileChanges []*graph.ProfileChange `json:"profileChanges"`
}

// Directory is GET E/speakers.
type Directory struct {
	Rows []DirectoryRow `json:"rows"`
	CSV  string         `json:"csv"`
}

func toRESTDirectory(d *graph.SpeakerDirectory) Directory {
	out := Directory{Rows: make([]DirectoryRow, len(d.Rows)), CSV: d.CSV}
	for i, row := range d.Rows {
		c := toRESTContact(row.Contact)
		out.Rows[i] = DirectoryRow{
			Contact: DirectoryContact{ID: c.ID, Email: c.Email, ProfileReviewStatus: c.ProfileReviewStatus,
				FirstName: c.FirstName, LastName: c.LastName, Title: c.Title, Company: c.Company, Bio: c.Bio,
				HeadshotURL: c.HeadshotURL, DietaryRequirements: c.DietaryRequirements, TshirtSize: c.TshirtSize,
				Phone: c.Phone, LinkedinURL: c.LinkedinURL, TwitterURL: c.TwitterURL, FacebookURL: c.FacebookURL,
				WebsiteURL: c.WebsiteURL, WorkflowStatus: c.WorkflowStatus, Custom: c.Custom},
			Sessions: row.Sessions, Tasks: row.Tasks, Files: row.Files, Emails: row.Emails, ProfileChanges: row.ProfileChanges,
		}
	}
	return out
}

func (a *API) speakerRoutes() []route {
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/speakers", operationID: "listSpeakers", tag: "Speakers",
			summary:     "List event speakers",
			description: "The speaker directory: every speaker with their sessions, tasks, files and latest emails, and a CSV export.",
			output:      Directory{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				d, err := a.res.Event().SpeakerDirectory(ctx, ev)
				if err != nil {
					return nil, err
				}
				return toRESTDirectory(d), nil
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/speakers", operationID: "saveSpeaker", tag: "Speakers",
			summary:     "Create or update a speaker",
			description: "id null creates a speaker; an existing contact id updates that speaker. The email is unique in the event.",
			input:       "SaveSpeakerInput", output: Contact{}, status: http.StatusCreated,
			handle: contactOp(func(ctx context.Context, q *request) (*ent.Contact, error) {
				var in graph.SaveSpeakerInput
				if err := q.bind(&in); err != nil {
					return nil, err
				}
				return a.res.Mutation().SaveSpeaker(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/speakers/{contactId}", operationID: "getSpeaker", tag: "Speakers",
			summary: "Get an event speaker", output: Contact{}, status: http.StatusOK,
			handle: contactOp(func(ctx context.Context, q *request) (*ent.Contact, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().Speaker(ctx, ev, q.param("contactId"))
			}),
		},
		{
			method: http.MethodPatch, path: "/events/{eventId}/speakers/{contactId}/workflow", operationID: "setSpeakerWorkflow",
			tag: "Speakers", summary: "Set a speaker's workflow status",
			description: "Any status from any status; confirmed and ready stamp confirmedAt the first time.",
			input:       "SetSpeakerWorkflowInput", output: Contact{}, status: http.StatusOK,
			handle: contactOp(func(ctx context.Context, q *request) (*ent.Contact, error) {
				var in graph.SetSpeakerWorkflowInput
				if err := q.bind(&in); err != nil {
					return nil, err
				}
				return a.res.Mutation().SetSpeakerWorkflow(ctx, q.param("eventId"), q.param("contactId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/speakers/import", operationID: "importSpeakers", tag: "Speakers",
			summary:     "Bulk import speakers",
			description: "Rows are matched by email; action create skips known emails, update skips unknown ones, skip does nothing.",
			input:       "ImportSpeakersInput", output: graph.ImportSpeakersResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ImportSpeakersInput) (any, error) {
				return a.res.Mutation().ImportSpeakers(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/speakers/invite", operationID: "inviteSpeakerPortals", tag: "Speakers",
			summary:     "Invite speakers to their portal",
			description: "Queues a portal invitation email for each speaker contact given, once per contact ever.",
			input:       "InviteSpeakerPortalsInput", output: graph.InviteSpeakerPortalsResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.InviteSpeakerPortalsInput) (any, error) {
				return a.res.Mutation().InviteSpeakerPortals(ctx, q.param("eventId"), in)
			}),
		},
	}
}

// contactOp presents an operation's contact in the REST shape.
func contactOp(op func(context.Context, *request) (*ent.Contact, error)) func(context.Context, *request) (any, error) {
	return func(ctx context.Context, q *request) (any, error) {
		c, err := op(ctx, q)
		if err != nil {
			return nil, err
		}
		return toRESTContact(c), nil
	}
}

func ptr[T any](v T) *T { return &v }

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
