// Package chaser holds an event's chaser settings: the reminders Podium sends by itself to
// speakers who have not confirmed, speakers with deliverables due and reviewers with reviews
// pending (docs/chasers.md).
package chaser

// Kinds of chaser.
const (
	// Confirmation chases speakers told of an acceptance who have not confirmed taking part.
	Confirmation = "confirmation"
	// Deliverables chases speakers with open tasks or outstanding files that have a due date.
	Deliverables = "deliverables"
	// Reviews chases reviewers with pending assignments in a round that closes.
	Reviews = "reviews"
)

// Kinds lists every kind, in the order organizers see them.
var Kinds = []string{Confirmation, Deliverables, Reviews}

// Settings are an event's chasers: its rules, the quiet hours in the event's time zone during
// which none is sent, and how many one person may receive in one of the event's days.
type Settings struct {
	Rules []Rule `json:"rules"`
	// QuietStart and QuietEnd are minutes after local midnight: no chaser leaves from QuietStart
	// until QuietEnd (the window may span midnight; equal values mean no quiet hours).
	QuietStart int `json:"quietStart"`
	QuietEnd   int `json:"quietEnd"`
	// DailyCap is how many chasers one recipient may receive in one local day, all kinds together.
	DailyCap int `json:"dailyCap"`
}

// Rule is when one kind of chaser is sent.
type Rule struct {
	Kind    string `json:"kind"`
	Enabled bool   `json:"enabled"`
	// OffsetHours is, for confirmation, how long after the person was told of the acceptance the
	// first chaser goes; for deliverables and reviews, how long before the due date or the
	// round's close.
	OffsetHours int `json:"offsetHours"`
	// EveryHours is the least time between two chasers of this kind to one person.
	EveryHours int `json:"everyHours"`
	// MaxSends bounds the chasers of this kind one person receives for the same thing.
	MaxSends int `json:"maxSends"`
}

// Rule returns the rule of kind and whether it is enabled.
func (s Settings) Rule(kind string) (Rule, bool) {
	for _, r := range s.Rules {
		if r.Kind == kind {
			return r, r.Enabled
		}
	}
	return Rule{Kind: kind}, false
}
