package jobs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/pid"
)

// Deliverability (docs/deliverability.md): campaign emails carry a one-click unsubscribe link
// (RFC 2369 List-Unsubscribe, RFC 8058 List-Unsubscribe-Post), and the addresses an organization
// must not send campaigns to — unsubscribed, bounced, complained about, or added by an organizer —
// are its suppressions (table email_suppressions). The delivery worker checks them when it claims
// a campaign email, so an address suppressed after the campaign was queued is skipped too; other
// emails (decisions, sign-in links, invitations) are never suppressed.

// CampaignTemplate is the template of campaign emails (graph/email.Campaign): the only mail that
// carries an unsubscribe link and that suppressions stop.
const CampaignTemplate = "campaign"

// HookEmailSuppressed is the event type emitted when an address becomes suppressed for the
// organization (docs/webhooks.md), whatever the reason.
const HookEmailSuppressed = "email.suppressed"

// SuppressedError is the email log's error of a campaign email not sent to a suppressed address.
const SuppressedError = "suppressed"

// The reasons of a suppression (ent/schema/suppression.go).
const (
	SuppressUnsubscribe = "unsubscribe"
	SuppressBounce      = "bounce"
	SuppressComplaint   = "complaint"
	SuppressManual      = "manual"
)

// maxSuppressionDetail is the longest detail kept, in characters (the column's validator).
const maxSuppressionDetail = 1000

// suppressSQL adds an address once: a second report of it (a bounce after an unsubscribe) keeps
// the first row and its reason, and returns nothing.
const suppressSQL = `INSERT INTO email_suppressions (id, created_at, updated_at, organization_id, address, reason, detail)
	VALUES ($1, now(), now(), $2, lower($3), $4, $5)
	ON CONFLICT (organization_id, address) DO NOTHING RETURNING id`

// Suppress records that the organization org sends no more campaign mail to address, in tx, and
// emits email.suppressed when the address was not suppressed already. emailID, when not empty,
// names the email that caused it (a bounce, a complaint, an unsubscribe link). It reports whether
// a row was added.
func Suppress(ctx context.Context, tx pgx.Tx, org, address, reason, detail, emailID string) (bool, error) {
	detail = strings.ToValidUTF8(strings.ReplaceAll(detail, "\x00", ""), "")
	if utf8.RuneCountInString(detail) > maxSuppressionDetail {
		detail = string([]rune(detail)[:maxSuppressionDetail])
	}
	var id string
	err := tx.QueryRow(ctx, suppressSQL, pid.New("sup"), org, strings.TrimSpace(address), reason, detail).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("jobs: suppress: %w", err)
	}
	data := map[string]any{"suppressionId": id, "address": strings.ToLower(strings.TrimSpace(address)),
		"reason": reason, "detail": detail, "emailId": nil}
	if emailID != "" {
		data["emailId"] = emailID
	}
	return true, EmitWebhook(ctx, tx, org, HookEmailSuppressed, data)
}

// Unsubscribe makes and checks the unsubscribe links of campaign emails. A link needs no sign-in:
// its token names the organization and the address and is signed with Key (HMAC-SHA256), so it
// cannot be altered to name another address or another organization, and it never expires — an
// unsubscribe link must work as long as the email is kept.
type Unsubscribe struct {
	// PublicURL is the base of the links (PUBLIC_URL).
	PublicURL string
	// Key signs the tokens: PODIUM_UNSUBSCRIBE_KEY, else the server's key "unsubscribe"
	// (ServerKey), the same in every process and across restarts. Empty uses a random key made once
	// per process (tests).
	Key []byte
}

// UnsubscribePath is where unsubscribe links lead, followed by the token.
const UnsubscribePath = "/unsubscribe/"

