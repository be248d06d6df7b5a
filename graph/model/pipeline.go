package model

import (
	"github.com/podium/podium/graph/scalar"
)

// CrmPipelineStage is a stage, as both transports show it.
type CrmPipelineStage struct {
	ID             string            `json:"id"`
	CreatedAt      scalar.Timestamp  `json:"createdAt"`
	UpdatedAt      scalar.Timestamp  `json:"updatedAt"`
	OrganizationID string            `json:"organizationId"`
	Name           string            `json:"name"`
	SemanticStatus CrmSemanticStatus `json:"semanticStatus"`
	Position       int               `json:"position"`
}
