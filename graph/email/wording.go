package email

import (
	"fmt"
	htmltemplate "html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// An event's own wording of an email (docs/emails.md) is plain text with {{placeholders}}, not a
// Go template: organizers write words, never code, so a wording holds no action, function or
// field path, and nothing in it runs. Placeholders lists what each email takes.

// Wording is an event's subject and body of an email, with {{placeholders}}.
type Wording struct {
	Subject, Body string
}

// Placeholders lists the emails whose wording organizers may change — those Podium sends to an
// event's speakers, contacts and reviewers —, each with the placeholders it takes. Emails to the
// organizers themselves (webhook_disabled, speaker_declined, proposal_withdrawn,
// organization_invitation), the sign-in email, whose link is its whole point, and campaigns,
// whose text is the organizers' already, keep Podium's wording.
var Placeholders = map[string][]string{
	PortalInvitation:   {"firstName", "eventName", "link"},
	SessionAccepted:    {"firstName", "eventName", "sessionTitle", "programmedAs", "message", "link"},
	SessionDeclined:    {"firstName", "eventName", "sessionTitle", "message", "link"},
	SessionCancelled:   {"firstName", "eventName", "sessionTitle", "message", "link"},
	SessionReinstated:  {"firstName", "eventName", "sessionTitle", "message", "link"},
	CalendarInvite:     {"firstName", "eventName", "sessionTitle", "when", "room", "link"},
	SessionUnscheduled: {"firstName", "eventName", "sessionTitle", "link"},
	ReviewerInvitation: {"firstName", "eventName", "roundName", "count", "when", "link"},
	ReviewReminder:     {"firstName", "eventName", "roundName", "count", "when", "link"},
	CFPSubmitted:       {"firstName", "eventName", "sessionTitle", "link"},
	CFPCoSpeaker:       {"eventName", "sessionTitle", "message", "link"},
	AgendaChanged:      {"firstName", "eventName", "count", "changes", "link"},
	ChaserConfirmation: {"firstName", "eventName", "link"},
	ChaserDeliverables: {"firstName", "eventName", "count", "when", "link"},
}

// Descriptions say what each email of Placeholders is for.
var Descriptions = map[string]string{
	PortalInvitation:   "Invites a speaker to their speaker portal.",
	SessionAccepted:    "Tells a speaker their proposal was accepted; programmedAs says the format or track it was accepted into when not the one submitted, message is the organizers' feedback.",
	SessionDeclined:    "Tells a speaker their proposal was declined; message is the organizers' feedback.",
	SessionCancelled:   "Tells a speaker their session was cancelled; message is the organizers' reason.",
	SessionReinstated:  "Tells a speaker their cancelled session is back on; message is the organizers' note.",
	CalendarInvite:     "Carries a session's calendar invitation to its speakers.",
	SessionUnscheduled: "Tells a speaker their session was taken off the schedule.",
	ReviewerInvitation: "Invites a reviewer to a review round; count is the proposals up for review, when its close.",
	ReviewReminder:     "Reminds a reviewer of the reviews waiting; count is how many, when the round's close.",
	CFPSubmitted:       "Confirms a submitted proposal to its submitter.",
	CFPCoSpeaker:       "Invites a co-speaker named on a proposal; message is who named them.",
	AgendaChanged:      "Tells a speaker their sessions changed in a published agenda; count is the version, changes one line per session.",
	ChaserConfirmation: "Chases a speaker told of an acceptance who has not confirmed taking part (docs/chasers.md).",
	ChaserDeliverables: "Chases a speaker with open tasks or files; count is how many, when the first due date (docs/chasers.md).",
}

// Customizable lists the emails of Placeholders in a stable order.
var Customizable = func() []string {
	var out []string
	for _, n := range Names {
		if _, ok := Placeholders[n]; ok {
			out = append(out, n)
		}
	}
	return out
}()

// placeholder matches a {{name}} token; spaces inside the braces are allowed.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// WordingError is a wording refused on save: it names the field and what is wrong.
type WordingError struct {
	Field, Message string
}

func (e *WordingError) Error() string { return e.Message }

// Check validates a wording of template: an email of Placeholders, a subject of one line, and no
// placeholder the email does not take (named in the error), no unclosed or stray braces.
func Check(template string, w Wording) error {
	allowed, ok := Placeholders[template]
	if !ok {
		return &WordingError{Field: "template", Message: fmt.Sprintf("Email %q cannot be reworded; these can: %s",
			template, strings.Join(Customizable, ", "))}
	}
	if strings.ContainsAny(w.Subject, "\r\n") {
		return &WordingError{Field: "subject", Message: "The subject must be one line"}
	}
	for _, f := range []struct{ field, text string }{{"subject", w.Subject}, {"body", w.Body}} {
		for _, m := range placeholder.FindAllStringSubmatch(f.text, -1) {
			if !slices.Contains(allowed, m[1]) {
				return &WordingError{Field: f.field, Message: fmt.Sprintf("Unknown placeholder {{%s}} in the %s: %s takes %s",
					m[1], f.field, template, "{{"+strings.Join(allowed, "}}, {{")+"}}")}
			}
		}
		if rest := placeholder.ReplaceAllString(f.text, ""); strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
			return &WordingError{Field: f.field, Message: fmt.Sprintf("The %s has a brace pair that is no placeholder: write placeholders as {{name}}", f.field)}
		}
	}
	return nil
}

