package graph

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/schema/cfpform"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
)

// The call for proposals as speakers use it (docs/cfp.md): a signed-in person reads a form,
// writes proposals through it, submits and withdraws them. The same functions serve GraphQL
// (cfp.resolvers.go) and the pages (rest/web/cfp.go).
//
// A speaker belongs to no organization: they are known by their email address, which is (or
// becomes) a contact of the form's event. Each operation therefore finds the form first — by id,
// across organizations — and then runs, in a transaction of its own, in the organization of the
// form's event, touching only the caller's own proposals.

// Limits of a proposal.
const (
	maxProposalTitle = 500
	maxDescription   = 50000
	maxLanguage      = 35
	maxCoSpeakers    = 5
	maxPersonName    = 200
	maxShortAnswer   = 500
	maxLongAnswer    = 10000
	maxProposalKey   = 100
)

var (
	errProposalNotFound = apperr.NotFound("Proposal")
	errNotAPerson       = apperr.Forbidden("Sign in with your email address to write proposals")
)

// CFPPath is the page of a form, where its emails lead.
func CFPPath(formID string) string { return "/cfp/" + formID }

// cfpScope is a form and its event, with the context of their organization acting for a person.
type cfpScope struct {
	ctx    context.Context
	form   *ent.Form
	event  *ent.Event
	person *viewer.Person
}

// scopeForm finds a form by id in any organization and returns the context to act in: the
// organization of its event, the person as the viewer, outside any transaction of the caller.
func (r *Resolver) scopeForm(ctx context.Context, p *viewer.Person, formID string) (*cfpScope, error) {
	if !pid.Plausible(formID) {
		return nil, errFormNotFound
	}
	ctx = dbx.Detach(ctx)
	sys := viewer.System(ctx, "cfp: find a call-for-proposals form by the id in its public page's address")
	f, err := r.Client.Form.Query().Where(form.ID(formID)).WithEvent().Only(sys)
	if ent.IsNotFound(err) {
		return nil, errFormNotFound
	}
	if err != nil {
		return nil, err
	}
	ctx = viewer.NewContext(ctx, &viewer.Viewer{OrganizationID: f.OrganizationID, Person: p})
	return &cfpScope{ctx: ctx, form: f, event: f.Edges.Event, person: p}, nil
}

// PublicForm is a form as its public page shows it, to anyone.
func (r *Resolver) PublicForm(ctx context.Context, formID string) (*CfpForm, error) {
	f, _, err := r.PublicFormEvent(ctx, formID)
	return f, err
}

// PublicFormEvent is PublicForm with the form's event, whose theme and logo its pages wear.
func (r *Resolver) PublicFormEvent(ctx context.Context, formID string) (*CfpForm, *ent.Event, error) {
	s, err := r.scopeForm(ctx, nil, formID)
	if err != nil {
		return nil, nil, err
	}
	f, err := formView(s.ctx, r.Client, s.event, s.form, time.Now())
	return f, s.event, err
}

// OwnProposals lists the person's proposals in the form's event — submitted by them or naming
// them as co-speaker — newest first.
func (r *Resolver) OwnProposals(ctx context.Context, p *viewer.Person, formID string) ([]*Proposal, error) {
	if p == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, p, formID)
	if err != nil {
		return nil, err
	}
	me, err := s.me(r.Client)
	if err != nil || me == nil {
		return []*Proposal{}, err
	}
	subs, err := r.Client.Submission.Query().
		Where(submission.EventID(s.event.ID), submission.SourceFormIDNotNil(),
			submission.Or(submission.SubmitterContactID(me.ID),
				submission.HasParticipantsWith(submissionparticipant.ContactID(me.ID)))).
		Order(ent.Desc(submission.FieldCreatedAt), ent.Desc(submission.FieldID)).All(s.ctx)
	if err != nil {
		return nil, err
	}
	return r.proposalViews(s.ctx, r.Client, me, subs)
}

