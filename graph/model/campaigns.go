package model

import (
	"github.com/podium/podium/graph/scalar"
)

// CampaignRecord is a campaign as both transports present it (docs/campaigns.md).
type CampaignRecord struct {
	ID                string              `json:"id"`
	CreatedAt         scalar.Timestamp    `json:"createdAt"`
	UpdatedAt         scalar.Timestamp    `json:"updatedAt"`
	EventID           string              `json:"eventId"`
	TemplateID        *string             `json:"templateId"`
	SubjectSnapshot   string              `json:"subjectSnapshot"`
	BodySnapshot      string              `json:"bodySnapshot"`
	RecipientFilter   map[string]any      `json:"recipientFilter"`
	Status            EmailCampaignStatus `json:"status" enum:"draft,sending,sent"`
	CreatedByUserID   *string             `json:"createdByUserId"`
	CreatedByAPIKeyID *string             `json:"createdByApiKeyId"`
	SentAt            *scalar.Timestamp   `json:"sentAt"`
	ReplyTo           *string             `json:"replyTo"`
}
