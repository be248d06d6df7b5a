// Package email is Podium's outbox: the one call through which every operation sends mail.
//
// Queue renders an email from its template, records it in the email log and inserts its River
// delivery job — both in the caller's transaction (see package dbx). A change that rolls back
// therefore sends nothing, and one that commits loses nothing: the job delivers the row later,
// over SMTP, with retries (see package jobs).
package email

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access/secret"
	"github.com/podium/podium/jobs"
)

//go:embed templates/*.txt templates/*.html
var files embed.FS

// Templates name the emails Podium sends. Each has a .txt file defining "subject" and "text"
// (text/template) and an .html file defining "content" (html/template, inside layout.html).
const (
	PortalInvitation   = "portal_invitation"
	SessionAccepted    = "session_accepted"
	SessionDeclined    = "session_declined"
	SessionCancelled   = "session_cancelled"
	SessionReinstated  = "session_reinstated"
	CalendarInvite     = "calendar_invite"
	SessionUnscheduled = "session_unscheduled"
	ReviewerInvitation = "reviewer_invitation"
	ReviewReminder     = "review_reminder"
	// SignIn carries a one-time sign-in link (docs/people.md); Count is its lifetime in minutes,
	// Path is SignInPath, FirstName is empty for an address no event knows.
	SignIn = "sign_in"
	// OrganizationInvitation invites someone to an organization; RoundName holds the role.
	OrganizationInvitation = "organization_invitation"
	// CFPSubmitted confirms a submitted proposal to its submitter (docs/cfp.md).
	CFPSubmitted = "cfp_submitted"
	// CFPCoSpeaker invites a co-speaker named on a proposal to accept or decline (docs/cfp.md);
	// Message holds who named them. Its subject holds no text the submitter typed.
	CFPCoSpeaker = "cfp_co_speaker"
	// WebhookDisabled tells an organization's owners and admins that Podium disabled a webhook
	// endpoint that kept failing (docs/webhooks.md): URL, Reason, When (failing since).
	WebhookDisabled = "webhook_disabled"
	// SpeakerDeclined tells an organization's owners and admins that a speaker declined taking
	// part from the portal: Message is the speaker's name, SessionTitle their accepted sessions.
	SpeakerDeclined = "speaker_declined"
	// ProposalWithdrawn tells an organization's owners and admins that a speaker withdrew a
	// submitted proposal: Message is the speaker's name, SessionTitle the proposal's title.
	ProposalWithdrawn = "proposal_withdrawn"
	// Campaign is an organizer's own message to speakers (docs/campaigns.md): Subject and Message
	// hold their text, merge tokens already replaced; the HTML keeps its line breaks.
	Campaign = "campaign"
	// AgendaChanged tells a speaker how their sessions changed in a newly published version of the
	// agenda (docs/agenda.md): Count is the version's number, Changes one line per session.
	AgendaChanged = "agenda_changed"
	// ChaserConfirmation asks a speaker told of an acceptance to confirm taking part; ChaserDeliverables
	// tells a speaker how many tasks and files are open (Count), the first due When (docs/chasers.md).
	ChaserConfirmation = "chaser_confirmation"
	ChaserDeliverables = "chaser_deliverables"
)

// Names lists every template, for tests and tools.
var Names = []string{PortalInvitation, SessionAccepted, SessionDeclined, SessionCancelled,
	SessionReinstated, CalendarInvite, SessionUnscheduled, ReviewerInvitation, ReviewReminder, SignIn, OrganizationInvitation,
	CFPSubmitted, CFPCoSpeaker, WebhookDisabled, Campaign, SpeakerDeclined, ProposalWithdrawn, AgendaChanged,
	ChaserConfirmation, ChaserDeliverables}

// Data is what templates may use. EventName, FirstName and Link are in every email.
type Data struct {
	EventName string
	FirstName string
	// Path is where Link leads, relative to PUBLIC_URL ("/portal") or an absolute URL; Queue fills
	// Link.
	Path string
	Link string
	// Subject is filled by Render for the HTML title; the Campaign template reads the organizer's
	// subject from it.
	Subject string

	SessionTitle string
	// ProgrammedAs is a sentence telling a speaker their session was accepted into another format
	// or track than they submitted it for (SessionAccepted); empty otherwise.
	ProgrammedAs string
	// Message is the organizers' own words (a cancellation reason, decision feedback).
	Message string
	// Calendar says a calendar attachment travels with the email.
	Calendar  bool
	When      string
	Room      string
	RoundName string
	Count     int
	// URL is a webhook endpoint's URL and Reason why Podium disabled it (WebhookDisabled).
	URL    string
	Reason string
	// Unsubscribe is the recipient's unsubscribe link (Campaign; docs/deliverability.md).
	Unsubscribe string
	// Changes are a speaker's sessions that changed in a published version (AgendaChanged).
	Changes []ChangeLine

	// Brand is the event's logo and colour; Queue fills it from the event.
	Brand Brand
	// AccessLink is a contact's own link into the speaker portal, its token a placeholder the
	// delivery worker replaces (AccessPath); Queue fills it in every email to a contact.
	AccessLink string
}

