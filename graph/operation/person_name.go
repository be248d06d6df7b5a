package operation

import (
	"strings"
)

// fullName is "first last", trimmed: a contact's name as emails, lists and calendars show it.
func fullName(first, last string) string { return strings.TrimSpace(first + " " + last) }

// proposalName is fullName for a speaker whose last name may be the "-" that the call for proposals
// once stored for a speaker who typed none.
func proposalName(first, last string) string { return fullName(first, strings.Trim(last, "-")) }