// serverKeySQL makes the server's key named $1 from the random bytes $2 unless it exists, and
// returns the key: every process gets the one made first.
const serverKeySQL = `WITH made AS (
  INSERT INTO server_keys (id, created_at, updated_at, name, key) VALUES ($3, now(), now(), $1, $2)
  ON CONFLICT (name) DO NOTHING RETURNING key)
SELECT key FROM made UNION ALL SELECT key FROM server_keys WHERE name = $1 LIMIT 1`

// ServerKey returns the server-wide secret named name, made at random the first time any
// process asks (table server_keys, readable by the system role only; pool must be the system
// pool and ctx system work).
func ServerKey(ctx context.Context, pool *pgxpool.Pool, name string) ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	var key []byte
	err := pool.QueryRow(ctx, serverKeySQL, name, b, pid.New("skey")).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		// Another process made it while this statement ran, after its snapshot: read it now.
		err = pool.QueryRow(ctx, serverKeySQL, name, b, pid.New("skey")).Scan(&key)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: server key %s: %w", name, err)
	}
	return key, nil
}

var processKey = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("jobs: no randomness: " + err.Error())
	}
	return b
})

func (u *Unsubscribe) mac(payload string) []byte {
	key := u.Key
	if len(key) == 0 {
		key = processKey()
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("podium unsubscribe\x00"))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// Token is the unsubscribe token of address in the organization org.
func (u *Unsubscribe) Token(org, address string) string {
	payload := org + "\x00" + strings.ToLower(strings.TrimSpace(address))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(u.mac(payload))
}

// URL is the unsubscribe link of address in the organization org.
func (u *Unsubscribe) URL(org, address string) string {
	return strings.TrimRight(u.PublicURL, "/") + UnsubscribePath + u.Token(org, address)
}

// ErrBadToken is the error of an unsubscribe token that is malformed or not signed with the key.
var ErrBadToken = errors.New("jobs: not an unsubscribe token")

// Verify returns the organization and address a token names, or ErrBadToken.
func (u *Unsubscribe) Verify(token string) (org, address string, err error) {
	payload64, mac64, ok := strings.Cut(token, ".")
	if !ok || len(token) > 1024 {
		return "", "", ErrBadToken
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(payload64)
	mac, err2 := base64.RawURLEncoding.DecodeString(mac64)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, u.mac(string(payload))) {
		return "", "", ErrBadToken
	}
	org, address, ok = strings.Cut(string(payload), "\x00")
	if !ok || !pid.Plausible(org) || address == "" {
		return "", "", ErrBadToken
	}
	return org, address, nil
}

// campaignHeaders adds the unsubscribe headers to a campaign email: a link to the page (RFC 2369)
// that also takes the one-click POST of mail clients (RFC 8058).
func (w *DeliverEmailWorker) campaignHeaders(org string, msg *Message) {
	if msg.Template != CampaignTemplate || w.Unsubscribe == nil {
		return
	}
	msg.ListUnsubscribe = "<" + w.Unsubscribe.URL(org, msg.To) + ">"
	msg.OneClickUnsubscribe = true
}

// skipSuppressed ends a campaign email claimed for a suppressed address: failed, with the error
// "suppressed", and nothing sent.
func (w *DeliverEmailWorker) skipSuppressed(ctx context.Context, job *river.Job[DeliverEmailArgs]) error {
	return w.recordFailure(ctx, job, SuppressedError, &acceptHold{}, false)
}

// DSNBounce is what a delivery-status notification (RFC 3464) says failed: the Message-ID of the
// original message and a recipient whose Action is failed with a 5.x.x Status.
type DSNBounce struct {
	// MessageID is the original message's Message-ID, without its angle brackets.
	MessageID string
	Recipient string
	Status    string
	// Diagnostic is the Diagnostic-Code field, when there is one.
	Diagnostic string
}

// maxDSNBytes bounds a notification read; the original message it quotes is usually cut.
const maxDSNBytes = 1 << 20

// ErrNotDSN is the error of a message that is not a delivery-status notification naming a
// permanently failed recipient and the original Message-ID.
var ErrNotDSN = errors.New("not a delivery-status notification of a permanent failure")

// ParseDSN reads a raw delivery-status notification (a multipart/report with a
// message/delivery-status part, RFC 3464) and returns the recipients that failed for good (Action
// failed, Status 5.x.x) with the original message's Message-ID, read from the notification's
// message/rfc822 or text/rfc822-headers part (or the per-message Original-Envelope-Id's absence,
// the X-Original-Message-ID some relays add).
func ParseDSN(r io.Reader) ([]DSNBounce, error) {
	msg, err := mail.ReadMessage(io.LimitReader(r, maxDSNBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotDSN, err)
	}
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || media != "multipart/report" || params["boundary"] == "" {
		return nil, ErrNotDSN
	}
	var statuses [][]textproto.MIMEHeader
	messageID := ""
	parts := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotDSN, err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch ct {
		case "message/delivery-status", "message/global-delivery-status":
			groups, err := statusGroups(p)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrNotDSN, err)
			}
			statuses = append(statuses, groups)
		case "message/rfc822", "text/rfc822-headers", "message/global", "message/global-headers":
			h, err := textproto.NewReader(bufio.NewReader(p)).ReadMIMEHeader()
			if err != nil && len(h) == 0 {
				continue
			}
			messageID = strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
		}
	}
	if messageID == "" {
		messageID = strings.Trim(strings.TrimSpace(msg.Header.Get("X-Original-Message-Id")), "<>")
	}
	var out []DSNBounce
	for _, groups := range statuses {
		// The first group holds the per-message fields; the others one recipient each.
		for i, g := range groups {
			if i == 0 {
				continue
			}
			status := strings.TrimSpace(g.Get("Status"))
			if !strings.EqualFold(strings.TrimSpace(g.Get("Action")), "failed") || !strings.HasPrefix(status, "5.") {
				continue
			}
			rcpt := g.Get("Final-Recipient")
			if rcpt == "" {
				rcpt = g.Get("Original-Recipient")
			}
			if _, addr, ok := strings.Cut(rcpt, ";"); ok {
				rcpt = addr
			}
			rcpt = strings.Trim(strings.TrimSpace(rcpt), "<>")
			if rcpt == "" {
				continue
			}
			out = append(out, DSNBounce{MessageID: messageID, Recipient: rcpt, Status: status,
				Diagnostic: strings.TrimSpace(g.Get("Diagnostic-Code"))})
		}
	}
	if messageID == "" || len(out) == 0 {
		return nil, ErrNotDSN
	}
	return out, nil
}

