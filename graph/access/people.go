package access

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/browsersession"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/eventmember"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/organization"
	"github.com/podium/podium/ent/organizationinvitation"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/signintoken"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph/access/landing"
	"github.com/podium/podium/graph/access/mailbudget"
	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
)

// Lifetimes of sign-in links and browser sessions (docs/people.md). A link is short-lived and
// single-use because it travels by email, which is read on many devices and kept for years. A
// session ends after a week without use, and in any case thirty days after sign-in, so a
// forgotten browser does not stay signed in for ever.
const (
	LinkLifetime    = secret.LinkLifetime
	SessionIdle     = 7 * 24 * time.Hour
	SessionLifetime = 30 * 24 * time.Hour
	// seenEvery bounds how often a session's last_seen_at is written.
	seenEvery = time.Minute
)

// ErrBadLink answers every sign-in link that cannot sign anyone in: unknown, forged, truncated,
// expired or already used. One answer for all, so a link tells nothing about the others.
var ErrBadLink = apperr.New(http.StatusForbidden, apperr.CodeForbidden,
	"This sign-in link is invalid, expired or already used: ask for a new one")

// ErrNoSession answers a request whose session cookie names no live session.
var ErrNoSession = apperr.New(http.StatusUnauthorized, apperr.CodeMissingAPIKey,
	"Sign in again: this session has ended")

