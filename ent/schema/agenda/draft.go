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
	// DayStartMinutes and DayEndMinutes are the daily window sessions are placed in, in minutes
	// after local midnight, inside the canvas (CanvasStart to CanvasEnd). Zero in drafts stored
	// before the window existed: read them through Window.
	DayStartMinutes int `json:"dayStartMinutes"`
	DayEndMinutes   int `json:"dayEndMinutes"`
}

// The canvas every daily window lies in: 08:00 to 19:00 local time, in minutes after midnight.
// Starts and ends of the window and of every placement are on 5-minute marks.
const (
	CanvasStart = 8 * 60
	CanvasEnd   = 19 * 60
	MinuteMark  = 5
)

// Window is the daily window, the whole canvas where it was never set.
func (c DraftCriteria) Window() (start, end int) {
	start, end = c.DayStartMinutes, c.DayEndMinutes
	if start == 0 {
		start = CanvasStart
	}
	if end == 0 {
		end = CanvasEnd
	}
	return start, end
}

// Proposal is a draft's proposed agenda: a placement per active session, or the reason it has
// none.
type Proposal struct {
	Placements []Placement `json:"placements"`
	// Unplaced are the sessions no conflict-free slot was found for; absent in drafts stored
	// before sessions could be left unplaced.
	Unplaced []Unplaced `json:"unplaced"`
}

// Unplaced is a session a proposal leaves out, and why.
type Unplaced struct {
	SubmissionID string `json:"submissionId"`
	Reason       string `json:"reason"`
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