// statusGroups reads the groups of fields of a message/delivery-status part, each ended by an
// empty line.
func statusGroups(r io.Reader) ([]textproto.MIMEHeader, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	var groups []textproto.MIMEHeader
	for _, chunk := range strings.Split(string(body), "\n\n") {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		h, err := textproto.NewReader(bufio.NewReader(strings.NewReader(strings.TrimLeft(chunk, "\n") + "\n\n"))).ReadMIMEHeader()
		if err != nil && len(h) == 0 {
			return nil, err
		}
		groups = append(groups, h)
	}
	if len(groups) < 2 {
		return nil, errors.New("no recipient fields")
	}
	return groups, nil
}

// EmailLogID returns the email log id a Message-ID of Podium's names (<emailLogID@domain>, see
// SMTPSender.build), or "".
func EmailLogID(messageID string) string {
	id, _, ok := strings.Cut(strings.Trim(strings.TrimSpace(messageID), "<>"), "@")
	if !ok || !pid.Plausible(id) {
		return ""
	}
	return id
}

// refusedByRelay tells whether err is the relay's 5xx reply, rather than a message Podium could
// not build: only the relay's refusal says the address bounced.
func refusedByRelay(err error) bool {
	var reply *textproto.Error
	return errors.As(err, &reply) && reply.Code >= 500 && reply.Code < 600
}