// People signs people in by email link and keeps their browser sessions. Sign-in tokens and
// sessions are system state, not tenant data (docs/tenancy.md): a person spans organizations.
type People struct {
	DB     *dbx.DB
	Outbox *email.Outbox
	// Budgets bound the sign-in links sent (docs/people.md); nil sends without bounds.
	Budgets *mailbudget.Budgets
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (p *People) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// newSecret, hashSecret and wellFormedSecret are package secret's, shared with the email
// delivery worker, which mints the links of invitations.
var (
	newSecret        = secret.New
	hashSecret       = secret.Hash
	wellFormedSecret = secret.WellFormed
)

// NormalizeEmail lower-cases and trims an address; addresses are compared that way.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// SafeNext returns next when it is an absolute path of this site, else the home page: a
// sign-in never sends a person to another site (package landing says what passes).
func SafeNext(next string) string { return landing.Path(next) }

// known is how Podium knows an address: the event whose email log records the sign-in email,
// and the name to greet ("" for an address no event knows).
type known struct {
	event     *ent.Event
	contactID *string
	firstName string
}

// whoIs finds how Podium knows addr, for a sign-in that names no place: through the person's own
// memberships first — the first organization they joined (the one they act for by default,
// PersonViewer), then the first event they review for — and only then as an event contact
// (a speaker), the earliest, since any organization may add any address as a contact. It is
// system work: the address may be known to any organization. It returns nil for an address
// Podium does not know.
func (p *People) whoIs(ctx context.Context, addr string) (*known, error) {
	ctx = viewer.System(ctx, "sign-in: find which organizations know an email address")
	c := p.DB.Ent
	u, err := c.User.Query().Where(user.EmailEqualFold(addr)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if u != nil {
		first := strings.Fields(u.Name + " " + addr)[0]
		orgs, err := c.OrganizationMember.Query().Where(organizationmember.UserID(u.ID)).
			Order(ent.Asc(organizationmember.FieldCreatedAt)).Select(organizationmember.FieldOrganizationID).Strings(ctx)
		if err != nil {
			return nil, err
		}
		for _, org := range orgs {
			ev, err := c.Event.Query().Where(event.OrganizationID(org)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
			if err == nil {
				return &known{event: ev, firstName: first}, nil
			}
			if !ent.IsNotFound(err) {
				return nil, err
			}
		}
		em, err := c.EventMember.Query().Where(eventmember.UserID(u.ID)).WithEvent().
			Order(ent.Asc(eventmember.FieldCreatedAt)).First(ctx)
		if err == nil {
			return &known{event: em.Edges.Event, firstName: first}, nil
		}
		if !ent.IsNotFound(err) {
			return nil, err
		}
	}
	ct, err := c.Contact.Query().Where(contact.EmailEqualFold(addr)).WithEvent().
		Order(ent.Asc(contact.FieldCreatedAt)).First(ctx)
	if err == nil {
		return &known{event: ct.Edges.Event, contactID: &ct.ID, firstName: ct.FirstName}, nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	// An organization member whose organizations have no event yet has no email log to log the
	// email under (docs/people.md), unless an invitation names one.
	return p.invited(ctx, addr)
}

// invited finds an address through a pending organization invitation: the invitee signs in to
// accept it. ctx must be system work.
func (p *People) invited(ctx context.Context, addr string) (*known, error) {
	inv, err := p.DB.Ent.OrganizationInvitation.Query().Where(organizationinvitation.EmailEqualFold(addr),
		organizationinvitation.StatusEQ(organizationinvitation.StatusPending), organizationinvitation.ExpiresAtGT(p.now())).
		Order(ent.Desc(organizationinvitation.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ev, err := p.DB.Ent.Event.Query().Where(event.OrganizationID(inv.OrganizationID)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &known{event: ev}, nil
}

// accept makes u a member of every organization that invited u's address, with the invited
// role, and marks those invitations accepted. Signing in with the address is the acceptance: it
// proves the address is theirs. An existing membership keeps its role. ctx must be system work.
func (p *People) accept(ctx context.Context, tx *ent.Client, u *ent.User) error {
	invs, err := tx.OrganizationInvitation.Query().Where(organizationinvitation.EmailEqualFold(u.Email),
		organizationinvitation.StatusEQ(organizationinvitation.StatusPending), organizationinvitation.ExpiresAtGT(p.now())).
		All(ctx)
	if err != nil {
		return err
	}
	for _, inv := range invs {
		exists, err := tx.OrganizationMember.Query().Where(organizationmember.OrganizationID(inv.OrganizationID),
			organizationmember.UserID(u.ID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !exists {
			if err := tx.OrganizationMember.Create().SetOrganizationID(inv.OrganizationID).SetUserID(u.ID).
				SetRole(organizationmember.Role(inv.Role)).Exec(ctx); err != nil {
				return err
			}
		}
		if err := tx.OrganizationInvitation.UpdateOneID(inv.ID).SetStatus(organizationinvitation.StatusAccepted).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// FormOf returns the call-for-proposals form a landing path leads to ("/cfp/{form}…"), or "".
func FormOf(next string) string {
	rest, ok := strings.CutPrefix(next, "/cfp/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	id, _, _ = strings.Cut(id, "?")
	id, _, _ = strings.Cut(id, "#")
	if !pid.Plausible(id) {
		return ""
	}
	return id
}

// OpenForm returns the call-for-proposals form formID with its event when it takes proposals
// now, else nil: its page sends sign-in links to any address (docs/cfp.md).
func (p *People) OpenForm(ctx context.Context, formID string) (*ent.Form, error) {
	if !pid.Plausible(formID) {
		return nil, nil
	}
	sys := viewer.System(ctx, "sign-in: find a call for proposals, which any address may answer")
	f, err := p.DB.Ent.Form.Query().Where(form.ID(formID), form.StatusEQ(form.StatusOpen),
		form.Or(form.CloseDateIsNil(), form.CloseDateGT(p.now()))).WithEvent().Only(sys)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return f, err
}

// RequestLink sends a sign-in link to addr that lands on next. When next leads to a
// call-for-proposals form that takes proposals (FormOf), any address gets the link, logged under
// the form's event: a call for proposals is open to people Podium does not know yet
// (docs/cfp.md); the caller has drawn on the form's and organization's budgets. Otherwise the
// link goes only to an address Podium knows, logged under the event of whoIs, once the
// organization's budget allows, and nothing happens for another address.
//
// The caller answers the same whatever happens and should not wait for this call (see
// rest/signin.go), so that neither the answer nor its timing tells whether the address is known.
func (p *People) RequestLink(ctx context.Context, addr, next string) error {
	addr, next = NormalizeEmail(addr), SafeNext(next)
	f, err := p.OpenForm(ctx, FormOf(next))
	if err != nil {
		return err
	}
	if f != nil {
		k := &known{event: f.Edges.Event}
		sys := viewer.System(ctx, "sign-in: greet a call for proposals' newcomer by name when the event knows them")
		ct, err := p.DB.Ent.Contact.Query().Where(contact.EventID(f.EventID), contact.EmailEqualFold(addr)).First(sys)
		if err == nil {
			k.contactID, k.firstName = &ct.ID, ct.FirstName
		} else if !ent.IsNotFound(err) {
			return err
		}
		return p.sendLink(ctx, k, addr, next)
	}
	k, err := p.whoIs(ctx, addr)
	if err != nil || k == nil {
		return err
	}
	if p.Budgets != nil {
		if err := p.Budgets.Take(ctx, p.Budgets.Organization(k.event.OrganizationID)); err != nil {
			return fmt.Errorf("access: sign-in link for organization %s not sent: %w", k.event.OrganizationID, err)
		}
	}
	return p.sendLink(ctx, k, addr, next)
}

// sendLink queues the sign-in email to addr under k's event. The email log keeps the link with a
// placeholder; the delivery worker mints the token, holding only its hash, in the message it
// sends (email.SignInPath, docs/people.md).
func (p *People) sendLink(ctx context.Context, k *known, addr, next string) error {
	ctx = viewer.WithOrganization(ctx, k.event.OrganizationID)
	return p.DB.InTx(ctx, func(ctx context.Context) error {
		_, err := p.Outbox.Queue(ctx, email.Email{
			EventID: k.event.ID, ContactID: k.contactID, Type: emaillog.TypeMagicLink, To: addr,
			Template: email.SignIn,
			Data: email.Data{EventName: k.event.Name, FirstName: k.firstName,
				Path: email.SignInPath(next), Count: int(LinkLifetime / time.Minute)},
		})
		return err
	})
}

// Session is a new browser session: Secret goes in the cookie, never in the database.
type Session struct {
	Secret    string
	ExpiresAt time.Time
	UserID    string
	Next      string
}

// FollowLink consumes a sign-in token and opens a new session for the person it was sent to,
// creating their user on first sign-in. A token works once, before it expires; every other
// token gets ErrBadLink and writes nothing. The session is always new (a new secret), whatever
// session the browser had: a session id planted before sign-in is never adopted.
func (p *People) FollowLink(ctx context.Context, token, userAgent string) (*Session, error) {
	if !wellFormedSecret(token) {
		return nil, ErrBadLink
	}
	ctx = viewer.System(ctx, "sign-in: consume a link and open a session for a person, who spans organizations")
	var out *Session
	err := p.DB.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		now := p.now()
		n, err := tx.SignInToken.Update().
			Where(signintoken.Hash(hashSecret(token)), signintoken.UsedAtIsNil(), signintoken.ExpiresAtGT(now)).
			SetUsedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n != 1 {
			return ErrBadLink
		}
		tok, err := tx.SignInToken.Query().Where(signintoken.Hash(hashSecret(token))).Only(ctx)
		if err != nil {
			return err
		}
		u, err := p.userFor(ctx, tx, tok.Email)
		if err != nil {
			return err
		}
		if err := p.accept(ctx, tx, u); err != nil {
			return err
		}
		secret, hash := newSecret()
		if len(userAgent) > 500 {
			userAgent = userAgent[:500]
		}
		expires := now.Add(SessionLifetime)
		if err := tx.BrowserSession.Create().SetUserID(u.ID).SetHash(hash).SetExpiresAt(expires).
			SetLastSeenAt(now).SetUserAgent(userAgent).Exec(ctx); err != nil {
			return err
		}
		out = &Session{Secret: secret, ExpiresAt: expires, UserID: u.ID, Next: SafeNext(tok.Next)}
		return nil
	})
	return out, err
}

// userFor returns the user of addr, creating it on first sign-in, named after a contact of the
// same address when there is one.
func (p *People) userFor(ctx context.Context, tx *ent.Client, addr string) (*ent.User, error) {
	u, err := tx.User.Query().Where(user.EmailEqualFold(addr)).Only(ctx)
	if !ent.IsNotFound(err) {
		return u, err
	}
	name := addr
	if ct, err := tx.Contact.Query().Where(contact.EmailEqualFold(addr)).
		Order(ent.Desc(contact.FieldCreatedAt)).First(ctx); err == nil {
		name = strings.TrimSpace(ct.FirstName + " " + ct.LastName)
	}
	return tx.User.Create().SetEmail(addr).SetName(name).Save(ctx)
}

// Authenticate returns the person of a session cookie's value, with their roles, or
// ErrNoSession. Every call reads the session's row, so sign-out takes effect on the next request.
func (p *People) Authenticate(ctx context.Context, secret string) (*viewer.Person, error) {
	if !wellFormedSecret(secret) {
		return nil, ErrNoSession
	}
	ctx = viewer.System(ctx, "sessions: find a person's session and roles, which span organizations")
	now := p.now()
	s, err := p.DB.Ent.BrowserSession.Query().
		Where(browsersession.Hash(hashSecret(secret)), browsersession.RevokedAtIsNil(),
			browsersession.ExpiresAtGT(now), browsersession.LastSeenAtGT(now.Add(-SessionIdle))).
		WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("access: look up session: %w", err)
	}
	if now.Sub(s.LastSeenAt) >= seenEvery {
		_ = p.DB.Ent.BrowserSession.UpdateOneID(s.ID).SetLastSeenAt(now).Exec(context.WithoutCancel(ctx))
	}
	return p.person(ctx, s.Edges.User, s.ID)
}

// Person loads the person of the user userID with every role their address has, as a browser
// session does (for an application acting for them: docs/agents.md). sessionID names what they
// are signed in with, for the viewer. An unknown user is ErrNoSession.
func (p *People) Person(ctx context.Context, userID, sessionID string) (*viewer.Person, error) {
	ctx = viewer.System(ctx, "sessions: find a person's roles, which span organizations")
	u, err := p.DB.Ent.User.Get(ctx, userID)
	if ent.IsNotFound(err) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("access: look up person: %w", err)
	}
	return p.person(ctx, u, sessionID)
}

// person loads the roles of u: memberships, event memberships and contacts of u's address.
// ctx must be system work.
func (p *People) person(ctx context.Context, u *ent.User, sessionID string) (*viewer.Person, error) {
	c := p.DB.Ent
	pr := &viewer.Person{UserID: u.ID, Email: u.Email, Name: u.Name, SessionID: sessionID}
	ms, err := c.OrganizationMember.Query().Where(organizationmember.UserID(u.ID)).
		Order(ent.Asc(organizationmember.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		pr.Memberships = append(pr.Memberships, viewer.Membership{OrganizationID: m.OrganizationID, Role: m.Role.String()})
	}
	ems, err := c.EventMember.Query().Where(eventmember.UserID(u.ID)).
		Order(ent.Asc(eventmember.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range ems {
		pr.EventRoles = append(pr.EventRoles, viewer.EventRole{OrganizationID: m.OrganizationID,
			EventID: m.EventID, MemberID: m.ID, Role: m.Role.String()})
	}
	cts, err := c.Contact.Query().Where(contact.EmailEqualFold(u.Email)).
		Order(ent.Asc(contact.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, ct := range cts {
		pr.Contacts = append(pr.Contacts, viewer.Contact{OrganizationID: ct.OrganizationID, EventID: ct.EventID, ContactID: ct.ID})
	}
	return pr, nil
}

// PersonViewer makes the viewer of a signed-in person. Its organization scope is an
// organization the person is a member of — the one named by want when given (a client choosing
// among several), else the first they joined — with their role there: owners and admins act
// with the powers of an API key of that organization, members read it (RootField). A person who
// is no organization's member has no scope and reaches only what RootField lets people reach.
//
// Adding a reviewer makes them a member of the organization; a member who reviews in any of its
// events gets no member scope there, since reading the organization would show them the
// participants a blind round hides. They reach what reviewers reach.
func PersonViewer(p *viewer.Person, want string) *viewer.Viewer {
	v := &viewer.Viewer{Person: p}
	for _, m := range p.Memberships {
		if want != "" && want != m.OrganizationID {
			continue
		}
		if m.Role == "member" && reviews(p, m.OrganizationID) {
			if want != "" {
				break
			}
			continue
		}
		v.OrganizationID, v.Role = m.OrganizationID, m.Role
		break
	}
	return v
}

// reviews reports whether p is a reviewer in an event of the organization org.
func reviews(p *viewer.Person, org string) bool {
	for _, e := range p.EventRoles {
		if e.OrganizationID == org && e.Role == "reviewer" {
			return true
		}
	}
	return false
}

// SignOut ends the session of a cookie's value. Ending an ended or unknown session does nothing.
func (p *People) SignOut(ctx context.Context, secret string) error {
	if !wellFormedSecret(secret) {
		return nil
	}
	ctx = viewer.System(ctx, "sessions: end a person's session")
	return p.DB.Ent.BrowserSession.Update().
		Where(browsersession.Hash(hashSecret(secret)), browsersession.RevokedAtIsNil()).
		SetRevokedAt(p.now()).Exec(ctx)
}

// SignOutEverywhere ends every session of the person of a cookie's value.
func (p *People) SignOutEverywhere(ctx context.Context, secret string) error {
	pr, err := p.Authenticate(ctx, secret)
	if err != nil {
		return err
	}
	ctx = viewer.System(ctx, "sessions: end every session of a person")
	return p.DB.Ent.BrowserSession.Update().
		Where(browsersession.UserID(pr.UserID), browsersession.RevokedAtIsNil()).
		SetRevokedAt(p.now()).Exec(ctx)
}

// ErrPersonForbidden answers what a signed-in person may not ask for.
var ErrPersonForbidden = apperr.Forbidden("You cannot access this")

// ErrReadOnly answers a change asked by an organization member, who reads but does not change.
var ErrReadOnly = apperr.Forbidden("Organization members can read but not change: ask an owner or admin")

// RootField decides, by Rules, whether the caller of ctx may run the root field name of the
// operation type object ("Query", "Mutation" or "Subscription"). API keys run the fields their
// scopes and event allow (KeyRules; operations check their events). A person runs a field whose rule admits them in
// the organization they act for; a field without a rule is refused to people. An application
// acting for a person runs what the person may, within the scopes of its grant (ClientField).
func RootField(ctx context.Context, object, name string) error {
	v := viewer.FromContext(ctx)
	if v != nil && v.APIKeyID != "" {
		return KeyField(ctx, object, name)
	}
	if v == nil || v.Person == nil || name == "__typename" {
		return nil
	}
	if v.Client != nil {
		// An application acting for a person runs what the person may and its grant allows.
		if err := ClientField(ctx, object, name); err != nil {
			return err
		}
	}
	return Person(v, Rules[object+"."+name])
}

// Person decides whether the person of v may run an operation of rule (0: no rule, refused to
// people): Anyone always; the others in the organization they act for, by their role there.
func Person(v *viewer.Viewer, rule Rule) error {
	switch {
	case rule == Anyone:
		return nil
	case rule == 0 || v.OrganizationID == "":
		return ErrPersonForbidden
	case v.Role == "owner" || v.Role == "admin":
		return nil
	case rule == Staff:
		return nil
	default:
		return ErrReadOnly
	}
}

// RouteRule is the rule of a REST route for people: the rule of the first of fields (the root
// fields of its operation, as KeyRoute takes them) that has one, else none.
func RouteRule(fields ...string) Rule {
	for _, f := range fields {
		if rule, ok := Rules[f]; ok {
			return rule
		}
	}
	return 0
}

// AroundRootField is gqlgen's root-field middleware applying RootField: a refused field answers
// null with a forbidden error, and its resolver never runs.
func AroundRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	fc := graphql.GetRootFieldContext(ctx)
	if fc != nil && fc.Field.Field != nil {
		object := "Query"
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil {
			switch oc.Operation.Operation {
			case ast.Mutation:
				object = "Mutation"
			case ast.Subscription:
				object = "Subscription"
			}
		}
		if err := RootField(ctx, object, fc.Field.Name); err != nil {
			graphql.AddError(ctx, err)
			return graphql.Null
		}
	}
	return next(ctx)
}

// VisibleEmails filters an event's email log to what organizers may read: everything but
// sign-in emails, whose body holds a credential of the person it was sent to — a person who
// may belong to other organizations too.
func VisibleEmails() predicate.EmailLog { return emaillog.TypeNEQ(emaillog.TypeMagicLink) }

// Hidden reports whether a node read by id must answer as if it did not exist: a sign-in
// email, for the reason of VisibleEmails. The node may hold only the requested fields, so its
// type is read anew; a failed read hides it.
func Hidden(ctx context.Context, c *ent.Client, n any) bool {
	e, ok := n.(*ent.EmailLog)
	if !ok {
		return false
	}
	visible, err := c.EmailLog.Query().Where(emaillog.ID(e.ID), VisibleEmails()).Exist(ctx)
	return err != nil || !visible
}

// MayInvite decides whether the caller of ctx may invite someone with role: API keys and owners
// may invite any role, admins admins and members (never owners), members no one.
func MayInvite(ctx context.Context, role string) error {
	v := viewer.FromContext(ctx)
	switch {
	case v == nil || v.OrganizationID == "":
		return ErrPersonForbidden
	case v.Person == nil || v.Role == "owner":
		return nil
	case v.Role == "admin" && role != "owner":
		return nil
	default:
		return apperr.Forbidden("Only owners may invite owners")
	}
}

// Home is a page that is a person's because of a role they hold (docs/people.md).
type Home struct {
	// Role is "speaker", "reviewer" or "organizer".
	Role string
	// Href is the role's page: the speaker portal, the reviewer desk, GraphiQL.
	Href string
	// Where names the events (speaker, reviewer) or organizations (organizer) of the role.
	Where []string
}

// Homes lists the homes of the person's roles, in the order speaker, reviewer, organizer. An
// organization member who reviews in one of its events is no organizer there (PersonViewer).
func (p *People) Homes(ctx context.Context, pr *viewer.Person) ([]Home, error) {
	ctx = viewer.System(ctx, "homes: name the events and organizations of a person's roles, which span organizations")
	var events, orgs []string
	speaking, reviewing := map[string]bool{}, map[string]bool{}
	for _, c := range pr.Contacts {
		events, speaking[c.EventID] = append(events, c.EventID), true
	}
	for _, e := range pr.EventRoles {
		if e.Role == "reviewer" {
			events, reviewing[e.EventID] = append(events, e.EventID), true
		}
	}
	for _, m := range pr.Memberships {
		if m.Role != "member" || !reviews(pr, m.OrganizationID) {
			orgs = append(orgs, m.OrganizationID)
		}
	}
	eventNames, orgNames := map[string]string{}, map[string]string{}
	if len(events) > 0 {
		evs, err := p.DB.Ent.Event.Query().Where(event.IDIn(events...)).Order(ent.Asc(event.FieldStartsAt)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range evs {
			eventNames[e.ID] = e.Name
		}
	}
	if len(orgs) > 0 {
		os, err := p.DB.Ent.Organization.Query().Where(organization.IDIn(orgs...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range os {
			orgNames[o.ID] = o.Name
		}
	}
	names := func(ids []string, of map[string]string, keep func(string) bool) []string {
		var out []string
		seen := map[string]bool{}
		for _, id := range ids {
			if keep(id) && !seen[id] && of[id] != "" {
				seen[id] = true
				out = append(out, of[id])
			}
		}
		return out
	}
	var homes []Home
	if where := names(events, eventNames, func(id string) bool { return speaking[id] }); len(where) > 0 {
		homes = append(homes, Home{Role: "speaker", Href: "/portal", Where: where})
	}
	if where := names(events, eventNames, func(id string) bool { return reviewing[id] }); len(where) > 0 {
		homes = append(homes, Home{Role: "reviewer", Href: "/reviews", Where: where})
	}
	if where := names(orgs, orgNames, func(string) bool { return true }); len(where) > 0 {
		homes = append(homes, Home{Role: "organizer", Href: "/graphql", Where: where})
	}
	return homes, nil
}
