package jobs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Message is an email ready to send, as the email log holds it.
type Message struct {
	// ID is the email log id; the Message-ID header is made from it, so that a message sent twice
	// after a crash carries the same Message-ID both times.
	ID string
	To string
	// EventID, ContactID (empty when the recipient is not a contact) and Template say what the
	// email is and whom it is for, for the steps that finish it before sending.
	EventID   string
	ContactID string
	Template  string
	Subject   string
	Text      string
	HTML      string
	// ICS, when set, travels as a text/calendar alternative and as an invite.ics attachment;
	// ICSMethod is its METHOD (REQUEST or CANCEL).
	ICS       string
	ICSMethod string
	// ReplyTo, when set, is the Reply-To address.
	ReplyTo string
	// ListUnsubscribe, when set, is the List-Unsubscribe header's value (RFC 2369, "<https://…>"),
	// and OneClickUnsubscribe adds "List-Unsubscribe-Post: List-Unsubscribe=One-Click" (RFC 8058).
	ListUnsubscribe     string
	OneClickUnsubscribe bool
	// suppressed says the claim found a campaign email to a suppressed address: it is not sent.
	suppressed bool
	// Committing, when set, is called just before the server can accept the message — for SMTP,
	// before the "." that ends DATA — and may hold the message there; an error abandons it unsent.
	Committing func(context.Context) error
}

// Sender delivers messages. Send returns the provider's id of the message; an error wrapping
// ErrPermanent means retrying cannot help.
type Sender interface {
	Send(ctx context.Context, m Message) (providerID string, err error)
	// Provider names the sender in the email log ("smtp", "log").
	Provider() string
}

// ErrPermanent marks failures no retry can fix: the server refused with a 5xx reply.
var ErrPermanent = errors.New("permanent delivery failure")

// DefaultSMTPConnections is how many connections one process keeps open to the relay
// (PODIUM_SMTP_CONNECTIONS changes it): enough for thousands of messages a second to a relay
// nearby, few enough for relays that limit connections per client.
const DefaultSMTPConnections = 32

// SMTPOptions tune NewSMTPSender.
type SMTPOptions struct {
	// TLSConfig verifies the server; nil uses the system's roots for the URL's host.
	TLSConfig *tls.Config
	// Connections bounds the connections open to the relay at once, busy or idle; 0 means
	// DefaultSMTPConnections. Deliveries beyond it wait for a connection.
	Connections int
	// Timeout bounds dialing and each SMTP command; 0 means 30 s.
	Timeout time.Duration
}

// SMTPSender delivers over SMTP and keeps a few connections open between messages.
//
// SMTP_URL is smtp://[user:pass@]host:port — plain, upgraded with STARTTLS when the server offers
// it — or smtps://[user:pass@]host:port for implicit TLS.
type SMTPSender struct {
	from    string
	domain  string
	client  *mail.Client
	timeout time.Duration
	// slots holds a token per connection that may be open; idle holds the open ones not in use.
	slots chan struct{}
	idle  chan *smtp.Client
}

// NewSMTPSender returns a sender for the SMTP server at rawURL, sending as from.
func NewSMTPSender(rawURL, from string, opts SMTPOptions) (*SMTPSender, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, fmt.Errorf("jobs: SMTP_URL must be smtp://[user:pass@]host:port or smtps://…")
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("jobs: MAIL_FROM %q: %w", from, err)
	}
	if opts.Connections <= 0 {
		opts.Connections = DefaultSMTPConnections
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	port := 25
	if u.Scheme == "smtps" {
		port = 465
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("jobs: SMTP_URL port: %w", err)
		}
	}
	tlsConfig := opts.TLSConfig
	if tlsConfig == nil {
		tlsConfig = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	}
	clientOpts := []mail.Option{
		mail.WithPort(port),
		mail.WithTimeout(opts.Timeout),
		mail.WithTLSConfig(tlsConfig),
	}
	if u.Scheme == "smtps" {
		clientOpts = append(clientOpts, mail.WithSSL())
	} else {
		clientOpts = append(clientOpts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		clientOpts = append(clientOpts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover),
			mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
	}
	client, err := mail.NewClient(u.Hostname(), clientOpts...)
	if err != nil {
		return nil, fmt.Errorf("jobs: SMTP client: %w", err)
	}
	domain := "podium.local"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = strings.Trim(from[at+1:], "> ")
	}
	return &SMTPSender{from: from, domain: domain, client: client, timeout: opts.Timeout,
		slots: make(chan struct{}, opts.Connections), idle: make(chan *smtp.Client, opts.Connections)}, nil
}

// Provider names the sender.
func (*SMTPSender) Provider() string { return "smtp" }

