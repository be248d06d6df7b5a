package web

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"net/url"
	"strings"

	"github.com/podium/podium/graph/operation"

	"github.com/podium/podium/graph/model"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// The call for proposals' pages (docs/cfp.md):
//
//	GET  /cfp/{formId}                               the form: what it asks, how to sign in, my proposals
//	GET  /cfp/{formId}/new                           a new proposal
//	POST /cfp/{formId}/proposals                     save it as a draft, or submit it
//	GET  /cfp/{formId}/proposals/{id}                edit one of mine
//	POST /cfp/{formId}/proposals/{id}                save or submit it
//	POST /cfp/{formId}/proposals/{id}/withdraw       withdraw it
//	POST /cfp/{formId}/proposals/{id}/delete         delete a draft never submitted
//	GET  /cfp/{formId}/invitations/{id}              an invitation to co-present a proposal
//	POST /cfp/{formId}/invitations/{id}              accept or decline it
//
// They call the operations GraphQL calls (graph/operation/cfp.go) and hold no rule of their own.

// CFPDeps is what the pages need from the server.
type CFPDeps struct {
	Ops *operation.Service
	// Person is the signed-in person of a request, or nil.
	Person func(r *http.Request) *viewer.Person
	Log    *slog.Logger
}

// maxFormBody caps a proposal form's body: a description of 50,000 characters, each up to four
// bytes, percent-encoded, with room for the rest.
const maxFormBody = 1 << 20

// MountCFP adds the call for proposals' pages to r. Every POST is refused from another origin.
func MountCFP(r chi.Router, d CFPDeps) {
	p := &cfpPages{d}
	r.Get("/cfp/{formId}", p.formPage)
	r.Get("/cfp/{formId}/new", p.newPage)
	r.Post("/cfp/{formId}/proposals", Protect(p.save))
	r.Get("/cfp/{formId}/proposals/{id}", p.editPage)
	r.Post("/cfp/{formId}/proposals/{id}", Protect(p.save))
	r.Post("/cfp/{formId}/proposals/{id}/withdraw", Protect(p.withdraw))
	r.Post("/cfp/{formId}/proposals/{id}/delete", Protect(p.deleteDraft))
	r.Get("/cfp/{formId}/invitations/{id}", p.invitationPage)
	r.Post("/cfp/{formId}/invitations/{id}", Protect(p.answerInvitation))
}

type cfpPages struct{ CFPDeps }

// cfpOverview is what template cfp-form draws.
type cfpOverview struct {
	Form      *model.CfpForm
	Signed    bool
	Proposals []*model.Proposal
	// Invitations are the person's invitations to co-present proposals of the form.
	Invitations []*model.ProposalInvitation
	// Full says the person has used the form's limit.
	Full bool
}

// invitationPage is what template cfp-invitation draws.
type invitationPage struct {
	Form       *model.CfpForm
	Invitation *model.ProposalInvitation
}

// proposalPage is what template cfp-proposal draws.
type proposalPage struct {
	Form   *model.CfpForm
	Action string
	New    bool
	// CoSpeaker says the person is a co-speaker, not the submitter: the co-speakers are the
	// submitter's to set, so the box is not shown.
	CoSpeaker bool
	Key       string
	V         proposalValues
	// Errors are messages by field name; the field points at its message (aria-describedby).
	Errors   map[string]string
	Formats  []choice
	Levels   []choice
	Tracks   []choice
	Question []questionField
}

type choice struct {
	ID, Name string
	Selected bool
}

type questionField struct {
	Key, Label, Kind, Value string
	Required                bool
	Options                 []choice
}

// proposalValues are the proposal form's fields as typed.
type proposalValues struct {
	Title, Description, Format, Level, Language, CoSpeakers, FirstName, LastName string
	Tracks                                                                       []string
	Answers                                                                      map[string]string
	// Invitations are the co-speakers named who are not speakers yet, with their answers.
	Invitations []*model.CoSpeakerInvitation
}

