package model

import (
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// The review workspace's read model (docs/rest-api.md §4 "Reviews"). JSON tags are the REST shape;
// GraphQL serves the same structs.

// EvaluationWorkspace is GET E/evaluation and Event.evaluation.
type EvaluationWorkspace struct {
	EventID      string         `json:"eventId"`
	AiConfigured bool           `json:"aiConfigured"`
	Tracks       []agenda.Track `json:"tracks"`
	Rounds       []*RoundView   `json:"rounds"`
}

// RoundView is one round of the workspace.
type RoundView struct {
	Configuration *RoundConfiguration       `json:"configuration"`
	Reviewers     []*Reviewer               `json:"reviewers"`
	Assignments   []*ReviewAssignmentRecord `json:"assignments"`
	Submissions   []*EvaluationSubmission   `json:"submissions"`
	Progress      []*ReviewProgressRow      `json:"progress"`
	Results       []*ReviewResultRow        `json:"results"`

	// Index lets GraphQL walk from an assignment to its submission and answers without queries.
	Index *RoundIndex `json:"-"`
}

// RoundConfiguration is a round's settings, scorecard and pool.
type RoundConfiguration struct {
	Round    *Round         `json:"round"`
	Criteria []*Criterion   `json:"criteria"`
	Members  []*RoundMember `json:"members"`
}

// Round is a review round as stored, with the status its window gives it now.
type Round struct {
	ID                   string            `json:"id"`
	CreatedAt            scalar.Timestamp  `json:"createdAt"`
	UpdatedAt            scalar.Timestamp  `json:"updatedAt"`
	EventID              string            `json:"eventId"`
	Name                 string            `json:"name"`
	OpensAt              scalar.Timestamp  `json:"opensAt"`
	ClosesAt             scalar.Timestamp  `json:"closesAt"`
	Blind                bool              `json:"blind"`
	ReviewsPerSubmission int               `json:"reviewsPerSubmission"`
	Position             int               `json:"position"`
	Status               ReviewRoundStatus `json:"status"`
}

// Criterion is one line of a scorecard.
type Criterion struct {
	ID        string              `json:"id"`
	CreatedAt scalar.Timestamp    `json:"createdAt"`
	UpdatedAt scalar.Timestamp    `json:"updatedAt"`
	RoundID   string              `json:"roundId"`
	Label     string              `json:"label"`
	Type      ReviewCriterionType `json:"type"`
	Min       *float64            `json:"min"`
	Max       *float64            `json:"max"`
	Options   []string            `json:"options"`
	Required  bool                `json:"required"`
	Weight    float64             `json:"weight"`
	Position  int                 `json:"position"`
}

// RoundMember puts an event member in a round's pool.
type RoundMember struct {
	ID            string           `json:"id"`
	CreatedAt     scalar.Timestamp `json:"createdAt"`
	UpdatedAt     scalar.Timestamp `json:"updatedAt"`
	RoundID       string           `json:"roundId"`
	EventMemberID string           `json:"eventMemberId"`
	AssignmentCap *int             `json:"assignmentCap"`
}

// Reviewer is a pool member with their name and email.
type Reviewer struct {
	Member *RoundMember `json:"member"`
	Name   string       `json:"name"`
	Email  string       `json:"email"`
}

// ReviewerIdentity names the reviewer of an assignment.
type ReviewerIdentity struct {
	EventMemberID string `json:"eventMemberId"`
	Name          string `json:"name"`
	Email         string `json:"email"`
}

// EvaluationSubmission is a submission as reviewers see it; blind rounds hide who submitted it.
type EvaluationSubmission struct {
	ID           string                   `json:"id"`
	Code         string                   `json:"code"`
	Title        string                   `json:"title"`
	Description  string                   `json:"description"`
	Status       SubmissionStatus         `json:"status"`
	SubmittedAt  scalar.Timestamp         `json:"submittedAt"`
	TrackIds     []string                 `json:"trackIds"`
	TrackNames   []string                 `json:"trackNames"`
	Participants []*EvaluationParticipant `json:"participants"`
}

// EvaluationParticipant is a participant of a submission under review.
type EvaluationParticipant struct {
	Name        string  `json:"name"`
	Role        string  `json:"role"`
	ContactID   *string `json:"contactId"`
	HeadshotURL *string `json:"headshotUrl"`
}

// ReviewProgressRow is a reviewer's progress in a round.
type ReviewProgressRow struct {
	EventMemberID string `json:"eventMemberId"`
	Name          string `json:"name"`
	Email         string `json:"email"`
	Assigned      int    `json:"assigned"`
	Completed     int    `json:"completed"`
	Recused       int    `json:"recused"`
	Remaining     int    `json:"remaining"`
	Percentage    int    `json:"percentage"`
}

// ReviewResultRow is a round's outcome for one submission.
type ReviewResultRow struct {
	Submission         *EvaluationSubmission `json:"submission"`
	HumanReviews       []*HumanReview        `json:"humanReviews"`
	ReviewerCount      int                   `json:"reviewerCount"`
	CompletedCount     int                   `json:"completedCount"`
	WeightedAggregate  *float64              `json:"weightedAggregate"`
	Recommendation     *string               `json:"recommendation"`
	AiResult           *AIResult             `json:"aiResult"`
	AiOverriddenByName *string               `json:"aiOverriddenByName"`
}

// AIResult is the AI provider's score of a submission in a round.
type AIResult struct {
	ID                   string            `json:"id"`
	CreatedAt            scalar.Timestamp  `json:"createdAt"`
	UpdatedAt            scalar.Timestamp  `json:"updatedAt"`
	RoundID              string            `json:"roundId"`
	SubmissionID         string            `json:"submissionId"`
	Score                float64           `json:"score"`
	Reasoning            string            `json:"reasoning"`
	Provider             string            `json:"provider"`
	Model                string            `json:"model"`
	OverriddenScore      *float64          `json:"overriddenScore"`
	OverrideReason       *string           `json:"overrideReason"`
	OverriddenByUserID   *string           `json:"overriddenByUserId"`
	OverriddenByAPIKeyID *string           `json:"overriddenByApiKeyId"`
	OverriddenAt         *scalar.Timestamp `json:"overriddenAt"`
}

// ReviewerTrackSet is a member's reviewer tracks.
type ReviewerTrackSet struct {
	EventMemberID string   `json:"eventMemberId"`
	TrackIds      []string `json:"trackIds"`
}

// ReviewerProvisioned answers adding a reviewer.
type ReviewerProvisioned struct {
	Reviewer         *Reviewer `json:"reviewer"`
	AccessPath       string    `json:"accessPath"`
	AlreadyInPool    bool      `json:"alreadyInPool"`
	InvitationLogged bool      `json:"invitationLogged"`
	InvitationLogID  *string   `json:"invitationLogId"`
}

// AutoDistributionResult answers an auto-distribution.
type AutoDistributionResult struct {
	Planned          []*PlannedAssignment         `json:"planned"`
	Created          int                          `json:"created"`
	Skipped          int                          `json:"skipped"`
	OutOfTrack       int                          `json:"outOfTrack"`
	ConflictsSkipped int                          `json:"conflictsSkipped"`
	Shortfalls       []*AutoDistributionShortfall `json:"shortfalls"`
}

// PlannedAssignment is one assignment an auto-distribution plans.
type PlannedAssignment struct {
	SubmissionID  string               `json:"submissionId"`
	EventMemberID string               `json:"eventMemberId"`
	Tier          AutoDistributionTier `json:"tier"`
}

// AutoDistributionShortfall is a submission left short of reviewers.
type AutoDistributionShortfall struct {
	SubmissionID string                          `json:"submissionId"`
	Code         string                          `json:"code"`
	Missing      int                             `json:"missing"`
	Reason       AutoDistributionShortfallReason `json:"reason"`
}

// MyEventReviews is a reviewer's queue in one event (REST GET /events/{eventId}/my-reviews): their
// event membership and, by round, their assignments with the submission as the round shows it to
// reviewers (redacted in a blind round) and their own stored answers.
type MyEventReviews struct {
	EventID       string          `json:"eventId"`
	EventMemberID string          `json:"eventMemberId"`
	Rounds        []*MyRoundQueue `json:"rounds"`
}

// MyRoundQueue is a reviewer's assignments in one round, with the round's scorecard and counts.
type MyRoundQueue struct {
	Round     *Round         `json:"round"`
	Criteria  []*Criterion   `json:"criteria"`
	Items     []*MyQueueItem `json:"items"`
	Pending   int            `json:"pending"`
	Completed int            `json:"completed"`
	Recused   int            `json:"recused"`
}

// MyQueueItem is one assignment of a reviewer's queue.
type MyQueueItem struct {
	Assignment   *ReviewAssignmentRecord  `json:"assignment"`
	Code         string                   `json:"code"`
	Title        string                   `json:"title"`
	Description  string                   `json:"description"`
	Status       SubmissionStatus         `json:"status"`
	TrackNames   []string                 `json:"trackNames"`
	Participants []*EvaluationParticipant `json:"participants"`
	Answers      []*ReviewAnswerRecord    `json:"answers"`
}

// ReviewAnswerRecord is a reviewer's answer to one criterion, as stored.
type ReviewAnswerRecord struct {
	ID           string           `json:"id"`
	CreatedAt    scalar.Timestamp `json:"createdAt"`
	UpdatedAt    scalar.Timestamp `json:"updatedAt"`
	AssignmentID string           `json:"assignmentId"`
	CriterionID  string           `json:"criterionId"`
	NumericValue *float64         `json:"numericValue"`
	TextValue    *string          `json:"textValue"`
	OptionValue  *string          `json:"optionValue"`
}
