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
	"github.com/podium/podium/ent/organizationinvitation"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/signintoken"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
)

// Lifetimes of sign-in links and browser sessions (docs/people.md). A link is short-lived and
// single-use because it travels by email, which is read on many devices and kept for years. A
// session ends after a week without use, and in any case thirty days after sign-in, so a
// forgotten browser does not stay signed in for ever.
const (
	LinkLifetime    = 15 * time.Minute
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

// SafeNext returns next when it is a path on this site ("/…", not "//…" nor "/\…"), else "/me":
// a sign-in link never sends a person to another site.
func SafeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") || len(next) > 2048 {
		return "/me"
	}
	return next
}

// known is how Podium knows an address: the event whose email log records the sign-in email,
// and the name to greet.
type known struct {
	event     *ent.Event
	contactID *string
	firstName string
}

// whoIs finds how Podium knows addr: as an event contact (a speaker), an event member (a
// reviewer or event admin) or an organization member. It is system work: the address may be
// known to any organization. It returns nil for an address Podium does not know.
func (p *People) whoIs(ctx context.Context, addr string) (*known, error) {
	ctx = viewer.System(ctx, "sign-in: find which organizations know an email address")
	c := p.DB.Ent
	ct, err := c.Contact.Query().Where(contact.EmailEqualFold(addr)).WithEvent().
		Order(ent.Desc(contact.FieldCreatedAt)).First(ctx)
	if err == nil {
		return &known{event: ct.Edges.Event, contactID: &ct.ID, firstName: ct.FirstName}, nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	u, err := c.User.Query().Where(user.EmailEqualFold(addr)).Only(ctx)
	if ent.IsNotFound(err) {
		return p.invited(ctx, addr)
	}
	if err != nil {
		return nil, err
	}
	first := strings.Fields(u.Name + " " + addr)[0]
	em, err := c.EventMember.Query().Where(eventmember.UserID(u.ID)).WithEvent().
		Order(ent.Desc(eventmember.FieldCreatedAt)).First(ctx)
	if err == nil {
		return &known{event: em.Edges.Event, firstName: first}, nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	orgs, err := c.OrganizationMember.Query().Where(organizationmember.UserID(u.ID)).
		Select(organizationmember.FieldOrganizationID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	if len(orgs) == 0 {
		return p.invited(ctx, addr)
	}
	ev, err := c.Event.Query().Where(event.OrganizationIDIn(orgs...)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		// The email log belongs to an event; an organization without events has none to log the
		// email under. Documented in docs/people.md.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &known{event: ev, firstName: first}, nil
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
	return &known{event: ev, firstName: strings.SplitN(addr, "@", 2)[0]}, nil
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

// RequestLink sends a sign-in link to addr when Podium knows the address, through the outbox
// (logged under the event the address is known through), and does nothing otherwise. The caller
// answers the same in both cases and should not wait for this call (see rest/signin.go), so
// neither the answer nor its timing tells whether the address is known.
func (p *People) RequestLink(ctx context.Context, addr, next string) error {
	addr = NormalizeEmail(addr)
	k, err := p.whoIs(ctx, addr)
	if err != nil || k == nil {
		return err
	}
	return p.sendLink(ctx, k, addr, next)
}

// RequestFormLink sends a sign-in link to addr from the page of a call-for-proposals form that
// takes proposals, known address or not: a call for proposals is open to people Podium does not
// know yet (docs/cfp.md). The email is logged under the form's event. Any other form id sends
// nothing. The caller answers as for RequestLink, without waiting.
func (p *People) RequestFormLink(ctx context.Context, addr, next, formID string) error {
	addr = NormalizeEmail(addr)
	if !pid.Plausible(formID) {
		return nil
	}
	sys := viewer.System(ctx, "sign-in: send a link from a call for proposals, which any address may answer")
	f, err := p.DB.Ent.Form.Query().Where(form.ID(formID), form.StatusEQ(form.StatusOpen),
		form.Or(form.CloseDateIsNil(), form.CloseDateGT(p.now()))).WithEvent().Only(sys)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	k := &known{event: f.Edges.Event, firstName: strings.SplitN(addr, "@", 2)[0]}
	ct, err := p.DB.Ent.Contact.Query().Where(contact.EventID(f.EventID), contact.EmailEqualFold(addr)).First(sys)
	if err == nil {
		k.contactID, k.firstName = &ct.ID, ct.FirstName
	} else if !ent.IsNotFound(err) {
		return err
	}
	return p.sendLink(ctx, k, addr, next)
}

// sendLink makes a sign-in token for addr and queues its email under k's event.
func (p *People) sendLink(ctx context.Context, k *known, addr, next string) error {
	secret, hash := newSecret()
	ctx = viewer.WithOrganization(ctx, k.event.OrganizationID)
	return p.DB.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		if err := tx.SignInToken.Create().SetEmail(addr).SetHash(hash).SetNext(SafeNext(next)).
			SetExpiresAt(p.now().Add(LinkLifetime)).Exec(ctx); err != nil {
			return err
		}
		_, err := p.Outbox.Queue(ctx, email.Email{
			EventID: k.event.ID, ContactID: k.contactID, Type: emaillog.TypeMagicLink, To: addr,
			Template: email.SignIn,
			Data: email.Data{EventName: k.event.Name, FirstName: k.firstName,
				Path: "/auth/link?token=" + secret, Count: int(LinkLifetime / time.Minute)},
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
// operation type object ("Query" or "Mutation"). API keys may run every field, as before people
// signed in (operations check their events). A person runs a field whose rule admits them in
// the organization they act for; a field without a rule is refused to people.
func RootField(ctx context.Context, object, name string) error {
	v := viewer.FromContext(ctx)
	if v == nil || v.Person == nil || name == "__typename" {
		return nil
	}
	rule := Rules[object+"."+name]
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

// AroundRootField is gqlgen's root-field middleware applying RootField: a refused field answers
// null with a forbidden error, and its resolver never runs.
func AroundRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	fc := graphql.GetRootFieldContext(ctx)
	if fc != nil && fc.Field.Field != nil {
		object := "Query"
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation != ast.Query {
			object = "Mutation"
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