// me is the person's contact in the form's event, or nil.
func (s *cfpScope) me(c *ent.Client) (*ent.Contact, error) {
	ct, err := c.Contact.Query().Where(contact.EventID(s.event.ID), contact.EmailEqualFold(s.person.Email)).
		Order(ent.Asc(contact.FieldCreatedAt)).First(s.ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return ct, err
}

// proposal is a checked ProposalInput.
type proposal struct {
	key                      *string
	title, description, lang string
	formatID, levelID        *string
	trackIDs                 []string
	coSpeakers               []coSpeaker
	answers                  map[string]any
	firstName, lastName      string
	missingRequired          []string
}

type coSpeaker struct{ first, last, email string }

// checkProposal checks what the person typed, before any database work. Required questions are
// collected, not refused: a draft may leave them empty; submitting may not.
func checkProposal(f *ent.Form, person *viewer.Person, in ProposalInput) (*proposal, error) {
	p := &proposal{title: strings.TrimSpace(in.Title), lang: "en", answers: map[string]any{}}
	if err := checkLine("Title", p.title, maxProposalTitle, true); err != nil {
		return nil, err
	}
	if in.Key != nil && *in.Key != "" {
		if err := checkLine("Proposal key", *in.Key, maxProposalKey, false); err != nil {
			return nil, err
		}
		p.key = in.Key
	}
	if in.Description != nil {
		p.description = strings.TrimSpace(*in.Description)
		if err := checkText("Description", p.description, maxDescription); err != nil {
			return nil, err
		}
	}
	if in.Language != nil && strings.TrimSpace(*in.Language) != "" {
		p.lang = strings.TrimSpace(*in.Language)
		if err := checkLine("Language", p.lang, maxLanguage, true); err != nil {
			return nil, err
		}
	}
	for _, n := range []struct {
		label string
		in    *string
		out   *string
	}{{"First name", in.FirstName, &p.firstName}, {"Last name", in.LastName, &p.lastName}} {
		if n.in != nil {
			*n.out = strings.TrimSpace(*n.in)
			if err := checkLine(n.label, *n.out, maxPersonName, false); err != nil {
				return nil, err
			}
		}
	}
	p.formatID, p.levelID = emptyNil(in.FormatID), emptyNil(in.LevelID)
	p.trackIDs = unique(in.TrackIds)
	if len(in.CoSpeakers) > maxCoSpeakers {
		return nil, apperr.Invalid("Name at most %d co-speakers", maxCoSpeakers)
	}
	for i, cs := range in.CoSpeakers {
		c, err := checkCoSpeaker(i+1, cs)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(c.email, person.Email) {
			return nil, apperr.Invalid("Co-speaker %d is you: name only the others", i+1)
		}
		if slices.ContainsFunc(p.coSpeakers, func(o coSpeaker) bool { return o.email == c.email }) {
			return nil, apperr.Invalid("Co-speaker %d is named twice", i+1)
		}
		p.coSpeakers = append(p.coSpeakers, c)
	}
	return p, checkReplies(f.Questions, in.Answers, p)
}

// checkCoSpeaker checks the n-th co-speaker: a name and one plain address.
func checkCoSpeaker(n int, in *CoSpeakerInput) (coSpeaker, error) {
	name := strings.TrimSpace(in.Name)
	if err := checkLine(fmt.Sprintf("Co-speaker %d's name", n), name, maxPersonName, true); err != nil {
		return coSpeaker{}, err
	}
	addr := strings.ToLower(strings.TrimSpace(in.Email))
	parsed, err := mail.ParseAddress(addr)
	if err != nil || parsed.Address != addr || parsed.Name != "" || len(addr) > 320 || !strings.Contains(addr, ".") {
		return coSpeaker{}, apperr.Invalid("Co-speaker %d's email address is not valid: write it as name@example.com", n)
	}
	first, last, _ := strings.Cut(name, " ")
	last = strings.TrimSpace(last)
	if last == "" {
		last = "-"
	}
	return coSpeaker{first: first, last: last, email: addr}, nil
}

// checkReplies checks replies against the form's questions: known keys, strings, a choice among
// its options, within length.
func checkReplies(qs []cfpform.Question, in map[string]any, p *proposal) error {
	for k := range in {
		if !slices.ContainsFunc(qs, func(q cfpform.Question) bool { return q.Key == k }) {
			return apperr.Invalid("This form has no question %q", k)
		}
	}
	for _, q := range qs {
		raw, ok := in[q.Key]
		if !ok || raw == nil {
			if q.Required {
				p.missingRequired = append(p.missingRequired, q.Label)
			}
			continue
		}
		v, ok := raw.(string)
		if !ok {
			return apperr.Invalid("Answer %q with text", q.Label)
		}
		v = strings.TrimSpace(v)
		switch q.Kind {
		case cfpform.LongText:
			if err := checkText(q.Label, v, maxLongAnswer); err != nil {
				return err
			}
		default:
			if err := checkLine(q.Label, v, maxShortAnswer, false); err != nil {
				return err
			}
		}
		if q.Kind == cfpform.Choice && v != "" && !slices.Contains(q.Options, v) {
			return apperr.New(400, apperr.CodeDropdownValueNotInOptions, fmt.Sprintf("Choose one of the options of %q", q.Label))
		}
		if v == "" {
			if q.Required {
				p.missingRequired = append(p.missingRequired, q.Label)
			}
			continue
		}
		p.answers[q.Key] = v
	}
	return nil
}

func emptyNil(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

// SaveOwnProposal creates a draft (id nil) or updates one of the person's proposals, and submits it
// when submit is set. The form must take proposals (form_closed); a new draft must stay within
// the form's limit of proposals per submitter, counting every status (submission_limit_reached).
// A new proposal with the key of one the person already made is that proposal: a double submit
// makes one.
func (r *Resolver) SaveOwnProposal(ctx context.Context, person *viewer.Person, formID string, id *string, in ProposalInput, submit bool) (*Proposal, error) {
	if person == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, person, formID)
	if err != nil {
		return nil, err
	}
	p, err := checkProposal(s.form, person, in)
	if err != nil {
		return nil, err
	}
	var out *Proposal
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.client(ctx)
		// One person's proposals in one event are written one at a time: the limit, the key and
		// the contact are read and written without a race.
		if _, err := r.sql(ctx).Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
			"cfp:"+s.event.ID+":"+strings.ToLower(person.Email)); err != nil {
			return err
		}
		// The form again, locked: a form closed since the page was read refuses the change.
		f, err := c.Form.Query().Where(form.ID(s.form.ID)).ForShare().Only(ctx)
		if err != nil {
			return err
		}
		now := time.Now()
		if err := checkFormOpen(f, now); err != nil {
			return err
		}
		if err := checkOffered(ctx, c, s.event.ID, f, p); err != nil {
			return err
		}
		me, err := r.submitterContact(ctx, c, s, p)
		if err != nil {
			return err
		}
		sub, created, err := r.proposalToSave(ctx, c, s, f, me, id, p)
		if err != nil {
			return err
		}
		// Checked after the form and the limit, which say more: a missing answer is refused, and
		// the draft just made with it rolls back.
		if submit && len(p.missingRequired) > 0 {
			return apperr.Invalid("Answer %s before submitting", strings.Join(quoted(p.missingRequired), ", "))
		}
		if !created {
			if sub.Status != submission.StatusDraft && sub.Status != submission.StatusPending {
				return apperr.Invalid("This proposal is %s and can no longer be changed", sub.Status)
			}
			u := sub.Update().SetTitle(p.title).SetDescription(p.description).SetLanguage(p.lang).
				ClearTracks().AddTrackIDs(p.trackIDs...).SetAnswers(p.answers)
			if p.formatID == nil {
				u.ClearFormatID()
			} else {
				u.SetFormatID(*p.formatID)
			}
			if p.levelID == nil {
				u.ClearLevelID()
			} else {
				u.SetLevelID(*p.levelID)
			}
			if sub, err = u.Save(ctx); err != nil {
				return err
			}
		}
		if err := r.setProposalSpeakers(ctx, c, s, sub, me, p.coSpeakers, sub.SubmitterContactID != nil && *sub.SubmitterContactID == me.ID); err != nil {
			return err
		}
		if submit && sub.Status == submission.StatusDraft {
			if sub, err = r.submitProposal(ctx, c, s, sub, me, now); err != nil {
				return err
			}
		}
		views, err := r.proposalViews(ctx, c, me, []*ent.Submission{sub})
		if err != nil {
			return err
		}
		out = views[0]
		return nil
	})
	return out, err
}

