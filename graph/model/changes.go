package model

import "time"

// EventChange is one committed change to an event, as the eventChanges subscription delivers it
// (graph/subscriptions.graphqls): thin, the ids it concerns and its new status. Session and
// submission are resolved when it is delivered, with the subscriber's access.
type EventChange struct {
	Cursor  string          `json:"cursor"`
	Type    EventChangeType `json:"type"`
	At      time.Time       `json:"at"`
	EventID string          `json:"eventId"`
	// The ids and the status, nil when the change does not concern them.
	SessionID    *string `json:"sessionId"`
	SubmissionID *string `json:"submissionId"`
	SpeakerID    *string `json:"speakerId"`
	RoundID      *string `json:"roundId"`
	AssignmentID *string `json:"assignmentId"`
	ReviewerID   *string `json:"reviewerId"`
	EmailID      *string `json:"emailId"`
	BlockID      *string `json:"blockId"`
	Status       *string `json:"status"`
	Count        *int    `json:"count"`
}

// MyReviewChange is a change to one of the caller's review assignments (myReviewChanges); the
// assignment is resolved when it is delivered.
type MyReviewChange struct {
	Cursor       string          `json:"cursor"`
	Type         EventChangeType `json:"type"`
	At           time.Time       `json:"at"`
	EventID      string          `json:"-"`
	AssignmentID *string         `json:"assignmentId"`
	Count        *int            `json:"count"`
}