// Send delivers m, reusing an idle connection when one is open. It runs the mail transaction
// itself rather than with go-mail's Send, which checks the connection with NOOP before a message
// and again, with NOOP and RSET, after the server has accepted it: two round trips after the relay
// has the message, widening the window in which a crash sends it twice, and a connection dropping
// during them would report an accepted message failed. After a completed DATA the server has
// reset its transaction itself (RFC 5321 4.1.4) and a connection that failed is closed, so RSET
// is never needed; a reused connection is checked once, before the message.
func (s *SMTPSender) Send(ctx context.Context, m Message) (string, error) {
	msg, id, err := s.build(m)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("smtp: waiting for a connection: %w", ctx.Err())
	}
	defer func() { <-s.slots }()
	var conn *smtp.Client
	select {
	case conn = <-s.idle:
		// The relay may have closed a connection while it was idle; NOOP finds out while nothing
		// is at stake, and a fresh connection takes its place.
		if conn.UpdateDeadline(s.timeout) != nil || conn.Noop() != nil {
			_ = s.client.CloseWithSMTPClient(conn)
			conn = nil
		}
	default:
	}
	if conn == nil {
		if conn, err = s.client.DialToSMTPClientWithContext(ctx); err != nil {
			return "", fmt.Errorf("smtp: connect: %w", err)
		}
	}
	if err := s.transact(ctx, conn, msg, m.Committing); err != nil {
		// A connection that failed a send is not trusted again.
		_ = s.client.CloseWithSMTPClient(conn)
		var reply *textproto.Error
		if errors.As(err, &reply) && reply.Code >= 500 && reply.Code < 600 {
			return "", fmt.Errorf("%w: %w", ErrPermanent, err)
		}
		return "", fmt.Errorf("smtp: %w", err)
	}
	s.idle <- conn // never blocks: a slot is held, so fewer than cap(idle) connections are idle
	return id, nil
}

// transact runs one mail transaction on conn: MAIL, RCPT, DATA with the message, and the final
// "." after which the server has the message — the last step, with committing called just
// before it.
func (s *SMTPSender) transact(ctx context.Context, conn *smtp.Client, msg *mail.Msg, committing func(context.Context) error) error {
	from, err := msg.GetSender(false)
	if err != nil {
		return err
	}
	rcpts, err := msg.GetRecipients()
	if err != nil {
		return err
	}
	if err := conn.UpdateDeadline(s.timeout); err != nil {
		return err
	}
	if err := conn.Mail(from); err != nil {
		return fmt.Errorf("MAIL FROM: %w", err)
	}
	for _, rcpt := range rcpts {
		if err := conn.Rcpt(rcpt); err != nil {
			return fmt.Errorf("RCPT TO: %w", err)
		}
	}
	data, err := conn.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := msg.WriteTo(data); err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if committing != nil {
		if err := committing(ctx); err != nil {
			return err
		}
		if err := conn.UpdateDeadline(s.timeout); err != nil { // the wait may have been long
			return err
		}
	}
	if err := data.Close(); err != nil {
		return fmt.Errorf("end of DATA: %w", err)
	}
	return nil
}

// Close closes the idle connections.
func (s *SMTPSender) Close() {
	for {
		select {
		case conn := <-s.idle:
			_ = s.client.CloseWithSMTPClient(conn)
		default:
			return
		}
	}
}

// build makes the MIME message: text and HTML as alternatives (plus the calendar, when there is
// one, both as an alternative that mail clients show as an invitation and as an attachment).
func (s *SMTPSender) build(m Message) (*mail.Msg, string, error) {
	msg := mail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return nil, "", fmt.Errorf("MAIL_FROM: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return nil, "", fmt.Errorf("recipient: %w", err)
	}
	id := m.ID + "@" + s.domain
	msg.SetMessageIDWithValue(id)
	msg.SetDate()
	msg.Subject(m.Subject)
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, "", fmt.Errorf("reply-to: %w", err)
		}
	}
	if m.ListUnsubscribe != "" {
		msg.SetGenHeader(mail.HeaderListUnsubscribe, m.ListUnsubscribe)
		if m.OneClickUnsubscribe {
			msg.SetGenHeader(mail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
		}
	}
	msg.SetBodyString(mail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(mail.TypeTextHTML, m.HTML)
	}
	if m.ICS != "" {
		calendar := mail.ContentType("text/calendar; method=" + m.ICSMethod)
		msg.AddAlternativeString(calendar, m.ICS)
		if err := msg.AttachReader("invite.ics", strings.NewReader(m.ICS),
			mail.WithFileContentType(mail.ContentType("application/ics"))); err != nil {
			return nil, "", err
		}
	}
	return msg, "<" + id + ">", nil
}

// LogSender is the sender without SMTP_URL: it logs each message and reports it sent, so a
// development server's flows complete and their emails can be read in the log.
type LogSender struct{ Log *slog.Logger }

// Provider names the sender.
func (LogSender) Provider() string { return "log" }

// Send logs m.
func (l LogSender) Send(ctx context.Context, m Message) (string, error) {
	l.Log.InfoContext(ctx, "email (not sent: SMTP_URL is unset)", "email_id", m.ID, "to", m.To,
		"subject", m.Subject, "text", m.Text, "calendar", m.ICSMethod)
	return "<" + m.ID + "@log>", nil
}
