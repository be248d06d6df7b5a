package model

// RoundIndex lets an assignment of a loaded workspace reach its submission, reviewer and answers.
type RoundIndex struct {
	Submissions map[string]*EvaluationSubmission
	// Identity is what identifies each submission's participants, kept for blind rounds only: the
	// reviewer desk redacts it from replies as the summary's text is.
	Identity  map[string][]string
	Reviews   map[string]*HumanReview
	Reviewers map[string]*ReviewerIdentity
}
