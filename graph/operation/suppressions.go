package operation

import (
	"context"
	"errors"
	"io"
	"net/mail"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emailsuppression"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/jobs"
)

// Deliverability (docs/deliverability.md): the addresses an organization's campaigns skip. Rows
// are written by jobs.Suppress, whoever reports the address — the recipient's unsubscribe link,
// the relay's permanent refusal (the delivery worker), a delivery-status notification or the mail
// provider's report (the email-events hook), an organizer — so each one emits email.suppressed in
// the transaction that records it. The delivery worker reads them when it claims a campaign email.

// maxSuppressionPage bounds a page of emailSuppressions.
const maxSuppressionPage = 500

// unsubscribe is the signer of unsubscribe links: the server's, or one on PUBLIC_URL with the
// process's random key (tests, development).
func (r *Service) unsubscribe() *jobs.Unsubscribe {
	if r.UnsubscribeLinks != nil {
		return r.UnsubscribeLinks
	}
	base := ""
	if r.Outbox != nil {
		base = r.Outbox.PublicURL
	}
	return &jobs.Unsubscribe{PublicURL: base}
}

// UnsubscribeURL is the unsubscribe link of address in the caller's organization: the link in the
// footer of a campaign email, the same the delivery worker puts in its List-Unsubscribe header.
func (r *Service) UnsubscribeURL(ctx context.Context, address string) string {
	return r.unsubscribe().URL(viewer.OrganizationID(ctx), address)
}

// EmailSuppressions lists the organization's suppressed addresses in address order, first after
// the address after (docs/deliverability.md).
func (r *Service) EmailSuppressions(ctx context.Context, first *int, after *string) (*model.EmailSuppressionPage, error) {
	if _, err := access.Viewer(ctx); err != nil {
		return nil, err
	}
	n := 100
	if first != nil {
		n = *first
	}
	if n < 1 || n > maxSuppressionPage {
		return nil, apperr.Invalid("first must be between 1 and %d", maxSuppressionPage)
	}
	c := r.ClientOf(ctx)
	total, err := c.EmailSuppression.Query().Count(ctx)
	if err != nil {
		return nil, err
	}
	q := c.EmailSuppression.Query().Order(ent.Asc(emailsuppression.FieldAddress))
	if after != nil && *after != "" {
		q.Where(emailsuppression.AddressGT(*after))
	}
	rows, err := q.Limit(n + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	page := &model.EmailSuppressionPage{TotalCount: total, Nodes: make([]*ent.EmailSuppression, 0, min(len(rows), n))}
	for i, s := range rows {
		if i == n {
			page.NextCursor = new(rows[n-1].Address)
			break
		}
		page.Nodes = append(page.Nodes, s)
	}
	return page, nil
}

// AddEmailSuppression suppresses an address by hand (reason manual). An address suppressed
// already keeps its row, which is the answer.
func (r *Service) AddEmailSuppression(ctx context.Context, in model.AddEmailSuppressionInput) (*ent.EmailSuppression, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.EmailSuppression, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		org := viewer.OrganizationID(ctx)
		if org == "" {
			return nil, apperr.Forbidden("Choose an organization")
		}
		address, err := suppressedAddress(in.Address)
		if err != nil {
			return nil, err
		}
		detail := ""
		if in.Detail != nil {
			if err := checkText("The note", *in.Detail, 1000); err != nil {
				return nil, err
			}
			detail = strings.TrimSpace(*in.Detail)
		}
		tx, err := r.tx(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := jobs.Suppress(ctx, tx, org, address, jobs.SuppressManual, detail, ""); err != nil {
			return nil, err
		}
		return r.ClientOf(ctx).EmailSuppression.Query().Where(emailsuppression.Address(address)).Only(ctx)
	})
}

// RemoveEmailSuppression lets the organization's campaigns send to address again; false when it
// was not suppressed.
func (r *Service) RemoveEmailSuppression(ctx context.Context, address string) (bool, error) {
	return inTx(ctx, r, func(ctx context.Context) (bool, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return false, err
		}
		addr := strings.ToLower(strings.TrimSpace(address))
		n, err := r.ClientOf(ctx).EmailSuppression.Delete().Where(emailsuppression.Address(addr)).Exec(ctx)
		if err != nil {
			return false, err
		}
		return n > 0, r.emitWhen(ctx, n > 0, hookEmailUnsuppressed, hookData{"address": addr})
	})
}

