package model

import "github.com/podium/podium/graph/scalar"

// QuickReview is a person's quick review of a submission as both transports show it (GraphQL
// QuickReview, REST's submission detail and PUT …/review); bound by name in gqlgen.yml, as ent has
// a QuickReview of its own.
type QuickReview struct {
	// The review's id.
	ID string `json:"id"`
	// The reviewer's user id.
	ReviewerID string `json:"reviewerId"`
	// The reviewer's name.
	ReviewerName string `json:"reviewerName"`
	// Where the reviewer's picture can be downloaded; null when none.
	ReviewerImage *string `json:"reviewerImage"`
	// approve, maybe or deny.
	Decision string `json:"decision"`
	// The reviewer's score; null when none.
	Score *int `json:"score"`
	// The reviewer's comment; null when none.
	Comment *string `json:"comment"`
	// When the review last changed.
	UpdatedAt scalar.Timestamp `json:"updatedAt"`
}
