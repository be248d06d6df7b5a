package model

import (
	"github.com/podium/podium/graph/scalar"
)

// CampaignRecord is a campaign as both transports present it (docs/campaigns.md).
type CampaignRecord struct {
	ID                string              `json:"id"`
	CreatedAt         scalar.Timestamp    `json:"createdAt"`
	UpdatedAt         scalar.Timestamp    `json:"updatedAt"`
	EventID           string              `json:"eventId"`
	TemplateID        *string             `json:"templateId"`
	SubjectSnapshot   string              `json:"subjectSnapshot"`
	BodySnapshot      string              `json:"bodySnapshot"`
	RecipientFilter   map[string]any      `json:"recipientFilter"`
	Status            EmailCampaignStatus `json:"status" enum:"draft,sending,sent"`
	CreatedByUserID   *string             `json:"createdByUserId"`
	CreatedByAPIKeyID *string             `json:"createdByApiKeyId"`
	SentAt            *scalar.Timestamp   `json:"sentAt"`
	ReplyTo           *string             `json:"replyTo"`
}

// CommunicationPeople is what the communications view adds about people in the original's
// current API: when speakers confirmed, who proposed what, and the mail still to do.
type CommunicationPeople struct {
	// ConfirmedAt is when each speaker of the event confirmed, by contact id; absent when not.
	ConfirmedAt map[string]*scalar.Timestamp
	// Uninformed holds the contacts with an accepted or declined call-for-proposals submission
	// whose decision email has not gone out.
	Uninformed map[string]bool
	// Submitters are the contacts taking part in a call-for-proposals submission, by last name.
	Submitters []*Submitter
	// AwaitingConfirmation counts speakers told of an acceptance who have not confirmed.
	AwaitingConfirmation int
	// DueSoonTasks counts open tasks due within 7 days, or overdue.
	DueSoonTasks int
	// Failed and SentTotal count the event's emails whose delivery failed, and those sent.
	Failed, SentTotal int
}

// Submitter is a contact who proposed, with where each of their submissions stands.
type Submitter struct {
	ID          string                 `json:"id"`
	Email       string                 `json:"email"`
	FirstName   string                 `json:"firstName"`
	LastName    string                 `json:"lastName"`
	HeadshotURL *string                `json:"headshotUrl"`
	Submissions []*SubmitterSubmission `json:"submissions"`
}

// SubmitterSubmission is one submission of a submitter.
type SubmitterSubmission struct {
	Status     SubmissionStatus  `json:"status"`
	NotifiedAt *scalar.Timestamp `json:"notifiedAt"`
}
