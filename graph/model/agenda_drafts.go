package model

import (
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// AgendaDraft is a proposed agenda as both transports answer it (docs/agenda-drafts.md).
type AgendaDraft struct {
	ID            string               `json:"id"`
	EventID       string               `json:"eventId"`
	Name          string               `json:"name"`
	Status        AgendaDraftStatus    `json:"status"`
	Criteria      agenda.DraftCriteria `json:"criteria"`
	Proposal      agenda.Proposal      `json:"proposal"`
	FailureReason *string              `json:"failureReason"`
	Generator     *string              `json:"generator"`
	GeneratedAt   *scalar.Timestamp    `json:"generatedAt"`
	CommittedAt   *scalar.Timestamp    `json:"committedAt"`
	CreatedAt     scalar.Timestamp     `json:"createdAt"`
	UpdatedAt     scalar.Timestamp     `json:"updatedAt"`
}

// AcceptAgendaDraftResult is what accepting a draft answers.
type AcceptAgendaDraftResult struct {
	Agenda               *Agenda      `json:"agenda"`
	Draft                *AgendaDraft `json:"draft"`
	ChangedSubmissionIds []string     `json:"changedSubmissionIds"`
}
