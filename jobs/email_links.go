package jobs

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access/landing"
	"github.com/podium/podium/graph/access/secret"
)

// oneClickLink finds the sign-in link of an email that signs its recipient in — an invitation's
// (graph/email OneClickPath) or a requested sign-in link (graph/email SignInPath) —, which of the
// two it is, and the path it leads to.
var oneClickLink = regexp.MustCompile(`/auth/link\?token=(` + regexp.QuoteMeta(secret.Placeholder) + `|` +
	regexp.QuoteMeta(secret.RequestedPlaceholder) + `)&next=([^\s"'<>&]+)`)

// insertSignInToken records a minted sign-in token: only its hash, like every sign-in token
// (graph/access). The table is system state, not tenant data.
const insertSignInToken = `INSERT INTO sign_in_tokens (id, created_at, updated_at, email, hash, next, expires_at)
VALUES ($1, now(), now(), $2, $3, $4, now() + $5::interval)`

// MintSignInLink puts a fresh single-use sign-in token for the recipient in place of the
// placeholder of m's link, in the message about to be sent and nowhere else: the email log keeps
// the placeholder, so no stored copy of the email signs anyone in (docs/people.md). Every attempt
// mints its own token; one that is not delivered expires unused. An invitation's token works for
// secret.InvitationLifetime, a requested link's for secret.LinkLifetime. An email without the link
// is left as it is.
func MintSignInLink(ctx context.Context, pool *pgxpool.Pool, m *Message) error {
	match := oneClickLink.FindStringSubmatch(m.Text)
	if match == nil {
		return nil
	}
	next, err := url.QueryUnescape(match[2])
	if err != nil {
		next = landing.Home
	}
	next = landing.Path(next)
	token, hash := secret.New()
	placeholder, life := match[1], secret.InvitationLifetime
	if placeholder == secret.RequestedPlaceholder {
		life = secret.LinkLifetime
	}
	lifetime := fmt.Sprintf("%d seconds", int(life/time.Second))
	if _, err := pool.Exec(ctx, insertSignInToken, pid.New("sit"), strings.ToLower(strings.TrimSpace(m.To)), hash, next, lifetime); err != nil {
		return fmt.Errorf("jobs: mint a sign-in link: %w", err)
	}
	m.Text = strings.ReplaceAll(m.Text, "token="+placeholder, "token="+token)
	m.HTML = strings.ReplaceAll(m.HTML, "token="+placeholder, "token="+token)
	return nil
}
