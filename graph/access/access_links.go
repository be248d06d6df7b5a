package access

import (
	"context"
	"net/http"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contactaccesslink"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// ErrBadAccessLink answers every access link that cannot sign anyone in: unknown, forged,
// truncated, expired or revoked. One answer for all, so a link tells nothing about the others.
var ErrBadAccessLink = apperr.New(http.StatusForbidden, apperr.CodeForbidden,
	"This portal link has expired or was revoked: ask for a sign-in link below")

// AccessSession is a browser session opened with a contact's access link, and the event the
// portal shows.
type AccessSession struct {
	Session
	EventID string
}

// FollowAccessLink opens a new session for the contact an access link was sent to
// (/portal/access/<token>, docs/portal.md), pinned to the contact's event. Unlike a sign-in link
// it is not spent: every opening until it expires or is revoked signs in anew, so a mail scanner
// that opens it first takes nothing from the person. The link is found by its hash as system
// work, before anyone is signed in, as sign-in tokens are; the contact's address is the person
// signed in, created on first sign-in.
func (p *People) FollowAccessLink(ctx context.Context, token, userAgent string) (*AccessSession, error) {
	if !wellFormedSecret(token) {
		return nil, ErrBadAccessLink
	}
	ctx = viewer.System(ctx, "access link: find a contact's link by its hash and open a session for their address")
	var out *AccessSession
	err := p.DB.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx).Ent()
		now := p.now()
		l, err := tx.ContactAccessLink.Query().Where(contactaccesslink.Hash(hashSecret(token)),
			contactaccesslink.RevokedAtIsNil(), contactaccesslink.ExpiresAtGT(now)).WithContact().Only(ctx)
		if ent.IsNotFound(err) {
			return ErrBadAccessLink
		}
		if err != nil {
			return err
		}
		u, err := p.userFor(ctx, tx, NormalizeEmail(l.Edges.Contact.Email))
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
			SetLastSeenAt(now).SetUserAgent(userAgent).SetAccessLinkID(l.ID).Exec(ctx); err != nil {
			return err
		}
		out = &AccessSession{Session: Session{Secret: secret, ExpiresAt: expires, UserID: u.ID, Next: "/portal"},
			EventID: l.EventID}
		return nil
	})
	return out, err
}
