package model

import (
	"github.com/podium/podium/graph/scalar"
)

// CrmSegment is a saved filter, as both transports show it.
type CrmSegment struct {
	ID             string           `json:"id"`
	CreatedAt      scalar.Timestamp `json:"createdAt"`
	UpdatedAt      scalar.Timestamp `json:"updatedAt"`
	OrganizationID string           `json:"organizationId"`
	Name           string           `json:"name"`
	Filter         map[string]any   `json:"filter"`
}