func quoted(ss []string) []string {
	return mapAll(ss, func(s string) string { return "“" + s + "”" })
}

// checkOffered checks the format, level and tracks: the event's, and offered by the form.
func checkOffered(ctx context.Context, c *ent.Client, eventID string, f *ent.Form, p *proposal) error {
	view, err := formView(ctx, c, &ent.Event{ID: eventID}, f, time.Now())
	if err != nil {
		return err
	}
	has := func(opts []*CfpOption, id string) bool {
		return slices.ContainsFunc(opts, func(o *CfpOption) bool { return o.ID == id })
	}
	if p.formatID != nil && !has(view.Formats, *p.formatID) {
		return apperr.Invalid("Choose a format this form offers")
	}
	if p.levelID != nil && !has(view.Levels, *p.levelID) {
		return apperr.Invalid("Choose a level this form offers")
	}
	for _, t := range p.trackIDs {
		if !has(view.Tracks, t) {
			return apperr.Invalid("Choose tracks this form offers")
		}
	}
	return nil
}

// submitterContact is the person's contact in the event, created (a speaker) on their first
// proposal, named as they typed or else after their user.
func (r *Resolver) submitterContact(ctx context.Context, c *ent.Client, s *cfpScope, p *proposal) (*ent.Contact, error) {
	me, err := s.me(c)
	if err != nil || me != nil {
		return me, err
	}
	first, last := p.firstName, p.lastName
	if first == "" {
		first, last, _ = strings.Cut(strings.TrimSpace(s.person.Name), " ")
	}
	if first == "" || strings.Contains(first, "@") {
		first, _, _ = strings.Cut(s.person.Email, "@")
	}
	if strings.TrimSpace(last) == "" {
		last = "-"
	}
	return c.Contact.Create().SetEventID(s.event.ID).SetEmail(strings.ToLower(s.person.Email)).
		SetFirstName(first).SetLastName(strings.TrimSpace(last)).Save(ctx)
}

