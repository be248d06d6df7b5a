package operation

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/graph/model"
)

// A manual session is a session created directly (createSession, REST POST /events/{eventId}/sessions),
// not accepted from a call-for-proposals submission: its submission has no source form. Only
// manual sessions can be deleted; sessions from submissions keep their history and are cancelled
// (ent/schema's Submission hook holds that for every caller). The review desk and the AI score
// read only submissions from a form. isManual, manualSQL and fromCFP are the one place this is
// derived from the stored row.

// isManual reports whether s is a manual session's submission.
func isManual(s *ent.Submission) bool { return s.SourceFormID == nil }

// manualSQL is isManual in SQL, over the submissions table aliased s; NOT manualSQL selects the
// submissions from a form.
const manualSQL = "(s.source_form_id IS NULL)"

// fromCFP is the ent predicate of submissions from a call-for-proposals form: not manual.
func fromCFP() predicate.Submission { return submission.SourceFormIDNotNil() }

// sourceOf names where a session or submission came from, given whether it is manual.
func sourceOf(manual bool) model.SessionSource {
	if manual {
		return model.SessionSourceManual
	}
	return model.SessionSourceCfp
}

// The read models of sessions, submissions, speakers and readiness. GraphQL binds its types to
// these structs (gqlgen.yml) and REST encodes them as they are, so their JSON tags and field order
// are the REST contract's: nullable fields are pointers present as null, times are
// scalar.Timestamps.