// ChangeLine is one session of an AgendaChanged email: its title and what happened to it.
type ChangeLine struct {
	Title, Detail string
}

// Rendered is an email's subject and bodies.
type Rendered struct {
	Subject, Text, HTML string
}

type templates struct {
	text map[string]*texttemplate.Template
	html map[string]*htmltemplate.Template
}

var parsed = mustParse()

func mustParse() templates {
	t := templates{text: map[string]*texttemplate.Template{}, html: map[string]*htmltemplate.Template{}}
	layout := htmltemplate.Must(htmltemplate.ParseFS(files, "templates/layout.html"))
	for _, name := range Names {
		t.text[name] = texttemplate.Must(texttemplate.New(name).Option("missingkey=error").
			ParseFS(files, "templates/"+name+".txt"))
		t.html[name] = htmltemplate.Must(htmltemplate.Must(layout.Clone()).ParseFS(files, "templates/"+name+".html"))
	}
	return t
}

// Render renders the template name with data.
func Render(name string, data Data) (Rendered, error) { return renderTemplate(name, data, "") }

// renderTemplate is Render, with the subject replaced by subject when it is not empty.
func renderTemplate(name string, data Data, subject string) (Rendered, error) {
	text, ok := parsed.text[name]
	if !ok {
		return Rendered{}, fmt.Errorf("email: no template %q", name)
	}
	var subjectText, body, html bytes.Buffer
	if subject != "" {
		subjectText.WriteString(subject)
	} else if err := text.ExecuteTemplate(&subjectText, "subject", data); err != nil {
		return Rendered{}, fmt.Errorf("email: %s subject: %w", name, err)
	}
	if err := text.ExecuteTemplate(&body, "text", data); err != nil {
		return Rendered{}, fmt.Errorf("email: %s text: %w", name, err)
	}
	// Subjects are one line, whatever the data holds.
	data.Subject = strings.Join(strings.Fields(subjectText.String()), " ")
	if err := parsed.html[name].ExecuteTemplate(&html, "layout", data); err != nil {
		return Rendered{}, fmt.Errorf("email: %s html: %w", name, err)
	}
	return Rendered{Subject: data.Subject, Text: body.String(), HTML: html.String()}, nil
}

// render renders e as the outbox queues it: with the event's wording of its template when w is
// not nil, else Podium's, and e.Subject in place of either's subject when set; with the contact's
// access link after the text (the layout puts it in the HTML part).
func render(e Email, w *Wording) (Rendered, error) {
	var r Rendered
	var err error
	if w != nil {
		own := *w
		if e.Subject != "" {
			own.Subject = e.Subject
		}
		r, err = renderWording(own, e.Data)
	} else {
		r, err = renderTemplate(e.Template, e.Data, e.Subject)
	}
	if err != nil || e.Data.AccessLink == "" {
		return r, err
	}
	r.Text = strings.TrimRight(r.Text, "\n") + "\n\n--\nYour speaker portal, without signing in: " + e.Data.AccessLink + "\n"
	return r, nil
}

// Email is one email to queue.
type Email struct {
	EventID      string
	ContactID    *string
	SubmissionID *string
	Type         emaillog.Type
	To           string
	Template     string
	Data         Data
	// ICS is an iCalendar object sent along (METHOD:REQUEST or CANCEL), with its SEQUENCE.
	ICS         string
	ICSSequence *int
	// ReplyTo is this send's Reply-To; nil leaves it to the event's replyToEmail at delivery.
	ReplyTo *string
	// Subject, when not empty, replaces the template's subject for this email (an organizer's
	// wording of a decision email, docs/decisions.md); it is made one line like any subject.
	Subject string
}

// Outbox queues emails.
type Outbox struct {
	// Jobs inserts delivery jobs; it need not run workers.
	Jobs *river.Client[pgx.Tx]
	// PublicURL is the base of links in emails.
	PublicURL string
}

// ErrNoTransaction is returned by Queue outside a transaction: an email must commit or roll back
// with the change that causes it.
var ErrNoTransaction = errors.New("email: Queue must run inside a transaction")

// batch bounds the rows of one INSERT, well under PostgreSQL's 65,535 parameters.
const batch = 1000