// proposalToSave finds the proposal to update — by id, or by key for a repeated new one — or
// creates a draft within the limit. created says a new draft was made from p.
func (r *Resolver) proposalToSave(ctx context.Context, c *ent.Client, s *cfpScope, f *ent.Form, me *ent.Contact, id *string, p *proposal) (*ent.Submission, bool, error) {
	if id != nil && *id != "" {
		sub, err := r.ownProposal(ctx, c, s, me, *id)
		return sub, false, err
	}
	if p.key != nil {
		sub, err := c.Submission.Query().Where(submission.EventID(s.event.ID), submission.ProposalKey(*p.key),
			submission.SubmitterContactID(me.ID), submission.SourceFormID(f.ID)).ForUpdate().Only(ctx)
		if err == nil {
			return sub, false, nil
		}
		if !ent.IsNotFound(err) {
			return nil, false, err
		}
	}
	n, err := c.Submission.Query().Where(submission.SourceFormID(f.ID), submission.SubmitterContactID(me.ID)).Count(ctx)
	if err != nil {
		return nil, false, err
	}
	if limit := formLimit(f, s.event); n >= limit {
		return nil, false, apperr.Conflict(apperr.CodeSubmissionLimitReached,
			fmt.Sprintf("You have reached the limit of %d proposals for this form", limit))
	}
	num, err := nextNumber(ctx, c, s.event.ID)
	if err != nil {
		return nil, false, err
	}
	sub, err := c.Submission.Create().SetEventID(s.event.ID).SetNumber(num).SetCode(sessionCode(num)).
		SetStatus(submission.StatusDraft).SetSourceFormID(f.ID).SetSubmitterContactID(me.ID).
		SetTitle(p.title).SetDescription(p.description).SetLanguage(p.lang).SetNillableFormatID(p.formatID).
		SetNillableLevelID(p.levelID).AddTrackIDs(p.trackIDs...).SetAnswers(p.answers).
		SetNillableProposalKey(p.key).Save(ctx)
	return sub, true, err
}

