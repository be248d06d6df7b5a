// Package viewer carries who is making a request, and so which organization's data it may touch,
// through a context. It is a leaf package so that the ent schema's tenant filter, the database
// layer (which tells PostgreSQL the organization of every statement), the access layer, both
// transports and the job workers can share it without import cycles.
//
// A context is in one of three states, and only two of them reach tenant data:
//
//   - scoped to one organization: a request with an API key (NewContext), or background work
//     done for one organization (WithOrganization);
//   - system: work that spans organizations on purpose (System), such as migrations, looking up
//     an API key before its organization is known, or the idempotency prune job. It is marked
//     with a reason, so that `grep -rn 'viewer.System('` lists every such place;
//   - neither: a context that lost its scope. Tenant queries in it fail (ErrNoScope) and
//     PostgreSQL shows it no tenant rows — a lost viewer never widens what is visible.
package viewer

import (
	"context"
	"errors"
)

// Viewer is the caller of a request: an organization API key, or a person signed in through a
// browser session (docs/people.md). Every request that passed the API key or session check has one.
type Viewer struct {
	// OrganizationID scopes every query: data of other organizations is invisible. For a person
	// it is the organization they act for as a member (Role), and empty when they are no
	// organization's member: such a person reaches only what package access grants people.
	OrganizationID string
	// APIKeyID and APIKeyName identify the key, recorded as the actor of writes. Both are empty
	// for background work done for an organization (see WithOrganization) and for a person.
	APIKeyID   string
	APIKeyName string
	// APIKeyScopes are what the key may do: "read", "write", "send_mail" (package access decides
	// each root field and route by them). Empty for a person and for background work, whom
	// scopes do not bind.
	APIKeyScopes []string
	// APIKeyEventID confines the key to one event: other events answer as another
	// organization's do. Empty for a key of the whole organization, a person and background work.
	APIKeyEventID string
	// APIKeyVersion is the REST API version the key is pinned to; "" for none.
	APIKeyVersion string
	// Person is the signed-in person, nil for an API key and background work.
	Person *Person
	// Client is the application acting for Person through an OAuth grant (docs/agents.md): the
	// person's roles bound it, and so do the scopes the person granted it. Nil when the person
	// acts in a browser of their own, for an API key and for background work.
	Client *Client
	// Role is the person's role in OrganizationID: owner, admin or member (who reads and
	// changes nothing); empty for an API key.
	Role string
}

// Person is someone signed in by email link: a user, with every role their address has in
// Podium. A person spans organizations; their organization scope comes from these roles.
type Person struct {
	UserID string
	Email  string
	Name   string
	// SessionID is the browser session's row id (not its secret).
	SessionID string
	// Memberships are the organizations the person belongs to, with their role.
	Memberships []Membership
	// EventRoles are the events where the person is an event member (admin or reviewer).
	EventRoles []EventRole
	// Contacts are the event contacts whose email is the person's: the events they speak at.
	Contacts []Contact
}

// Client is an application a person authorized (OAuth), acting for them.
type Client struct {
	// ID is the client's id (its registration), Name the name it registered with.
	ID   string
	Name string
	// GrantID is the person's grant to the client, which every token of it belongs to.
	GrantID string
	// Scopes are the scopes the person granted: "read", "write", "send_mail".
	Scopes []string
}

// Membership is a person's role in an organization: owner, admin or member.
type Membership struct {
	OrganizationID string
	Role           string
}

// EventRole is a person's event membership: role admin or reviewer.
type EventRole struct {
	OrganizationID string
	EventID        string
	MemberID       string
	Role           string
}

// Contact is an event contact whose email is the person's.
type Contact struct {
	OrganizationID string
	EventID        string
	ContactID      string
}

// ErrNoScope is returned for a query on a tenant table from a context that is neither scoped to
// an organization nor marked System: a programming error (a goroutine started with
// context.Background(), a job without its organization), answered as an internal error.
var ErrNoScope = errors.New("viewer: no organization in context: tenant data needs viewer.NewContext, viewer.WithOrganization or viewer.System")

type contextKey struct{}

type systemKey struct{}

// NewContext returns ctx carrying v. A viewer replaces any System mark of ctx.
func NewContext(ctx context.Context, v *Viewer) context.Context {
	ctx = context.WithValue(ctx, systemKey{}, "")
	return context.WithValue(ctx, contextKey{}, v)
}

// WithOrganization returns ctx scoped to the organization org without an API key: background
// work (a job, a seed) done for one organization.
func WithOrganization(ctx context.Context, org string) context.Context {
	return NewContext(ctx, &Viewer{OrganizationID: org})
}

// FromContext returns the viewer of ctx, or nil when ctx carries none.
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(contextKey{}).(*Viewer)
	return v
}

// OrganizationID returns the organization ctx is scoped to, or "" when it is not scoped (system
// work or a context that lost its scope).
func OrganizationID(ctx context.Context) string {
	if v := FromContext(ctx); v != nil && !IsSystem(ctx) {
		return v.OrganizationID
	}
	return ""
}

// System returns ctx marked as system work: it sees and may write the data of every organization,
// in the code and in PostgreSQL (whose policies honour the mark, see docs/tenancy.md). reason says
// why the work spans organizations; it is recorded for logs and must be a constant. Use it
// rarely: every call is a hole in the wall, listed in docs/tenancy.md.
func System(ctx context.Context, reason string) context.Context {
	if reason == "" {
		panic("viewer: System needs a reason")
	}
	ctx = context.WithValue(ctx, contextKey{}, (*Viewer)(nil))
	return context.WithValue(ctx, systemKey{}, reason)
}

type anyScopeKey struct{}

// AnyScope returns ctx marked as work whose statements read no tenant table directly, only
// through a database function that sets its own scope (the API key lookup). A connection taken
// for it keeps whatever organization it was last told, which saves the two round trips of
// telling it "system" and then the organization again.
func AnyScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, anyScopeKey{}, true)
}

// IsAnyScope reports whether ctx is marked by AnyScope.
func IsAnyScope(ctx context.Context) bool {
	b, _ := ctx.Value(anyScopeKey{}).(bool)
	return b
}

// IsSystem reports whether ctx is marked as system work.
func IsSystem(ctx context.Context) bool {
	return SystemReason(ctx) != ""
}

// SystemReason returns the reason ctx was marked as system work, or "".
func SystemReason(ctx context.Context) string {
	r, _ := ctx.Value(systemKey{}).(string)
	return r
}
