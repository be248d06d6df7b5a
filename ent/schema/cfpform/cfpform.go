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
}

// Invitation states.
const (
	// Invited waits for the person's answer: they are no speaker yet.
	Invited = "pending"
	// Accepted made the person a speaker of the proposal.
	Accepted = "accepted"
	// Declined keeps the person's no: naming them again sends nothing.
	Declined = "declined"
)

// Invitation is a co-speaker a proposal's submitter named, stored in the submission's
// co_speaker_invitations (docs/cfp.md). Naming someone makes them no speaker and no contact of
// the event: they become one when they accept, from the link in their email.
type Invitation struct {
	// Email is the address invited, lower-cased.
	Email string `json:"email"`
	// Name is the name the submitter typed, shown on the invitation page and used for the contact
	// made when they accept and the event does not know them.
	Name string `json:"name"`
	// Status is Invited, Accepted or Declined.
	Status string `json:"status"`
	// ContactCreated says accepting made the person's contact in the event: removing them from
	// the proposal removes it again when nothing else holds it.
	ContactCreated bool `json:"contactCreated,omitempty"`
}
