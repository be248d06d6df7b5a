package access

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// Scope is a power an API key holds (docs/rest-api.md §2). A key holds a non-empty set of them;
// keys of the command line, and keys made before scopes existed, hold all three. Scopes bind API
// keys only: signed-in people have roles (Rules).
type Scope string

const (
	// ScopeRead runs queries and GET routes: it reads the organization's data.
	ScopeRead Scope = "read"
	// ScopeWrite runs mutations and the routes that change data. It implies nothing else: a key
	// with write alone cannot read back what it wrote.
	ScopeWrite Scope = "write"
	// ScopeSendMail lets a change send email to people (invitations, decisions, campaigns,
	// calendar invites, reminders); it is needed beside write.
	ScopeSendMail Scope = "send_mail"
)

// Scopes are every scope, in the order they are listed.
var Scopes = []Scope{ScopeRead, ScopeWrite, ScopeSendMail}

// Need is what an API key must hold to run a root field.
type Need int

const (
	// NeedRead needs read.
	NeedRead Need = iota + 1
	// NeedWrite needs write.
	NeedWrite
	// NeedSendMail needs write and send_mail: the field emails people.
	NeedSendMail
	// NeedSendMailIfAsked needs write, and send_mail when the call asks for email (deciding with
	// inform, cancelling or reinstating a session while telling its speakers): the operation
	// checks that with RequireSendMail before it writes.
	NeedSendMailIfAsked
)

// Reach is how far a root field acts: inside events named in its arguments, or on the
// organization as a whole.
type Reach bool

const (
	// InEvent fields act on the events their arguments name (the operations check each with
	// Event), or answer about the caller alone: a key confined to one event may run them.
	InEvent Reach = false
	// Organization fields act on the organization as a whole (its contact book, webhooks,
	// members, any node by id): a key confined to one event may not run them.
	Organization Reach = true
)

// KeyRule is what an API key needs to run a root field, and how far the field reaches.
type KeyRule struct {
	Need  Need
	Reach Reach
}

// KeyRoute is the rule of a REST route, derived from KeyRules: the rule of the first of fields
// (the root fields of its operation: those whose description names the route, then the one its
// operation id names) that has an entry, else read for GET and write for the other methods. A
// route outside /events/{eventId} (and the list of events) reaches the organization, unless its
// field says otherwise.
func KeyRoute(method, path string, fields ...string) KeyRule {
	for _, f := range fields {
		if rule, ok := KeyRules[f]; ok {
			return rule
		}
	}
	rule := KeyRule{Need: NeedWrite, Reach: InEvent}
	if method == http.MethodGet {
		rule.Need = NeedRead
	}
	if !strings.HasPrefix(path, "/events/{eventId}") && path != "/events" {
		rule.Reach = Organization
	}
	return rule
}

// ErrOneEvent answers a key confined to one event asking for something of the whole organization.
var ErrOneEvent = apperr.Forbidden("This API key acts on one event only")

// KeyField decides whether the API key of ctx may run the root field object.name by KeyRules.
// Anyone else (a person, background work) passes: scopes do not bind them.
func KeyField(ctx context.Context, object, name string) error {
	if name == "__typename" {
		return nil
	}
	rule, ok := KeyRules[object+"."+name]
	if !ok {
		if v := viewer.FromContext(ctx); v != nil && v.APIKeyID != "" {
			return ErrPersonForbidden
		}
		return nil
	}
	return Key(ctx, rule)
}

// Key decides whether the caller of ctx may run an operation of the rule by its scopes: an API
// key, or an application acting for a person (whose grant holds scopes as a key does). It answers
// 403 insufficient_scope naming the scope missing, or forbidden for a key confined to one event
// asking for the organization. Anyone else (a person in their own browser, background work) passes.
func Key(ctx context.Context, rule KeyRule) error {
	v := viewer.FromContext(ctx)
	if !scoped(v) {
		return nil
	}
	need := []Scope{ScopeRead}
	switch rule.Need {
	case NeedWrite, NeedSendMailIfAsked:
		need = []Scope{ScopeWrite}
	case NeedSendMail:
		need = []Scope{ScopeWrite, ScopeSendMail}
	}
	for _, s := range need {
		if !HasScope(v, s) {
			return insufficientScope(v, s)
		}
	}
	if rule.Reach == Organization && v.APIKeyEventID != "" {
		return ErrOneEvent
	}
	return nil
}

// ClientField decides whether the application acting for the person of ctx may run the root field
// object.name by the scopes of its grant: the field's KeyRules entry, else read for queries and
// subscriptions and write for mutations (the people's own fields, which keys never run).
func ClientField(ctx context.Context, object, name string) error {
	if name == "__typename" || name == "__schema" || name == "__type" {
		return nil
	}
	rule, ok := KeyRules[object+"."+name]
	if !ok {
		rule = KeyRule{Need: NeedRead}
		if object == "Mutation" {
			rule.Need = NeedWrite
		}
	}
	return Key(ctx, rule)
}

// RequireSendMail refuses a change about to email people when it is asked by an API key, or an
// application acting for a person, without send_mail (the fields of NeedSendMailIfAsked). Call it
// before writing anything.
func RequireSendMail(ctx context.Context) error {
	v := viewer.FromContext(ctx)
	if !scoped(v) || HasScope(v, ScopeSendMail) {
		return nil
	}
	return insufficientScope(v, ScopeSendMail)
}

// scoped reports whether scopes bind v: an API key, or an application acting for a person.
func scoped(v *viewer.Viewer) bool { return v != nil && (v.APIKeyID != "" || v.Client != nil) }

// ParseScopes checks a key's scopes — at least one, each read, write or send_mail — and returns
// them without duplicates, in the order of Scopes.
func ParseScopes(names []string) ([]string, error) {
	var out []string
	for _, s := range Scopes {
		if slices.Contains(names, string(s)) {
			out = append(out, string(s))
		}
	}
	for _, n := range names {
		if !slices.Contains(Scopes, Scope(n)) {
			return nil, apperr.Invalid("Unknown scope %q: the scopes are read, write and send_mail", n)
		}
	}
	if len(out) == 0 {
		return nil, apperr.Invalid("A key needs at least one scope: read, write or send_mail")
	}
	return out, nil
}

// ScopeNames are the names of scopes.
func ScopeNames(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// HasScope reports whether the API key of v, or the grant of the application acting for v's
// person, holds s.
func HasScope(v *viewer.Viewer, s Scope) bool {
	if v.Client != nil {
		return slices.Contains(v.Client.Scopes, string(s))
	}
	return slices.Contains(v.APIKeyScopes, string(s))
}

// insufficientScope is the refusal of v lacking scope s: an API key, or an application whose
// grant lacks it.
func insufficientScope(v *viewer.Viewer, s Scope) error {
	if v.Client != nil {
		return apperr.New(http.StatusForbidden, apperr.CodeInsufficientScope,
			"You did not grant "+v.Client.Name+" the scope "+string(s)+": connect it again and grant "+string(s)+" for this operation")
	}
	return InsufficientScope(s)
}

// InsufficientScope is the refusal of a key that lacks scope s: 403 insufficient_scope.
func InsufficientScope(s Scope) error {
	return apperr.New(http.StatusForbidden, apperr.CodeInsufficientScope,
		"This API key lacks the scope "+string(s)+": use a key with "+string(s)+" for this operation")
}
