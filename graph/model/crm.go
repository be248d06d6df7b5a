package model

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/graph/scalar"
)

// The contact book's read models (docs/crm.md). Each serves both transports unchanged: GraphQL
// binds them (gqlgen.yml) and REST encodes them as the original API's shapes, with timestamps as
// scalar.Timestamp. The directory's rows are also produced as JSON by PostgreSQL itself
// (graph/operation/crm_contacts_list.go), with the same keys in the same order.

// CrmContact is a contact of the organization's book (REST: OrganizationContact).
type CrmContact struct {
	ID             string           `json:"id"`
	CreatedAt      scalar.Timestamp `json:"createdAt"`
	UpdatedAt      scalar.Timestamp `json:"updatedAt"`
	OrganizationID string           `json:"organizationId"`
	FirstName      string           `json:"firstName"`
	LastName       string           `json:"lastName"`
	Email          string           `json:"email"`
	Title          *string          `json:"title"`
	Company        *string          `json:"company"`
	Bio            *string          `json:"bio"`
	LinkedinURL    *string          `json:"linkedinUrl"`
	TwitterURL     *string          `json:"twitterUrl"`
	FacebookURL    *string          `json:"facebookUrl"`
	WebsiteURL     *string          `json:"websiteUrl"`
	HeadshotURL    *string          `json:"headshotUrl"`
	Custom         map[string]any   `json:"custom"`
}

// CrmTag is a tag of the organization (REST: OrganizationTag).
type CrmTag struct {
	ID             string           `json:"id"`
	CreatedAt      scalar.Timestamp `json:"createdAt"`
	UpdatedAt      scalar.Timestamp `json:"updatedAt"`
	OrganizationID string           `json:"organizationId"`
	Name           string           `json:"name"`
}

// CrmContactEvent links a contact to an event contact (REST: OrganizationContactEvent).
type CrmContactEvent struct {
	ID                    string           `json:"id"`
	CreatedAt             scalar.Timestamp `json:"createdAt"`
	UpdatedAt             scalar.Timestamp `json:"updatedAt"`
	OrganizationContactID string           `json:"organizationContactId"`
	ContactID             string           `json:"contactId"`
	EventID               string           `json:"eventId"`
	Role                  string           `json:"role"`
	Status                string           `json:"status"`
}

// CrmContactNote is a note about a contact (REST: OrganizationContactNote).
type CrmContactNote struct {
	ID                    string           `json:"id"`
	OrganizationContactID string           `json:"organizationContactId"`
	Body                  string           `json:"body"`
	AuthorUserID          *string          `json:"authorUserId"`
	AuthorAPIKeyID        *string          `json:"authorApiKeyId"`
	CreatedAt             scalar.Timestamp `json:"createdAt"`
}

// CrmContactCard is a contact's pipeline card (REST: CrmPipelineCard).
type CrmContactCard struct {
	ID                    string           `json:"id"`
	CreatedAt             scalar.Timestamp `json:"createdAt"`
	UpdatedAt             scalar.Timestamp `json:"updatedAt"`
	OrganizationContactID string           `json:"organizationContactId"`
	StageID               string           `json:"stageId"`
	OwnerUserID           *string          `json:"ownerUserId"`
	Note                  *string          `json:"note"`
}

// CrmStageChange is one move of a card (REST: CrmStageHistory).
type CrmStageChange struct {
	ID            string           `json:"id"`
	CardID        string           `json:"cardId"`
	FromStageID   *string          `json:"fromStageId"`
	ToStageID     *string          `json:"toStageId"`
	ActorUserID   *string          `json:"actorUserId"`
	ActorAPIKeyID *string          `json:"actorApiKeyId"`
	CreatedAt     scalar.Timestamp `json:"createdAt"`
}

// CrmDirectoryRow is a row of the directory (REST: CrmDirectoryRow).
type CrmDirectoryRow struct {
	// ID is the contact's, for GraphQL clients that key rows by id; REST rows have none.
	ID      string             `json:"-"`
	Contact *CrmContact        `json:"contact"`
	Tags    []*CrmTag          `json:"tags"`
	Events  []*CrmContactEvent `json:"events"`
}

// CrmContactConnection is a page of the directory.
type CrmContactConnection struct {
	Edges      []*CrmContactEdge `json:"edges"`
	PageInfo   ent.PageInfo      `json:"pageInfo"`
	TotalCount int               `json:"totalCount"`
}

// CrmContactEdge is a row of a page with its cursor.
type CrmContactEdge struct {
	Node   *CrmDirectoryRow `json:"node"`
	Cursor ent.Cursor       `json:"cursor"`
}

// CrmContactDetail is a contact with everything known about them (REST: CrmContactDetailView).
type CrmContactDetail struct {
	Contact      *CrmContact             `json:"contact"`
	Tags         []*CrmTag               `json:"tags"`
	Events       []*CrmContactEventEntry `json:"events"`
	Notes        []*CrmNoteEntry         `json:"notes"`
	Card         *CrmContactCard         `json:"card"`
	StageHistory []*CrmStageHistoryEntry `json:"stageHistory"`
}

// CrmContactEventEntry is an event link with its event and the event contact's submissions.
type CrmContactEventEntry struct {
	Link     *CrmContactEvent `json:"link"`
	Name     string           `json:"name"`
	Slug     string           `json:"slug"`
	Sessions []*CrmSessionRef `json:"sessions"`
}

// CrmSessionRef names a submission.
type CrmSessionRef struct {
	ID    string `json:"id"`
	Code  string `json:"code"`
	Title string `json:"title"`
}

// CrmNoteEntry is a note with its author's name.
type CrmNoteEntry struct {
	Note       *CrmContactNote `json:"note"`
	AuthorName string          `json:"authorName"`
}

// CrmStageHistoryEntry is a move with the names as they were.
type CrmStageHistoryEntry struct {
	History       *CrmStageChange `json:"history"`
	FromStageName *string         `json:"fromStageName"`
	ToStageName   string          `json:"toStageName"`
	ActorName     string          `json:"actorName"`
}
