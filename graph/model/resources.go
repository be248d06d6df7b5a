package model

import (
	"github.com/podium/podium/graph/scalar"
)

// ResourceRecord is a speaker resource with its audience (docs/rest-api.md §4 "Resources").
type ResourceRecord struct {
	ID              string                  `json:"id"`
	CreatedAt       scalar.Timestamp        `json:"createdAt"`
	UpdatedAt       scalar.Timestamp        `json:"updatedAt"`
	EventID         string                  `json:"eventId"`
	Title           string                  `json:"title"`
	Subtitle        string                  `json:"subtitle"`
	Body            string                  `json:"body"`
	Position        int                     `json:"position"`
	Published       bool                    `json:"published"`
	AudienceMode    ResourceAudienceMode    `json:"audienceMode"`
	AttachmentKind  *ResourceAttachmentKind `json:"attachmentKind"`
	LinkURL         *string                 `json:"linkUrl"`
	EmbedURL        *string                 `json:"embedUrl"`
	FileStorageKey  *string                 `json:"fileStorageKey"`
	FileName        *string                 `json:"fileName"`
	FileContentType *string                 `json:"fileContentType"`
	FileSize        *int64                  `json:"fileSize"`
	TrackIds        []string                `json:"trackIds"`
	ContactIds      []string                `json:"contactIds"`
}
