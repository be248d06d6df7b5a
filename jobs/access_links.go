package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access/secret"
)

// accessPath is the access link of an email to a contact as the email log keeps it (graph/email
// AccessPath).
const accessPath = "/portal/access/" + secret.AccessPlaceholder

// insertAccessLink records a minted access link: only its hash. The row is tenant data; its
// organization is the event's (the table's trigger), and the delivery runs scoped to it.
const insertAccessLink = `INSERT INTO contact_access_links (id, event_id, contact_id, hash, created_at, expires_at)
VALUES ($1, $2, $3, $4, now(), now() + $5::interval)`

// MintAccessLink puts a fresh access link for m's contact in place of the placeholder of the
// link every email to a contact carries (docs/portal.md), in the message about to be sent and
// nowhere else, as MintSignInLink does for sign-in links. The link works for
// secret.AccessLifetime, as often as it is opened, until organizers revoke the contact's links.
// An email to no contact, or without the link, is left as it is; one whose contact was deleted
// since it was queued leads to the portal's sign-in instead.
func MintAccessLink(ctx context.Context, pool *pgxpool.Pool, m *Message) error {
	if m.ContactID == "" || !strings.Contains(m.Text, accessPath) {
		return nil
	}
	token, hash := secret.New()
	lifetime := fmt.Sprintf("%d seconds", int(secret.AccessLifetime/time.Second))
	replace := "/portal/access/" + token
	_, err := pool.Exec(ctx, insertAccessLink, pid.New("cal"), m.EventID, m.ContactID, hash, lifetime)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "23503": // foreign_key_violation: the contact is gone
		replace = "/portal"
	case err != nil:
		return fmt.Errorf("jobs: mint an access link: %w", err)
	}
	m.Text = strings.ReplaceAll(m.Text, accessPath, replace)
	m.HTML = strings.ReplaceAll(m.HTML, accessPath, replace)
	return nil
}