// expand replaces each {{name}} of s by its value; Check has refused unknown names.
func expand(s string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(s, func(tok string) string {
		return values[placeholder.FindStringSubmatch(tok)[1]]
	})
}

// values are the placeholders' values for data.
func (d Data) values() map[string]string {
	var changes []string
	for _, c := range d.Changes {
		changes = append(changes, fmt.Sprintf("- %q: %s", c.Title, c.Detail))
	}
	return map[string]string{
		"firstName": d.FirstName, "eventName": d.EventName, "sessionTitle": d.SessionTitle,
		"programmedAs": d.ProgrammedAs, "message": d.Message, "link": d.Link, "when": d.When, "room": d.Room, "roundName": d.RoundName,
		"count": strconv.Itoa(d.Count), "changes": strings.Join(changes, "\n"),
	}
}

// renderWording renders an event's wording of an email: the text part is the body as written with
// its placeholders filled, the HTML part the same words as escaped paragraphs with clickable links,
// inside the layout.
func renderWording(w Wording, data Data) (Rendered, error) {
	v := data.values()
	data.Subject = strings.Join(strings.Fields(expand(w.Subject, v)), " ")
	text := strings.ReplaceAll(expand(w.Body, v), "\r\n", "\n")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	var html strings.Builder
	if err := wordingHTML.ExecuteTemplate(&html, "layout", wordingData{Data: data, Body: paragraphs(text)}); err != nil {
		return Rendered{}, fmt.Errorf("email: wording html: %w", err)
	}
	return Rendered{Subject: data.Subject, Text: text, HTML: html.String()}, nil
}

// wordingData is what the layout draws for a wording: the email's data and the body's HTML.
type wordingData struct {
	Data
	Body htmltemplate.HTML
}

var wordingHTML = htmltemplate.Must(htmltemplate.Must(htmltemplate.ParseFS(files, "templates/layout.html")).
	New("content").Parse(`{{.Body}}`))

// url matches a link in plain text, up to a space, a bracket or a quote; a trailing full stop or
// comma is left out of it.
var urlInText = regexp.MustCompile(`https?://[^\s<>"']+[^\s<>"'.,;:!?)]`)

// paragraphs turns plain text into HTML: a blank line starts a paragraph, a line break stays one,
// everything is escaped, and links are clickable.
func paragraphs(text string) htmltemplate.HTML {
	var b strings.Builder
	for _, para := range regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(text), -1) {
		lines := strings.Split(para, "\n")
		for i, line := range lines {
			lines[i] = linkify(line)
		}
		b.WriteString("<p>" + strings.Join(lines, "<br>\n") + "</p>\n")
	}
	return htmltemplate.HTML(b.String())
}

// linkify escapes a line and makes its links clickable.
func linkify(line string) string {
	var b strings.Builder
	last := 0
	for _, m := range urlInText.FindAllStringIndex(line, -1) {
		b.WriteString(htmltemplate.HTMLEscapeString(line[last:m[0]]))
		u := htmltemplate.HTMLEscapeString(line[m[0]:m[1]])
		b.WriteString(`<a href="` + u + `">` + u + `</a>`)
		last = m[1]
	}
	b.WriteString(htmltemplate.HTMLEscapeString(line[last:]))
	return b.String()
}

// countSentinel stands for {{count}} while Podium's wording is rendered into placeholders.
const countSentinel = 987654321

// DefaultWording is Podium's wording of template with placeholders in place of its data: the
// wording an event starts from. Parts Podium shows only when they have data (a note from the
// organizers, a room) are in it with their placeholder.
func DefaultWording(template string) (Wording, error) {
	if _, ok := Placeholders[template]; !ok {
		return Wording{}, fmt.Errorf("email: %q takes no wording", template)
	}
	r, err := Render(template, Data{FirstName: "{{firstName}}", EventName: "{{eventName}}",
		SessionTitle: "{{sessionTitle}}", ProgrammedAs: "{{programmedAs}}", Message: "{{message}}", Link: "{{link}}", When: "{{when}}",
		Room: "{{room}}", RoundName: "{{roundName}}", Count: countSentinel,
		Changes: []ChangeLine{{Title: "\x00", Detail: "\x00"}}})
	if err != nil {
		return Wording{}, err
	}
	fix := func(s string) string {
		s = strings.ReplaceAll(s, strconv.Itoa(countSentinel), "{{count}}")
		return regexp.MustCompile(`- "\x00": \x00`).ReplaceAllString(s, "{{changes}}")
	}
	return Wording{Subject: fix(r.Subject), Body: fix(r.Text)}, nil
}
