package model

import (
	"github.com/podium/podium/graph/scalar"
)

// ReminderRuleRecord is an automatic reminder rule in the original API's shape. Podium has none
// (docs/campaigns.md): reviewer reminders are sent on request.
type ReminderRuleRecord struct {
	ID            string            `json:"id"`
	CreatedAt     scalar.Timestamp  `json:"createdAt"`
	UpdatedAt     scalar.Timestamp  `json:"updatedAt"`
	EventID       string            `json:"eventId"`
	Scope         string            `json:"scope"`
	TaskType      string            `json:"taskType"`
	DaysBeforeDue int               `json:"daysBeforeDue"`
	Enabled       bool              `json:"enabled"`
	LastRunAt     *scalar.Timestamp `json:"lastRunAt"`
}