// ownProposal loads, locked, a proposal of the form's event that came through a form and names
// the person as submitter or speaker; anything else is not found.
func (r *Resolver) ownProposal(ctx context.Context, c *ent.Client, s *cfpScope, me *ent.Contact, id string) (*ent.Submission, error) {
	if !pid.Plausible(id) || me == nil {
		return nil, errProposalNotFound
	}
	sub, err := c.Submission.Query().Where(submission.ID(id), submission.EventID(s.event.ID),
		submission.SourceFormID(s.form.ID),
		submission.Or(submission.SubmitterContactID(me.ID),
			submission.HasParticipantsWith(submissionparticipant.ContactID(me.ID)))).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errProposalNotFound
	}
	return sub, err
}

// setProposalSpeakers makes the speakers the submitter then the co-speakers, creating contacts
// for new addresses, and emails each co-speaker newly named. A co-speaker editing the proposal
// leaves the list as it is.
func (r *Resolver) setProposalSpeakers(ctx context.Context, c *ent.Client, s *cfpScope, sub *ent.Submission, me *ent.Contact, cos []coSpeaker, isSubmitter bool) error {
	if !isSubmitter {
		return nil
	}
	before, err := c.SubmissionParticipant.Query().Where(submissionparticipant.SubmissionID(sub.ID)).
		Select(submissionparticipant.FieldContactID).Strings(ctx)
	if err != nil {
		return err
	}
	ids := []string{me.ID}
	var named []*ent.Contact
	for _, cs := range cos {
		ct, err := c.Contact.Query().Where(contact.EventID(s.event.ID), contact.EmailEqualFold(cs.email)).
			Order(ent.Asc(contact.FieldCreatedAt)).First(ctx)
		if ent.IsNotFound(err) {
			ct, err = c.Contact.Create().SetEventID(s.event.ID).SetEmail(cs.email).SetFirstName(cs.first).
				SetLastName(cs.last).Save(ctx)
		}
		if err != nil {
			return err
		}
		ids = append(ids, ct.ID)
		if !slices.Contains(before, ct.ID) {
			named = append(named, ct)
		}
	}
	if slices.Equal(before, ids) {
		return nil
	}
	if err := setParticipants(ctx, c, sub.ID, ids, false); err != nil {
		return err
	}
	emails := make([]email.Email, len(named))
	for i, ct := range named {
		emails[i] = email.Email{EventID: s.event.ID, ContactID: new(ct.ID), SubmissionID: new(sub.ID),
			Type: emaillog.TypeCustom, To: ct.Email, Template: email.CFPCoSpeaker,
			Data: email.Data{EventName: s.event.Name, FirstName: ct.FirstName, Path: CFPPath(s.form.ID),
				SessionTitle: sub.Title, Message: fullName(me.FirstName, me.LastName)}}
	}
	_, err = r.Outbox.Queue(ctx, emails...)
	return err
}

// submitProposal submits a draft: pending, submittedAt, a line in its timeline, the webhook and
// the confirmation email to the submitter.
func (r *Resolver) submitProposal(ctx context.Context, c *ent.Client, s *cfpScope, sub *ent.Submission, me *ent.Contact, now time.Time) (*ent.Submission, error) {
	sub, err := sub.Update().SetStatus(submission.StatusPending).SetSubmittedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := record(ctx, c, timelineentry.KindSubmitted, "Submitted", nil, sub.ID); err != nil {
		return nil, err
	}
	if err := r.emit(ctx, hookSubmissionSubmitted, hookData{"eventId": s.event.ID, "submissionId": sub.ID, "title": sub.Title}); err != nil {
		return nil, err
	}
	_, err = r.Outbox.Queue(ctx, email.Email{EventID: s.event.ID, ContactID: new(me.ID), SubmissionID: new(sub.ID),
		Type: emaillog.TypeConfirmation, To: me.Email, Template: email.CFPSubmitted,
		Data: email.Data{EventName: s.event.Name, FirstName: me.FirstName, Path: CFPPath(s.form.ID), SessionTitle: sub.Title}})
	return sub, err
}

