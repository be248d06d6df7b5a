package model

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// SessionConnection is a page of sessions with the tracks and formats of all accepted sessions.
type SessionConnection struct {
	Edges      []*SessionEdge `json:"edges"`
	PageInfo   ent.PageInfo   `json:"pageInfo"`
	TotalCount int            `json:"totalCount"`
	Tracks     []agenda.Track `json:"tracks"`
	Formats    []string       `json:"formats"`
}

// SessionEdge is one session of a page.
type SessionEdge struct {
	Node   *Session   `json:"node"`
	Cursor ent.Cursor `json:"cursor"`
}

// Session is a session with its readiness (the session list item of REST).
type Session struct {
	ID                   string              `json:"id"`
	EventID              string              `json:"eventId"`
	Code                 string              `json:"code"`
	Title                string              `json:"title"`
	Description          string              `json:"description"`
	Format               *string             `json:"format"`
	Source               SessionSource       `json:"source"`
	Tracks               []agenda.Track      `json:"tracks"`
	Speakers             []*SessionSpeaker   `json:"speakers"`
	StartsAt             *scalar.Timestamp   `json:"startsAt"`
	EndsAt               *scalar.Timestamp   `json:"endsAt"`
	RoomID               *string             `json:"roomId"`
	RoomName             *string             `json:"roomName"`
	DeliverablesTotal    int                 `json:"deliverablesTotal"`
	DeliverablesUploaded int                 `json:"deliverablesUploaded"`
	TasksTotal           int                 `json:"tasksTotal"`
	TasksDone            int                 `json:"tasksDone"`
	ContentReviewStatus  ContentReviewStatus `json:"contentReviewStatus"`
	PublicationApproved  bool                `json:"publicationApproved"`
	CancelledAt          *scalar.Timestamp   `json:"cancelledAt"`
	CancelledBy          *SessionCancelledBy `json:"cancelledBy"`
	Capacity             *int                `json:"capacity"`
	CreatedAt            scalar.Timestamp    `json:"createdAt"`
	// DecisionSent is false for an accepted call-for-proposals submission not yet informed
	// (docs/decisions.md).
	DecisionSent bool `json:"decisionSent"`
}

// SessionSpeaker is a speaker of a session.
type SessionSpeaker struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Email       string            `json:"email"`
	Role        string            `json:"role"`
	Position    int               `json:"position"`
	HeadshotURL *string           `json:"headshotUrl"`
	ConfirmedAt *scalar.Timestamp `json:"confirmedAt"`
}

// SessionRecord is a submission as stored: the response of creating a session or submission.
type SessionRecord struct {
	ID                  string              `json:"id"`
	CreatedAt           scalar.Timestamp    `json:"createdAt"`
	UpdatedAt           scalar.Timestamp    `json:"updatedAt"`
	EventID             string              `json:"eventId"`
	Code                string              `json:"code"`
	Status              SubmissionStatus    `json:"status"`
	SourceFormID        *string             `json:"sourceFormId"`
	SubmitterContactID  *string             `json:"submitterContactId"`
	Title               string              `json:"title"`
	Description         string              `json:"description"`
	FormatID            *string             `json:"formatId"`
	LevelID             *string             `json:"levelId"`
	Language            string              `json:"language"`
	StartsAt            *scalar.Timestamp   `json:"startsAt"`
	EndsAt              *scalar.Timestamp   `json:"endsAt"`
	RoomID              *string             `json:"roomId"`
	IcsSequence         int                 `json:"icsSequence"`
	ScheduleDirty       bool                `json:"scheduleDirty"`
	Capacity            *int                `json:"capacity"`
	CeuCredits          *int                `json:"ceuCredits"`
	ClientSessionID     *string             `json:"clientSessionId"`
	NotifiedAt          *scalar.Timestamp   `json:"notifiedAt"`
	SubmittedAt         *scalar.Timestamp   `json:"submittedAt"`
	Answers             map[string]any      `json:"answers"`
	ApprovedSnapshot    map[string]any      `json:"approvedSnapshot"`
	ContentReviewStatus ContentReviewStatus `json:"contentReviewStatus"`
	CancelledAt         *scalar.Timestamp   `json:"cancelledAt"`
	CancelledBy         *SessionCancelledBy `json:"cancelledBy"`
}

