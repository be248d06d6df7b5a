package model

import (
	"github.com/podium/podium/graph/scalar"
)

// APIKey is an organization's API key as both transports show it (GraphQL ApiKey, REST GET
// /api-keys): never its secret nor its hash.
type APIKey struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Prefix     string            `json:"prefix"`
	Scopes     []APIKeyScope     `json:"scopes"`
	EventID    *string           `json:"eventId"`
	CreatedAt  scalar.Timestamp  `json:"createdAt"`
	LastUsedAt *scalar.Timestamp `json:"lastUsedAt"`
	ExpiresAt  *scalar.Timestamp `json:"expiresAt"`
	RevokedAt  *scalar.Timestamp `json:"revokedAt"`
	CreatedBy  *APIKeyCreator    `json:"createdBy"`
	APIVersion *string           `json:"apiVersion"`
}