// WithdrawOwnProposal withdraws one of the person's proposals while it is a draft, pending or
// maybe; a withdrawn one stays withdrawn.
func (r *Resolver) WithdrawOwnProposal(ctx context.Context, person *viewer.Person, formID, id string) (*Proposal, error) {
	if person == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, person, formID)
	if err != nil {
		return nil, err
	}
	var out *Proposal
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.client(ctx)
		me, err := s.me(c)
		if err != nil {
			return err
		}
		sub, err := r.ownProposal(ctx, c, s, me, id)
		if err != nil {
			return err
		}
		switch sub.Status {
		case submission.StatusDraft, submission.StatusPending, submission.StatusMaybe:
			from := sub.Status
			if sub, err = sub.Update().SetStatus(submission.StatusWithdrawn).Save(ctx); err != nil {
				return err
			}
			if err := record(ctx, c, timelineentry.KindStatusChanged, "Withdrawn by the speaker", new("was "+string(from)), sub.ID); err != nil {
				return err
			}
			if from != submission.StatusDraft {
				if err := r.tellOrganizers(ctx, sub.EventID, email.ProposalWithdrawn,
					email.Data{Message: fullName(me.FirstName, me.LastName), SessionTitle: sub.Title}); err != nil {
					return err
				}
			}
		case submission.StatusWithdrawn:
		default:
			return apperr.Invalid("This proposal is %s and can no longer be withdrawn", sub.Status)
		}
		views, err := r.proposalViews(ctx, c, me, []*ent.Submission{sub})
		if err != nil {
			return err
		}
		out = views[0]
		return nil
	})
	return out, err
}

// proposalViews shows submissions as their speakers see them.
func (r *Resolver) proposalViews(ctx context.Context, c *ent.Client, me *ent.Contact, subs []*ent.Submission) ([]*Proposal, error) {
	if len(subs) == 0 {
		return []*Proposal{}, nil
	}
	ids := mapAll(subs, func(s *ent.Submission) string { return s.ID })
	people, err := participants(ctx, c, ids...)
	if err != nil {
		return nil, err
	}
	withTracks, err := c.Submission.Query().Where(submission.IDIn(ids...)).WithTracks().WithSourceForm().All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*ent.Submission{}
	for _, s := range withTracks {
		byID[s.ID] = s
	}
	now := time.Now()
	out := make([]*Proposal, len(subs))
	for i, s := range subs {
		full := byID[s.ID]
		p := &Proposal{ID: s.ID, FormID: *s.SourceFormID, EventID: s.EventID, Code: s.Code, Status: SubmissionStatus(s.Status),
			Title: s.Title, Description: s.Description, FormatID: s.FormatID, LevelID: s.LevelID, Language: s.Language,
			Answers: s.Answers, Speakers: []*ProposalSpeaker{}, TrackIds: []string{},
			Mine: s.SubmitterContactID != nil && *s.SubmitterContactID == me.ID, SubmittedAt: s.SubmittedAt, CreatedAt: s.CreatedAt}
		if full != nil {
			p.TrackIds = mapAll(full.Edges.Tracks, func(t *ent.Track) string { return t.ID })
			p.Editable = full.Edges.SourceForm != nil && formAccepting(full.Edges.SourceForm, now) &&
				(s.Status == submission.StatusDraft || s.Status == submission.StatusPending)
		}
		for _, sp := range people[s.ID] {
			p.Speakers = append(p.Speakers, &ProposalSpeaker{Name: fullName(sp.FirstName, strings.Trim(sp.LastName, "-")),
				Email: sp.Email, Submitter: s.SubmitterContactID != nil && *s.SubmitterContactID == sp.ContactID})
		}
		out[i] = p
	}
	return out, nil
}

// personOf is the signed-in person of ctx, or nil for an API key.
func personOf(ctx context.Context) *viewer.Person {
	if v := viewer.FromContext(ctx); v != nil {
		return v.Person
	}
	return nil
}
