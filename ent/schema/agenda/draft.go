package agenda

// DraftCriteria is what an agenda draft was asked to do: which days and rooms to use, which
// sessions to include, whether to keep placements already made, and free-text rules for the
// provider (docs/agenda-drafts.md).
type DraftCriteria struct {
	// Days are local dates (YYYY-MM-DD) in the event's time zone.
	Days    []string `json:"days"`
	RoomIDs []string `json:"roomIds"`
	// IncludeStatuses is always ["accepted"]: drafts schedule active sessions only.
	IncludeStatuses           []string `json:"includeStatuses"`
	RespectExistingPlacements bool     `json:"respectExistingPlacements"`
	Rules                     []string `json:"rules"`
}

// Proposal is a draft's proposed agenda: one placement per active session.
type Proposal struct {
	Placements []Placement `json:"placements"`
}

// Placement puts one session in a room and slot. Times are ISO 8601 UTC strings with
// milliseconds, as every other time Podium answers.
type Placement struct {
	SubmissionID string `json:"submissionId"`
	RoomID       string `json:"roomId"`
	StartsAt     string `json:"startsAt"`
	EndsAt       string `json:"endsAt"`
	Reason       string `json:"reason"`
}