// load reads the form, or writes its error page and returns nil.
func (p *cfpPages) load(w http.ResponseWriter, r *http.Request) (*model.CfpForm, Theme) {
	f, ev, err := p.Ops.PublicFormEvent(r.Context(), chi.URLParam(r, "formId"))
	if err != nil {
		p.fail(w, r, Theme{}, err)
		return nil, Theme{}
	}
	return f, themeOfEvent(ev)
}

func themeOfEvent(ev *ent.Event) Theme {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return ThemeOf(ev.Name, deref(ev.Theme), deref(ev.LogoURL))
}

// fail writes a page for an operation's error: its message and status, or a plain 500.
func (p *cfpPages) fail(w http.ResponseWriter, r *http.Request, t Theme, err error) {
	e, ok := apperr.As(err)
	if !ok {
		if p.Log != nil {
			p.Log.ErrorContext(r.Context(), "cfp page failed", "err", err)
		}
		e = apperr.Internal()
	}
	Render(w, e.Status, Page{Title: "Call for proposals", Theme: t, Person: p.Person(r), Error: e.Message})
}

// signInFirst sends a person who is not signed in to sign in, then back to this page.
func signInFirst(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
}

var notices = map[string]string{
	"saved":     "Your draft is saved. Submit it when it is ready.",
	"submitted": "Your proposal is submitted. A confirmation is on its way to your inbox.",
	"withdrawn": "Your proposal is withdrawn.",
	"updated":   "Your changes are saved.",
	"deleted":   "Your draft is deleted.",
	"accepted":  "You are a speaker of this proposal now.",
	"declined":  "You declined the invitation: you are not a speaker of this proposal.",
}

func (p *cfpPages) formPage(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	data := cfpOverview{Form: f, Signed: person != nil}
	if person != nil {
		mine, err := p.Ops.OwnProposals(r.Context(), person, f.ID)
		if err != nil {
			p.fail(w, r, theme, err)
			return
		}
		data.Proposals = mine
		n := 0
		for _, pr := range mine {
			if operation.CountsAgainstLimit(pr) {
				n++
			}
		}
		data.Full = n >= f.EffectiveSubmissionLimit
		if data.Invitations, err = p.Ops.OwnInvitations(r.Context(), person, f.ID); err != nil {
			p.fail(w, r, theme, err)
			return
		}
	}
	page := Page{Title: f.Title, Theme: theme, Person: person, Content: "cfp-form", Data: data,
		Notice: notices[r.URL.Query().Get("done")]}
	if !f.AcceptingProposals {
		page.Error = closedMessage(f)
	}
	Render(w, http.StatusOK, page)
}

func closedMessage(f *model.CfpForm) string {
	if f.Status == model.CfpFormStatusOpen && f.OpensAt != nil && (f.ClosesAt == nil || f.OpensAt.Before(*f.ClosesAt)) {
		if f.ClosesAt == nil || f.ClosesAt.After(*f.OpensAt) {
			return "This call for proposals is not open yet: it opens on " + operation.FormatLocal(*f.OpensAt, f.EventTimezone) + "."
		}
	}
	return "Submissions are closed: this form no longer accepts new or changed proposals."
}

func (p *cfpPages) newPage(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		signInFirst(w, r)
		return
	}
	if msg := p.cannotPropose(r, person, f); msg != "" {
		Render(w, http.StatusConflict, Page{Title: f.Title, Theme: theme, Person: person, Error: msg,
			Content: "link", Data: &Link{Href: "/cfp/" + f.ID, Text: "Back to " + f.Title}})
		return
	}
	p.renderProposal(w, http.StatusOK, theme, person, f, "", proposalValues{Language: "en"}, newKey(), "", "", false)
}

// cannotPropose says why the person cannot write a new proposal through f now — closed, not open
// yet, or their limit used — or "" when they can: the page says so instead of a form that fails
// once filled in.
func (p *cfpPages) cannotPropose(r *http.Request, person *viewer.Person, f *model.CfpForm) string {
	if !f.AcceptingProposals {
		return closedMessage(f)
	}
	mine, err := p.Ops.OwnProposals(r.Context(), person, f.ID)
	if err != nil {
		return ""
	}
	n := 0
	for _, pr := range mine {
		if operation.CountsAgainstLimit(pr) {
			n++
		}
	}
	if n >= f.EffectiveSubmissionLimit {
		return fmt.Sprintf("You have reached the limit of %d proposals for this form.", f.EffectiveSubmissionLimit)
	}
	return ""
}

