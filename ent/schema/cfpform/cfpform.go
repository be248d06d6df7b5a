// Package cfpform holds the shape of a call-for-proposals form's custom questions, stored as JSON
// in forms.questions (docs/cfp.md).
package cfpform

// Kinds of question.
const (
	// Text is a one-line answer.
	Text = "text"
	// LongText is a paragraph.
	LongText = "long_text"
	// Choice is one of Options.
	Choice = "choice"
)

// Question is one custom question of a form. Its reply lands in the submission's answers under
// Key.
type Question struct {
	// Key names the reply in answers: lower-case letters, digits and underscores.
	Key string `json:"key"`
	// Label is the question as the speaker reads it.
	Label string `json:"label"`
	// Kind is Text, LongText or Choice.
	Kind string `json:"kind"`
	// Required refuses a submit without a reply (a draft may leave it empty).
	Required bool `json:"required"`
	// Options are the choices of a Choice question.
	Options []string `json:"options,omitempty"`
	// HiddenFromReviewers keeps the replies from reviewers (the reviewer desk leaves them out);
	// organizers see them.
	HiddenFromReviewers bool `json:"hiddenFromReviewers,omitempty"`
}