// UnsubscribeAddress reads an unsubscribe token: the address it names, for the page that asks to
// confirm. A token that is not one is not found.
func (r *Service) UnsubscribeAddress(token string) (string, error) {
	_, address, err := r.unsubscribe().Verify(token)
	if err != nil {
		return "", apperr.NotFound("Unsubscribe link")
	}
	return address, nil
}

// Unsubscribe suppresses the address an unsubscribe token names in the organization it names
// (reason unsubscribe): no sign-in, the signed token is the credential. Unsubscribing twice is
// fine. It returns the address.
func (r *Service) Unsubscribe(ctx context.Context, token string) (string, error) {
	org, address, err := r.unsubscribe().Verify(token)
	if err != nil {
		return "", apperr.NotFound("Unsubscribe link")
	}
	ctx = viewer.WithOrganization(ctx, org)
	err = r.DB.InTx(ctx, func(ctx context.Context) error {
		tx, err := r.tx(ctx)
		if err != nil {
			return err
		}
		_, err = jobs.Suppress(ctx, tx, org, address, jobs.SuppressUnsubscribe, "unsubscribe link", "")
		return err
	})
	return address, err
}

// EmailEvent is a bounce or complaint reported by the mail provider (docs/deliverability.md,
// POST /hooks/email-events).
type EmailEvent struct {
	Type      string  `json:"type"`
	Email     string  `json:"email"`
	MessageID *string `json:"messageId"`
	Reason    *string `json:"reason"`
}

// RecordEmailEvent suppresses the address of a bounce or a complaint in the organization of the
// email its messageId names (Podium's Message-ID, <emailLogId@domain>). The email must have gone
// to that address: a report cannot suppress an address the organization never wrote to.
func (r *Service) RecordEmailEvent(ctx context.Context, e EmailEvent) error {
	reason := map[string]string{"bounce": jobs.SuppressBounce, "complaint": jobs.SuppressComplaint}[e.Type]
	if reason == "" {
		return apperr.Invalid(`type must be "bounce" or "complaint"`)
	}
	address, err := suppressedAddress(e.Email)
	if err != nil {
		return err
	}
	if e.MessageID == nil || jobs.EmailLogID(*e.MessageID) == "" {
		return apperr.Invalid("messageId must be the Message-ID of an email Podium sent: it names the organization")
	}
	detail := ""
	if e.Reason != nil {
		detail = *e.Reason
	}
	return r.suppressFromReport(ctx, jobs.EmailLogID(*e.MessageID), address, reason, detail)
}

// RecordDSN reads a delivery-status notification (RFC 3464) the relay returned and suppresses,
// as bounces, the recipients that failed for good, in the organization of the original email. It
// returns how many it recorded.
func (r *Service) RecordDSN(ctx context.Context, raw io.Reader) (int, error) {
	bounces, err := jobs.ParseDSN(raw)
	if err != nil {
		return 0, apperr.Invalid("The body is not a delivery-status notification of a permanent failure with the original Message-ID")
	}
	n := 0
	for _, b := range bounces {
		id := jobs.EmailLogID(b.MessageID)
		if id == "" {
			return n, apperr.NotFound("Message")
		}
		detail := strings.TrimSpace(b.Status + " " + b.Diagnostic)
		if err := r.suppressFromReport(ctx, id, strings.ToLower(b.Recipient), jobs.SuppressBounce, detail); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// suppressFromReport suppresses address in the organization of the email emailID, which must
// have gone to address.
func (r *Service) suppressFromReport(ctx context.Context, emailID, address, reason, detail string) error {
	// The report names an email, not an organization: finding it is system work.
	var org, recipient string
	err := r.DB.System.QueryRow(viewer.System(ctx, "deliverability: find a reported email"),
		`SELECT organization_id, recipient FROM email_log WHERE id = $1`, emailID).Scan(&org, &recipient)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !strings.EqualFold(strings.TrimSpace(recipient), address)) {
		return apperr.NotFound("Message")
	}
	if err != nil {
		return err
	}
	ctx = viewer.WithOrganization(ctx, org)
	return r.DB.InTx(ctx, func(ctx context.Context) error {
		tx, err := r.tx(ctx)
		if err != nil {
			return err
		}
		_, err = jobs.Suppress(ctx, tx, org, address, reason, detail, emailID)
		return err
	})
}

// suppressedAddress checks an address given to suppress and lower-cases it.
func suppressedAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 320 {
		return "", apperr.Invalid("Enter an email address")
	}
	return strings.ToLower(s), nil
}

// replyToAddress checks a Reply-To given for an event or a campaign: one bare address.
func replyToAddress(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 320 {
		return "", apperr.Invalid("%s must be an email address", field)
	}
	return s, nil
}