func (p *cfpPages) editPage(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		signInFirst(w, r)
		return
	}
	pr, err := p.own(r, person, f.ID, chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, theme, err)
		return
	}
	v := proposalValues{Title: pr.Title, Description: pr.Description, Language: pr.Language, Tracks: pr.TrackIds,
		Answers: map[string]string{}, Invitations: pr.Invitations}
	if pr.FormatID != nil {
		v.Format = *pr.FormatID
	}
	if pr.LevelID != nil {
		v.Level = *pr.LevelID
	}
	var cos []string
	for _, s := range pr.Speakers {
		if !s.Submitter {
			cos = append(cos, s.Name+" <"+s.Email+">")
		}
	}
	for _, inv := range pr.Invitations {
		cos = append(cos, inv.Name+" <"+inv.Email+">")
	}
	v.CoSpeakers = strings.Join(cos, "\n")
	for k, a := range pr.Answers {
		if s, ok := a.(string); ok {
			v.Answers[k] = s
		}
	}
	if !pr.Editable {
		view := proposalView{Form: f, P: pr, Why: "This proposal can no longer be changed here: it is " + string(pr.Status) +
			", or the form is closed."}
		if pr.Status == model.SubmissionStatusAccepted {
			// Its content is edited in the portal, until the organizers lock it.
			view.Content, err = p.Ops.OwnSessionContent(r.Context(), person, pr.ID)
			if _, known := apperr.As(err); err != nil && !known {
				p.fail(w, r, theme, err)
				return
			}
		}
		Render(w, http.StatusOK, Page{Title: pr.Title, Theme: theme, Person: person, Content: "cfp-view", Data: view})
		return
	}
	p.renderProposal(w, http.StatusOK, theme, person, f, pr.ID, v, "", "", "", !pr.Mine)
}

// proposalView is what template cfp-view draws: a proposal that can no longer be changed.
type proposalView struct {
	Form *model.CfpForm
	P    *model.Proposal
	Why  string
	// Content is an accepted proposal's content as the portal edits it; nil for any other.
	Content *model.MySessionContent
}

// own finds one of the person's proposals of the form.
func (p *cfpPages) own(r *http.Request, person *viewer.Person, formID, id string) (*model.Proposal, error) {
	mine, err := p.Ops.OwnProposals(r.Context(), person, formID)
	if err != nil {
		return nil, err
	}
	for _, pr := range mine {
		if pr.ID == id && pr.FormID == formID {
			return pr, nil
		}
	}
	return nil, apperr.NotFound("Proposal")
}