// Submission is a submission as the review desk shows it; its detail fields (answers, reviews,
// roundReviews, activity, emails) are resolved on demand.
type Submission struct {
	ID             string               `json:"id"`
	EventID        string               `json:"eventId"`
	Code           string               `json:"code"`
	Status         SubmissionStatus     `json:"status"`
	CancelledAt    *scalar.Timestamp    `json:"cancelledAt"`
	CancelledBy    *SessionCancelledBy  `json:"cancelledBy"`
	Title          string               `json:"title"`
	Description    string               `json:"description"`
	Format         *string              `json:"format"`
	Source         SessionSource        `json:"source"`
	SubmittedAt    *scalar.Timestamp    `json:"submittedAt"`
	CreatedAt      scalar.Timestamp     `json:"createdAt"`
	NotifiedAt     *scalar.Timestamp    `json:"notifiedAt"`
	DecisionSent   bool                 `json:"decisionSent"`
	Tracks         []agenda.Track       `json:"tracks"`
	Tags           []*TagSummary        `json:"tags"`
	Speakers       []*SubmissionSpeaker `json:"speakers"`
	Rating         *float64             `json:"rating"`
	ReviewCount    int                  `json:"reviewCount"`
	ReviewComments []string             `json:"reviewComments"`

	// FormAnswers are the form answers, kept for the detail.
	FormAnswers map[string]any `json:"-"`
}

// IsNode marks Submission as a Relay node.
func (Submission) IsNode() {}

// SubmissionSpeaker is a speaker of a submission.
type SubmissionSpeaker struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Email       string            `json:"email"`
	Role        string            `json:"role"`
	Position    int               `json:"position"`
	BioPresent  bool              `json:"bioPresent"`
	HeadshotURL *string           `json:"headshotUrl"`
	ConfirmedAt *scalar.Timestamp `json:"confirmedAt"`
}

// ReviewAssignmentRecord is a review assignment as stored.
type ReviewAssignmentRecord struct {
	ID            string                 `json:"id"`
	CreatedAt     scalar.Timestamp       `json:"createdAt"`
	UpdatedAt     scalar.Timestamp       `json:"updatedAt"`
	RoundID       string                 `json:"roundId"`
	SubmissionID  string                 `json:"submissionId"`
	EventMemberID string                 `json:"eventMemberId"`
	Status        ReviewAssignmentStatus `json:"status"`
	AssignedAt    scalar.Timestamp       `json:"assignedAt"`
	CompletedAt   *scalar.Timestamp      `json:"completedAt"`
	RecusedAt     *scalar.Timestamp      `json:"recusedAt"`
	RecusalReason *string                `json:"recusalReason"`

	// Index, when the assignment was read with its round's workspace, holds its submission,
	// reviewer and answers.
	Index *RoundIndex `json:"-"`
}

// ReviewAnswerView is a reviewer's answer with its criterion's label and type.
type ReviewAnswerView struct {
	CriterionID  string              `json:"criterionId"`
	Label        string              `json:"label"`
	Type         ReviewCriterionType `json:"type"`
	NumericValue *float64            `json:"numericValue"`
	TextValue    *string             `json:"textValue"`
	OptionValue  *string             `json:"optionValue"`
}

// HumanReview is one reviewer's review with its answers.
type HumanReview struct {
	Assignment    *ReviewAssignmentRecord `json:"assignment"`
	ReviewerName  string                  `json:"reviewerName"`
	ReviewerEmail string                  `json:"reviewerEmail"`
	Answers       []*ReviewAnswerView     `json:"answers"`
}

// TimelineItem is one line of a session's history.
type TimelineItem struct {
	ID        string           `json:"id"`
	At        scalar.Timestamp `json:"at"`
	Kind      string           `json:"kind"`
	Label     string           `json:"label"`
	Detail    *string          `json:"detail"`
	ActorName *string          `json:"actorName"`
}

// SubmissionEmail is an email sent about a submission.
type SubmissionEmail struct {
	ID        string            `json:"id"`
	ContactID *string           `json:"contactId"`
	Recipient *string           `json:"recipient"`
	Type      string            `json:"type"`
	Subject   string            `json:"subject"`
	Body      string            `json:"body"`
	Status    string            `json:"status"`
	SentAt    *scalar.Timestamp `json:"sentAt"`
	CreatedAt scalar.Timestamp  `json:"createdAt"`
}

// SpeakerDirectory is every speaker with what hangs off them.
type SpeakerDirectory struct {
	Rows []*SpeakerRow `json:"rows"`
	CSV  string        `json:"csv"`
}

// SpeakerRow is one speaker of the directory.
type SpeakerRow struct {
	Contact        *ent.Contact     `json:"contact"`
	Sessions       []*SessionRef    `json:"sessions"`
	Tasks          []*SpeakerTask   `json:"tasks"`
	Files          []*SpeakerFile   `json:"files"`
	Emails         []*SpeakerEmail  `json:"emails"`
	ProfileChanges []*ProfileChange `json:"profileChanges"`
}

// SpeakerTask is a task of a speaker.
type SpeakerTask struct {
	ID             string            `json:"id"`
	Title          string            `json:"title"`
	Status         TaskStatus        `json:"status"`
	DueDate        *scalar.Timestamp `json:"dueDate"`
	SubmissionCode *string           `json:"submissionCode"`
}