// Queue records emails in the email log and inserts their delivery jobs, in the transaction of
// ctx. It returns the email log rows in the order given.
func (o *Outbox) Queue(ctx context.Context, emails ...Email) ([]*ent.EmailLog, error) {
	tx := dbx.TxFromContext(ctx)
	if tx == nil {
		return nil, ErrNoTransaction
	}
	look, err := LoadLook(ctx, tx.Ent(), eventsOf(emails)...)
	if err != nil {
		return nil, err
	}
	rows := make([]*ent.EmailLog, 0, len(emails))
	for start := 0; start < len(emails); start += batch {
		part := emails[start:min(start+batch, len(emails))]
		builders := make([]*ent.EmailLogCreate, len(part))
		for i, e := range part {
			b, err := o.builder(tx.Ent(), e, look)
			if err != nil {
				return nil, err
			}
			builders[i] = b
		}
		created, err := tx.Ent().EmailLog.CreateBulk(builders...).Save(ctx)
		if err != nil {
			return nil, err
		}
		rows = append(rows, created...)
	}
	params := make([]river.InsertManyParams, len(rows))
	for i, r := range rows {
		params[i] = river.InsertManyParams{Args: jobs.DeliverEmailArgs{EmailID: r.ID, OrganizationID: r.OrganizationID}}
	}
	if len(params) > 0 {
		if _, err := o.Jobs.InsertManyFastTx(ctx, tx.PGX(), params); err != nil {
			return nil, fmt.Errorf("email: queue delivery: %w", err)
		}
	}
	// The emails queued are a change organizers watch (email.status_changed): one per event with
	// their count, however many (a campaign queues thousands at once), recorded in one statement;
	// system work records none.
	if org := viewer.OrganizationID(ctx); org != "" && len(rows) > 0 {
		if err := jobs.EmitChanges(ctx, tx.PGX(), org, jobs.EmailStatusChanges(rows, string(emaillog.StatusQueued))); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// link is where an email's Path leads: under PUBLIC_URL, or the path itself when it is an absolute
// URL already.
func (o *Outbox) link(path string) string {
	if strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "http://") {
		return path
	}
	return strings.TrimRight(o.PublicURL, "/") + path
}

// oneClick lists the emails whose link signs their recipient in (docs/people.md).
var oneClick = map[string]bool{ReviewerInvitation: true, ReviewReminder: true, PortalInvitation: true,
	CFPCoSpeaker: true, ChaserConfirmation: true, ChaserDeliverables: true}

// OneClickPath is the sign-in link that lands on path, with the placeholder of a token: the
// delivery worker puts a fresh token in its place in the message it sends (see package jobs),
// so the email log, which organizers read, never holds one. next is also in the link itself, so
// that a used or expired link still leads to the sign-in page with the same destination.
func OneClickPath(path string) string {
	return "/auth/link?token=" + secret.Placeholder + "&next=" + url.QueryEscape(path)
}

// SignInPath is the link of a sign-in email (template SignIn) that lands on next, with the
// placeholder of a token that the delivery worker replaces, as in OneClickPath: no stored copy of
// a sign-in email signs anyone in. next is in the link too, so that a used or expired link still
// leads to a sign-in form for the same place.
func SignInPath(next string) string {
	return "/auth/link?token=" + secret.RequestedPlaceholder + "&next=" + url.QueryEscape(next)
}

// Render renders e as Queue records it, with the event's look and wording in look (see
// LoadLook). The preview of a wording calls it too, so that it shows what is sent.
func (o *Outbox) Render(e Email, look *Look) (Rendered, error) {
	if oneClick[e.Template] && strings.HasPrefix(e.Data.Path, "/") {
		e.Data.Path = OneClickPath(e.Data.Path)
	}
	e.Data.Link = o.link(e.Data.Path)
	if e.ContactID != nil {
		e.Data.AccessLink = o.link(AccessPath)
	}
	e.Data.Brand = look.brand(e.EventID)
	return render(e, look.wording(e.EventID, e.Template))
}

func (o *Outbox) builder(c *ent.Client, e Email, look *Look) (*ent.EmailLogCreate, error) {
	r, err := o.Render(e, look)
	if err != nil {
		return nil, err
	}
	b := c.EmailLog.Create().
		SetEventID(e.EventID).
		SetNillableContactID(e.ContactID).
		SetNillableSubmissionID(e.SubmissionID).
		SetType(e.Type).
		SetTemplate(e.Template).
		SetRecipient(e.To).
		SetSubject(r.Subject).
		SetBody(r.Text).
		SetHTMLBody(r.HTML).
		SetStatus(emaillog.StatusQueued).
		SetNillableReplyTo(e.ReplyTo)
	if e.ICS != "" {
		b.SetIcsAttached(true).SetIcsContent(e.ICS).SetNillableIcsSequence(e.ICSSequence)
	}
	return b, nil
}