// save saves or submits a new proposal or one of the person's; a refusal shows the form again
// with what was typed and the message next to its field.
func (p *cfpPages) save(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape("/cfp/"+f.ID), http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		Render(w, http.StatusBadRequest, Page{Title: f.Title, Theme: theme, Person: person,
			Error: "The form could not be read: it may be too long. Go back and shorten it."})
		return
	}
	form := r.PostForm
	v := proposalValues{Title: form.Get("title"), Description: form.Get("description"), Format: form.Get("format"),
		Level: form.Get("level"), Language: form.Get("language"), CoSpeakers: form.Get("cospeakers"),
		FirstName: form.Get("first_name"), LastName: form.Get("last_name"), Tracks: form["track"],
		Answers: map[string]string{}}
	in := model.ProposalInput{Title: v.Title, Description: &v.Description, Language: &v.Language,
		FormatID: &v.Format, LevelID: &v.Level, TrackIds: v.Tracks, Answers: map[string]any{},
		FirstName: &v.FirstName, LastName: &v.LastName}
	for _, q := range f.Questions {
		if a, ok := form["q_"+q.Key]; ok && len(a) > 0 {
			v.Answers[q.Key] = a[0]
			in.Answers[q.Key] = a[0]
		}
	}
	id := chi.URLParam(r, "id")
	key := form.Get("key")
	var before *model.Proposal
	if id != "" {
		before, _ = p.own(r, person, f.ID, id)
	}
	coSpeaker := before != nil && !before.Mine
	if id == "" {
		in.Key = &key
	}
	cos, field, err := coSpeakersOf(v.CoSpeakers)
	var saved *model.Proposal
	if err == nil {
		in.CoSpeakers = cos
		var idp *string
		if id != "" {
			idp = &id
		}
		saved, err = p.Ops.SaveOwnProposal(r.Context(), person, f.ID, idp, in, form.Get("action") == "submit")
	}
	if err == nil {
		done := "saved"
		switch {
		case before != nil && before.Status != model.SubmissionStatusDraft:
			// Already submitted: the change is saved, and no second confirmation is sent.
			done = "updated"
		case saved.Status != model.SubmissionStatusDraft:
			done = "submitted"
		}
		http.Redirect(w, r, "/cfp/"+f.ID+"?done="+done, http.StatusSeeOther)
		return
	}
	e, ok := apperr.As(err)
	if !ok {
		p.fail(w, r, theme, err)
		return
	}
	fields := []string{field}
	if field == "" {
		fields = fieldsOf(e.Message, f)
	}
	p.renderProposal(w, e.Status, theme, person, f, id, v, key, e.Message, "", coSpeaker, fields...)
}

// deleteDraft deletes one of the person's drafts that was never submitted.
func (p *cfpPages) deleteDraft(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape("/cfp/"+f.ID), http.StatusSeeOther)
		return
	}
	if _, err := p.Ops.DeleteOwnProposal(r.Context(), person, f.ID, chi.URLParam(r, "id")); err != nil {
		p.fail(w, r, theme, err)
		return
	}
	http.Redirect(w, r, "/cfp/"+f.ID+"?done=deleted", http.StatusSeeOther)
}

// invitationPage shows the person's invitation to co-present a proposal, with Accept and
// Decline. Signed out, the person signs in first (the email's link signs them in).
func (p *cfpPages) invitationPage(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		signInFirst(w, r)
		return
	}
	invs, err := p.Ops.OwnInvitations(r.Context(), person, f.ID)
	if err != nil {
		p.fail(w, r, theme, err)
		return
	}
	id := chi.URLParam(r, "id")
	for _, inv := range invs {
		if inv.ProposalID == id {
			Render(w, http.StatusOK, Page{Title: "Co-present “" + inv.Title + "”?", Theme: theme, Person: person,
				Content: "cfp-invitation", Data: invitationPage{Form: f, Invitation: inv}})
			return
		}
	}
	Render(w, http.StatusNotFound, Page{Title: "Invitation not found", Theme: theme, Person: person,
		Error: "There is no invitation to this proposal for " + person.Email + ". Sign in with the address the invitation was sent to."})
}

// answerInvitation accepts or declines the invitation.
func (p *cfpPages) answerInvitation(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		Render(w, http.StatusBadRequest, Page{Title: f.Title, Theme: theme, Person: person, Error: "The form could not be read."})
		return
	}
	accept := r.PostForm.Get("answer") == "accept"
	if _, err := p.Ops.AnswerOwnInvitation(r.Context(), person, f.ID, chi.URLParam(r, "id"), accept); err != nil {
		p.fail(w, r, theme, err)
		return
	}
	done := "declined"
	if accept {
		done = "accepted"
	}
	http.Redirect(w, r, "/cfp/"+f.ID+"?done="+done, http.StatusSeeOther)
}

func (p *cfpPages) withdraw(w http.ResponseWriter, r *http.Request) {
	f, theme := p.load(w, r)
	if f == nil {
		return
	}
	person := p.Person(r)
	if person == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape("/cfp/"+f.ID), http.StatusSeeOther)
		return
	}
	if _, err := p.Ops.WithdrawOwnProposal(r.Context(), person, f.ID, chi.URLParam(r, "id")); err != nil {
		p.fail(w, r, theme, err)
		return
	}
	http.Redirect(w, r, "/cfp/"+f.ID+"?done=withdrawn", http.StatusSeeOther)
}