// SpeakerFile is a file a speaker uploaded.
type SpeakerFile struct {
	ID           string           `json:"id"`
	VersionID    string           `json:"versionId"`
	Filename     string           `json:"filename"`
	Kind         string           `json:"kind"`
	Label        string           `json:"label"`
	UploadedAt   scalar.Timestamp `json:"uploadedAt"`
	ContentType  string           `json:"contentType"`
	Size         int              `json:"size"`
	UploaderName string           `json:"uploaderName"`
}

// SpeakerEmail is an email sent to a speaker.
type SpeakerEmail struct {
	ID      string            `json:"id"`
	Subject string            `json:"subject"`
	Type    string            `json:"type"`
	Status  string            `json:"status"`
	SentAt  *scalar.Timestamp `json:"sentAt"`
}

// TaskTemplate is a task template.
type TaskTemplate struct {
	ID                 string            `json:"id"`
	CreatedAt          scalar.Timestamp  `json:"createdAt"`
	UpdatedAt          scalar.Timestamp  `json:"updatedAt"`
	EventID            string            `json:"eventId"`
	Title              string            `json:"title"`
	Instructions       string            `json:"instructions"`
	Scope              ReadinessScope    `json:"scope"`
	AutoAssignOnAccept bool              `json:"autoAssignOnAccept"`
	DueDate            *scalar.Timestamp `json:"dueDate"`
	Position           int               `json:"position"`
}

// FileRequirement is a file requirement.
type FileRequirement struct {
	ID          string            `json:"id"`
	CreatedAt   scalar.Timestamp  `json:"createdAt"`
	UpdatedAt   scalar.Timestamp  `json:"updatedAt"`
	EventID     string            `json:"eventId"`
	Label       string            `json:"label"`
	Description string            `json:"description"`
	Scope       ReadinessScope    `json:"scope"`
	DueAt       *scalar.Timestamp `json:"dueAt"`
	Position    int               `json:"position"`
}

// Task is a task of a session or of one of its speakers.
type Task struct {
	ID         string         `json:"id"`
	SessionID  string         `json:"sessionId"`
	TemplateID string         `json:"templateId"`
	Title      string         `json:"title"`
	Scope      ReadinessScope `json:"scope"`
	ContactID  *string        `json:"contactId"`
	Status     TaskStatus     `json:"status"`
	// Instructions are the template's: what the speaker reads before doing the task.
	Instructions string            `json:"instructions"`
	DueDate      *scalar.Timestamp `json:"dueDate"`
	CompletedAt  *scalar.Timestamp `json:"completedAt"`

	SortPosition int `json:"-"` // the template's, for ordering
}

// Deliverable is a file owed for a session or by one of its speakers.
type Deliverable struct {
	ID            string `json:"id"`
	SessionID     string `json:"sessionId"`
	RequirementID string `json:"requirementId"`
	Label         string `json:"label"`
	// Description and DueAt are the requirement's: what the organizers expect, and by when.
	Description string            `json:"description"`
	DueAt       *scalar.Timestamp `json:"dueAt"`
	Scope       ReadinessScope    `json:"scope"`
	ContactID   *string           `json:"contactId"`
	Status      DeliverableStatus `json:"status"`
	FileName    *string           `json:"fileName"`
	ContentType *string           `json:"contentType"`
	Size        *int              `json:"size"`
	StorageKey  *string           `json:"storageKey"`
	UploadedAt  *scalar.Timestamp `json:"uploadedAt"`

	SortPosition int `json:"-"` // the requirement's, for ordering
}

// CancelSessionResult is what cancelling did.
type CancelSessionResult struct {
	ID            string             `json:"id"`
	CancelledAt   scalar.Timestamp   `json:"cancelledAt"`
	CancelledBy   SessionCancelledBy `json:"cancelledBy"`
	CreatedEmails int                `json:"createdEmails"`
	WaivedTasks   int                `json:"waivedTasks"`
}

// DecidedSubmission is one submission of a decision.
type DecidedSubmission struct {
	ID     string           `json:"id"`
	Status SubmissionStatus `json:"status"`
	// NotifiedAt is null while the decision is not yet announced (docs/decisions.md).
	NotifiedAt *scalar.Timestamp `json:"notifiedAt"`
}

// PersonRef names a contact: its id, "First Last" and email address.
type PersonRef struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// MailStatus counts an event's emails not out yet: waiting for a worker (or a retry), and being
// handed to the mail server.
type MailStatus struct {
	Queued  int `json:"queued"`
	Sending int `json:"sending"`
}

// SpeakerSubmission is a submission or session a speaker takes part in, with where it stands.
type SpeakerSubmission struct {
	ID          string            `json:"id"`
	Code        string            `json:"code"`
	Title       string            `json:"title"`
	Status      SubmissionStatus  `json:"status"`
	StartsAt    *scalar.Timestamp `json:"startsAt"`
	CancelledAt *scalar.Timestamp `json:"cancelledAt"`
	// DecisionSent is true once the decision was emailed, and always for a session organizers made.
	DecisionSent bool `json:"decisionSent"`
}