// renderProposal draws the proposal form with values, and msg next to field when given.
func (p *cfpPages) renderProposal(w http.ResponseWriter, status int, theme Theme, person *viewer.Person, f *model.CfpForm,
	id string, v proposalValues, key, msg, field string, coSpeaker bool, more ...string) {
	d := proposalPage{Form: f, New: id == "", Key: key, V: v, Errors: map[string]string{}, CoSpeaker: coSpeaker}
	d.Action = "/cfp/" + f.ID + "/proposals"
	title := "New proposal"
	if id != "" {
		d.Action += "/" + id
		title = "Edit proposal"
	}
	for _, fl := range append([]string{field}, more...) {
		if msg != "" && fl != "" {
			d.Errors[fl] = msg
		}
	}
	pick := func(opts []*model.CfpOption, selected func(string) bool) []choice {
		out := make([]choice, len(opts))
		for i, o := range opts {
			out[i] = choice{ID: o.ID, Name: o.Name, Selected: selected(o.ID)}
		}
		return out
	}
	d.Formats = pick(f.Formats, func(id string) bool { return id == v.Format })
	d.Levels = pick(f.Levels, func(id string) bool { return id == v.Level })
	d.Tracks = pick(f.Tracks, func(id string) bool {
		for _, t := range v.Tracks {
			if t == id {
				return true
			}
		}
		return false
	})
	for _, q := range f.Questions {
		qf := questionField{Key: q.Key, Label: q.Label, Kind: string(q.Kind), Value: v.Answers[q.Key], Required: q.Required}
		for _, o := range q.Options {
			qf.Options = append(qf.Options, choice{ID: o, Name: o, Selected: o == qf.Value})
		}
		d.Question = append(d.Question, qf)
	}
	Render(w, status, Page{Title: title, Theme: theme, Person: person, Error: msg, Content: "cfp-proposal", Data: d})
}

// fieldsOf names the fields an operation's message is about: every question it quotes (a submit
// missing several required answers marks each), else the field of the label it starts with.
func fieldsOf(msg string, f *model.CfpForm) []string {
	var out []string
	for _, q := range f.Questions {
		if strings.HasPrefix(msg, q.Label) || strings.Contains(msg, "“"+q.Label+"”") || strings.Contains(msg, `"`+q.Label+`"`) {
			out = append(out, "q_"+q.Key)
		}
	}
	if len(out) > 0 {
		return out
	}
	return []string{fieldOf(msg)}
}

// fieldOf names the field of the label an operation's message starts with.
func fieldOf(msg string) string {
	prefixes := []struct{ prefix, field string }{
		{"Title", "title"}, {"Description", "description"}, {"Language", "language"}, {"Co-speaker", "cospeakers"},
		{"Name at most", "cospeakers"}, {"First name", "first_name"}, {"Last name", "last_name"},
		{"Choose a format", "format"}, {"Choose a level", "level"}, {"Choose tracks", "tracks"},
	}
	for _, p := range prefixes {
		if strings.HasPrefix(msg, p.prefix) {
			return p.field
		}
	}
	return ""
}

// coSpeakersOf reads the co-speakers box: one per line, "Name <address>" or "Name, address".
// The operation checks the addresses; this only splits the lines.
func coSpeakersOf(text string) ([]*model.CoSpeakerInput, string, error) {
	var out []*model.CoSpeakerInput
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var name, addr string
		if a, err := mail.ParseAddress(line); err == nil && !strings.Contains(line, ",") {
			name, addr = a.Name, a.Address
		} else if n, e, ok := strings.Cut(line, ","); ok {
			name, addr = strings.TrimSpace(n), strings.TrimSpace(e)
		} else {
			addr = line
		}
		if strings.TrimSpace(name) == "" {
			return nil, "cospeakers", apperr.Invalid("Co-speaker %d: write each co-speaker on a line as Name <name@example.com>", len(out)+1)
		}
		out = append(out, &model.CoSpeakerInput{Name: name, Email: addr})
	}
	return out, "", nil
}

// newKey is the key of a new proposal's form: submitting the same form twice makes one proposal.
func newKey() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
