package operation

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/cfpform"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/access/mailbudget"
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
func (r *Service) scopeForm(ctx context.Context, p *viewer.Person, formID string) (*cfpScope, error) {
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
func (r *Service) PublicForm(ctx context.Context, formID string) (*model.CfpForm, error) {
	f, _, err := r.PublicFormEvent(ctx, formID)
	return f, err
}

// PublicFormEvent is PublicForm with the form's event, whose theme and logo its pages wear.
func (r *Service) PublicFormEvent(ctx context.Context, formID string) (*model.CfpForm, *ent.Event, error) {
	s, err := r.scopeForm(ctx, nil, formID)
	if err != nil {
		return nil, nil, err
	}
	f, err := formView(s.ctx, r.Client, s.event, s.form, time.Now())
	if err != nil {
		return nil, nil, err
	}
	// s.ctx is scoped to the form's organization whoever asks: the caller's own viewer tells
	// whether they organize it.
	f.InternalName = internalName(ctx, s.form)
	return f, s.event, nil
}

// OwnProposals lists the person's proposals of the form — submitted by them or naming them as
// co-speaker — newest first. Each form has its own list and limit: another form's proposals are
// on that form's page.
func (r *Service) OwnProposals(ctx context.Context, p *viewer.Person, formID string) ([]*model.Proposal, error) {
	if p == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, p, formID)
	if err != nil {
		return nil, err
	}
	me, err := s.me(r.Client)
	if err != nil || me == nil {
		return []*model.Proposal{}, err
	}
	subs, err := r.Client.Submission.Query().
		Where(submission.EventID(s.event.ID), submission.SourceFormID(s.form.ID),
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

type coSpeaker struct{ name, email string }

// checkProposal checks what the person typed, before any database work. Required questions are
// collected, not refused: a draft may leave them empty; submitting may not.
func checkProposal(f *ent.Form, person *viewer.Person, in model.ProposalInput) (*proposal, error) {
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
func checkCoSpeaker(n int, in *model.CoSpeakerInput) (coSpeaker, error) {
	name := strings.TrimSpace(in.Name)
	if err := checkLine(fmt.Sprintf("Co-speaker %d's name", n), name, maxPersonName, true); err != nil {
		return coSpeaker{}, err
	}
	addr := strings.ToLower(strings.TrimSpace(in.Email))
	parsed, err := mail.ParseAddress(addr)
	if err != nil || parsed.Address != addr || parsed.Name != "" || len(addr) > 320 || !strings.Contains(addr, ".") {
		return coSpeaker{}, apperr.Invalid("Co-speaker %d's email address is not valid: write it as name@example.com", n)
	}
	return coSpeaker{name: name, email: addr}, nil
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
func (r *Service) SaveOwnProposal(ctx context.Context, person *viewer.Person, formID string, id *string, in model.ProposalInput, submit bool) (*model.Proposal, error) {
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
	var out *model.Proposal
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
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
		if err := checkFormOpen(s.event, f, now); err != nil {
			return err
		}
		if err := checkOffered(ctx, c, s.event.ID, f, p); err != nil {
			return err
		}
		// An update needs a proposal of the person's, so a contact of theirs; only a new proposal
		// makes one.
		me, err := s.me(c)
		if err == nil && me == nil && id != nil && *id != "" {
			err = errProposalNotFound
		}
		if err == nil && me == nil {
			me, err = r.submitterContact(ctx, c, s, p)
		}
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
		if sub, err = r.setProposalSpeakers(ctx, c, s, sub, me, p.coSpeakers, sub.SubmitterContactID != nil && *sub.SubmitterContactID == me.ID); err != nil {
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
	has := func(opts []*model.CfpOption, id string) bool {
		return slices.ContainsFunc(opts, func(o *model.CfpOption) bool { return o.ID == id })
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

// submitterContact creates the person's contact in the event (a submitter: a speaker once a
// submission of theirs is accepted, see speakerhood.go) on their first
// proposal, named as they typed or else after their user; without a name it is refused.
func (r *Service) submitterContact(ctx context.Context, c *ent.Client, s *cfpScope, p *proposal) (*ent.Contact, error) {
	first, last := p.firstName, p.lastName
	if first == "" {
		first, last, _ = strings.Cut(strings.TrimSpace(s.person.Name), " ")
	}
	// The event greets and, once accepted, publishes speakers by this name: never a made-up one
	// such as the address's local part.
	if first == "" || strings.Contains(first, "@") {
		return nil, apperr.Invalid("First name must not be empty: write your name as the event should show it")
	}
	if strings.TrimSpace(last) == "" {
		last = "-"
	}
	return c.Contact.Create().SetEventID(s.event.ID).SetEmail(strings.ToLower(s.person.Email)).
		SetFirstName(first).SetLastName(strings.TrimSpace(last)).SetParticipation(contact.ParticipationSubmitter).Save(ctx)
}

// proposalToSave finds the proposal to update — by id, or by key for a repeated new one — or
// creates a draft within the limit. created says a new draft was made from p.
func (r *Service) proposalToSave(ctx context.Context, c *ent.Client, s *cfpScope, f *ent.Form, me *ent.Contact, id *string, p *proposal) (*ent.Submission, bool, error) {
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
	n, err := c.Submission.Query().Where(submission.SourceFormID(f.ID), submission.SubmitterContactID(me.ID),
		countsAgainstLimit()).Count(ctx)
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

// countsAgainstLimit selects the proposals a form's limit counts: every one but a draft withdrawn
// before it was ever submitted, which nobody read.
func countsAgainstLimit() predicate.Submission {
	return submission.Not(submission.And(submission.StatusEQ(submission.StatusWithdrawn), submission.SubmittedAtIsNil()))
}

// CountsAgainstLimit says whether p counts against its form's limit (countsAgainstLimit).
func CountsAgainstLimit(p *model.Proposal) bool {
	return p.Mine && (p.Status != model.SubmissionStatusWithdrawn || p.SubmittedAt != nil)
}

// ownProposal loads, locked, a proposal of the form's event that came through a form and names
// the person as submitter or speaker; anything else is not found.
func (r *Service) ownProposal(ctx context.Context, c *ent.Client, s *cfpScope, me *ent.Contact, id string) (*ent.Submission, error) {
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

// setProposalSpeakers sets the co-speakers the submitter names (docs/cfp.md). Naming someone
// makes them no speaker and no contact of the event: a speaker already on the proposal stays, an
// address already invited keeps its invitation (a declined one stays declined and is not emailed
// again), and a new address is invited by email, charged first to the submitter's daily email
// budget — over it, the save is refused and, the transaction rolling back, nothing is written. A
// speaker or invitation left out is removed, and a contact that accepting made goes with it when
// nothing else holds it. A co-speaker saving leaves the list as it is.
func (r *Service) setProposalSpeakers(ctx context.Context, c *ent.Client, s *cfpScope, sub *ent.Submission, me *ent.Contact, cos []coSpeaker, isSubmitter bool) (*ent.Submission, error) {
	if !isSubmitter {
		return sub, nil
	}
	people, err := participants(ctx, c, sub.ID)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, cs := range cos {
		named[cs.email] = true
	}
	before, keep := []string{}, []string{me.ID}
	speaking := map[string]bool{}
	var dropped []speaker
	for _, sp := range people[sub.ID] {
		before = append(before, sp.ContactID)
		switch addr := strings.ToLower(sp.Email); {
		case sp.ContactID == me.ID:
		case named[addr]:
			keep, speaking[addr] = append(keep, sp.ContactID), true
		default:
			dropped = append(dropped, sp)
		}
	}
	var invs, fresh []cfpform.Invitation
	for _, v := range sub.CoSpeakerInvitations {
		if v.Status == cfpform.Accepted && speaking[v.Email] {
			invs = append(invs, v)
		}
	}
	for _, cs := range cos {
		if speaking[cs.email] {
			continue
		}
		if i := slices.IndexFunc(sub.CoSpeakerInvitations, func(v cfpform.Invitation) bool {
			return v.Email == cs.email && v.Status != cfpform.Accepted
		}); i >= 0 {
			invs = append(invs, sub.CoSpeakerInvitations[i])
			continue
		}
		inv := cfpform.Invitation{Email: cs.email, Name: cs.name, Status: cfpform.Invited}
		invs, fresh = append(invs, inv), append(fresh, inv)
	}
	if err := r.chargeInvitations(ctx, s.person.Email, len(fresh)); err != nil {
		return nil, err
	}
	if !slices.Equal(before, keep) {
		if err := setParticipants(ctx, c, sub.ID, keep, false); err != nil {
			return nil, err
		}
	}
	for _, sp := range dropped {
		if err := dropMadeContact(ctx, c, sub, sp.ContactID, strings.ToLower(sp.Email)); err != nil {
			return nil, err
		}
	}
	if invs == nil {
		invs = []cfpform.Invitation{}
	}
	if !slices.Equal(invs, sub.CoSpeakerInvitations) {
		if sub, err = sub.Update().SetCoSpeakerInvitations(invs).Save(ctx); err != nil {
			return nil, err
		}
	}
	emails := make([]email.Email, len(fresh))
	for i, inv := range fresh {
		emails[i] = email.Email{EventID: s.event.ID, SubmissionID: new(sub.ID), Type: emaillog.TypeCustom, To: inv.Email,
			Template: email.CFPCoSpeaker, Data: email.Data{EventName: s.event.Name, Path: CFPInvitationPath(s.form.ID, sub.ID),
				SessionTitle: sub.Title, Message: proposalName(me.FirstName, me.LastName)}}
	}
	_, err = r.Outbox.Queue(ctx, emails...)
	return sub, err
}

// chargeInvitations draws n co-speaker invitations from the daily email budget of the person of
// addr (docs/people.md), or refuses with rate_limited in words about invitations.
func (r *Service) chargeInvitations(ctx context.Context, addr string, n int) error {
	err := r.budgets().ChargePerson(ctx, addr, n)
	if err == nil {
		return nil
	}
	if _, ok := apperr.As(err); !ok {
		return err
	}
	return apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited, fmt.Sprintf(
		"You have sent too many emails today to invite %d more co-speaker(s): try again in %s. Nothing was saved.",
		n, mailbudget.Wait(time.Duration(mailbudget.RetryAfter(err))*time.Second)))
}

// dropMadeContact removes the contact of a speaker taken off sub when accepting sub's invitation
// made it, and nothing else holds it (no other proposal names or was submitted by it): they are
// no speaker of the event any more.
func dropMadeContact(ctx context.Context, c *ent.Client, sub *ent.Submission, contactID, addr string) error {
	if !slices.ContainsFunc(sub.CoSpeakerInvitations, func(v cfpform.Invitation) bool { return v.Email == addr && v.ContactCreated }) {
		return nil
	}
	held, err := c.SubmissionParticipant.Query().Where(submissionparticipant.ContactID(contactID),
		submissionparticipant.SubmissionIDNEQ(sub.ID)).Exist(ctx)
	if err != nil || held {
		return err
	}
	if held, err = c.Submission.Query().Where(submission.SubmitterContactID(contactID)).Exist(ctx); err != nil || held {
		return err
	}
	return c.Contact.DeleteOneID(contactID).Exec(ctx)
}

// CFPInvitationPath is the page where a person invited as co-speaker of a proposal accepts or
// declines.
func CFPInvitationPath(formID, proposalID string) string {
	return "/cfp/" + formID + "/invitations/" + proposalID
}

var errInvitationNotFound = apperr.NotFound("Invitation")

// invitedTo selects proposals inviting the address addr (lower-case) as co-speaker.
func invitedTo(addr string) predicate.Submission {
	raw, _ := json.Marshal([]map[string]string{{"email": addr}})
	return predicate.Submission(func(s *entsql.Selector) {
		s.Where(entsql.P(func(b *entsql.Builder) {
			b.Ident(s.C(submission.FieldCoSpeakerInvitations)).WriteString(" @> ").Arg(string(raw)).WriteString("::jsonb")
		}))
	})
}

// OwnInvitations lists the person's invitations to be a co-speaker of proposals of the form,
// newest first.
func (r *Service) OwnInvitations(ctx context.Context, p *viewer.Person, formID string) ([]*model.ProposalInvitation, error) {
	if p == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, p, formID)
	if err != nil {
		return nil, err
	}
	addr := strings.ToLower(p.Email)
	subs, err := r.Client.Submission.Query().Where(submission.EventID(s.event.ID), submission.SourceFormID(s.form.ID),
		invitedTo(addr)).WithSubmitter().Order(ent.Desc(submission.FieldCreatedAt), ent.Desc(submission.FieldID)).All(s.ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*model.ProposalInvitation, 0, len(subs))
	for _, sub := range subs {
		if v := invitationView(sub, addr); v != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// invitationView is the invitation of addr to sub as the person invited sees it, or nil.
func invitationView(sub *ent.Submission, addr string) *model.ProposalInvitation {
	i := slices.IndexFunc(sub.CoSpeakerInvitations, func(v cfpform.Invitation) bool { return v.Email == addr })
	if i < 0 {
		return nil
	}
	by := ""
	if ct := sub.Edges.Submitter; ct != nil {
		by = proposalName(ct.FirstName, ct.LastName)
	}
	return &model.ProposalInvitation{ProposalID: sub.ID, FormID: *sub.SourceFormID, Title: sub.Title, InvitedBy: by,
		Status: sub.CoSpeakerInvitations[i].Status}
}

// AnswerOwnInvitation accepts or declines the person's invitation to be a co-speaker of the
// proposal id. Accepting makes them a speaker of it, after the others, and a contact of the
// event when it does not know them; declining takes them off it again. A withdrawn or declined
// proposal takes no new speakers.
func (r *Service) AnswerOwnInvitation(ctx context.Context, person *viewer.Person, formID, id string, accept bool) (*model.ProposalInvitation, error) {
	if person == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, person, formID)
	if err != nil {
		return nil, err
	}
	if !pid.Plausible(id) {
		return nil, errInvitationNotFound
	}
	addr := strings.ToLower(person.Email)
	var out *model.ProposalInvitation
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		sub, err := c.Submission.Query().Where(submission.ID(id), submission.EventID(s.event.ID),
			submission.SourceFormID(s.form.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return errInvitationNotFound
		}
		if err != nil {
			return err
		}
		invs := slices.Clone(sub.CoSpeakerInvitations)
		i := slices.IndexFunc(invs, func(v cfpform.Invitation) bool { return v.Email == addr })
		if i < 0 {
			return errInvitationNotFound
		}
		want := cfpform.Declined
		if accept {
			want = cfpform.Accepted
		}
		if invs[i].Status != want {
			if accept {
				if sub.Status == submission.StatusWithdrawn || sub.Status == submission.StatusDeclined {
					return apperr.Invalid("This proposal is %s: it takes no new speakers", sub.Status)
				}
				if invs[i].ContactCreated, err = joinProposal(ctx, c, s, sub, invs[i]); err != nil {
					return err
				}
			} else if invs[i].Status == cfpform.Accepted {
				if err := leaveProposal(ctx, c, sub, addr); err != nil {
					return err
				}
				invs[i].ContactCreated = false
			}
			invs[i].Status = want
			if sub, err = sub.Update().SetCoSpeakerInvitations(invs).Save(ctx); err != nil {
				return err
			}
		}
		if sub.SubmitterContactID != nil {
			if sub.Edges.Submitter, err = c.Contact.Get(ctx, *sub.SubmitterContactID); err != nil {
				return err
			}
		}
		out = invitationView(sub, addr)
		return nil
	})
	return out, err
}

// joinProposal makes the person invited a speaker of sub, after the others, with their contact in
// the event, made from the name the submitter typed when the event does not know them. made
// says it was.
func joinProposal(ctx context.Context, c *ent.Client, s *cfpScope, sub *ent.Submission, inv cfpform.Invitation) (made bool, err error) {
	ct, err := s.me(c)
	if err != nil {
		return false, err
	}
	if ct == nil {
		first, last, _ := strings.Cut(inv.Name, " ")
		if last = strings.TrimSpace(last); last == "" {
			last = "-"
		}
		if ct, err = c.Contact.Create().SetEventID(s.event.ID).SetEmail(inv.Email).SetFirstName(first).
			SetLastName(last).SetParticipation(contact.ParticipationSubmitter).Save(ctx); err != nil {
			return false, err
		}
		made = true
	}
	ids, err := c.SubmissionParticipant.Query().Where(submissionparticipant.SubmissionID(sub.ID)).
		Order(ent.Asc(submissionparticipant.FieldPosition)).Select(submissionparticipant.FieldContactID).Strings(ctx)
	if err != nil || slices.Contains(ids, ct.ID) {
		return made, err
	}
	return made, setParticipants(ctx, c, sub.ID, append(ids, ct.ID), false)
}

// leaveProposal takes the speaker of addr off sub, and the contact accepting made.
func leaveProposal(ctx context.Context, c *ent.Client, sub *ent.Submission, addr string) error {
	people, err := participants(ctx, c, sub.ID)
	if err != nil {
		return err
	}
	var keep []string
	gone := ""
	for _, sp := range people[sub.ID] {
		if strings.EqualFold(sp.Email, addr) && (sub.SubmitterContactID == nil || sp.ContactID != *sub.SubmitterContactID) {
			gone = sp.ContactID
			continue
		}
		keep = append(keep, sp.ContactID)
	}
	if gone == "" {
		return nil
	}
	if err := setParticipants(ctx, c, sub.ID, keep, false); err != nil {
		return err
	}
	return dropMadeContact(ctx, c, sub, gone, addr)
}

// DeleteOwnProposal deletes one of the person's own drafts, never submitted: nobody read it, and
// it counts against no limit.
func (r *Service) DeleteOwnProposal(ctx context.Context, person *viewer.Person, formID, id string) (string, error) {
	if person == nil {
		return "", errNotAPerson
	}
	s, err := r.scopeForm(ctx, person, formID)
	if err != nil {
		return "", err
	}
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		me, err := s.me(c)
		if err != nil {
			return err
		}
		sub, err := r.ownProposal(ctx, c, s, me, id)
		if err != nil {
			return err
		}
		if sub.SubmitterContactID == nil || *sub.SubmitterContactID != me.ID {
			return apperr.Forbidden("Only the speaker who wrote this draft can delete it")
		}
		if sub.SubmittedAt != nil || (sub.Status != submission.StatusDraft && sub.Status != submission.StatusWithdrawn) {
			return apperr.Invalid("Only a draft that was never submitted can be deleted: withdraw this proposal instead")
		}
		return c.Submission.DeleteOneID(sub.ID).Exec(ctx)
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// submitProposal submits a draft: pending, submittedAt, a line in its timeline, the webhook and
// the confirmation email to the submitter.
func (r *Service) submitProposal(ctx context.Context, c *ent.Client, s *cfpScope, sub *ent.Submission, me *ent.Contact, now time.Time) (*ent.Submission, error) {
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
func (r *Service) WithdrawOwnProposal(ctx context.Context, person *viewer.Person, formID, id string) (*model.Proposal, error) {
	if person == nil {
		return nil, errNotAPerson
	}
	s, err := r.scopeForm(ctx, person, formID)
	if err != nil {
		return nil, err
	}
	var out *model.Proposal
	err = r.DB.InTx(s.ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
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
func (r *Service) proposalViews(ctx context.Context, c *ent.Client, me *ent.Contact, subs []*ent.Submission) ([]*model.Proposal, error) {
	if len(subs) == 0 {
		return []*model.Proposal{}, nil
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
	out := make([]*model.Proposal, len(subs))
	for i, s := range subs {
		full := byID[s.ID]
		status := model.SubmissionStatus(s.Status)
		if !announced(s) {
			status = model.SubmissionStatusPending // a decision not yet announced (docs/decisions.md)
		}
		p := &model.Proposal{ID: s.ID, FormID: *s.SourceFormID, EventID: s.EventID, Code: s.Code, Status: status,
			Title: s.Title, Description: s.Description, FormatID: s.FormatID, LevelID: s.LevelID, Language: s.Language,
			Answers: s.Answers, Speakers: []*model.ProposalSpeaker{}, TrackIds: []string{}, Invitations: []*model.CoSpeakerInvitation{},
			Mine: s.SubmitterContactID != nil && *s.SubmitterContactID == me.ID, SubmittedAt: s.SubmittedAt, CreatedAt: s.CreatedAt}
		if full != nil {
			p.TrackIds = mapAll(full.Edges.Tracks, func(t *ent.Track) string { return t.ID })
			p.Editable = full.Edges.SourceForm != nil && formAccepting(full.Edges.SourceForm, now) &&
				(s.Status == submission.StatusDraft || s.Status == submission.StatusPending)
		}
		if p.Mine {
			for _, v := range s.CoSpeakerInvitations {
				if v.Status != cfpform.Accepted {
					p.Invitations = append(p.Invitations, &model.CoSpeakerInvitation{Name: v.Name, Email: v.Email, Status: v.Status})
				}
			}
		}
		for _, sp := range people[s.ID] {
			p.Speakers = append(p.Speakers, &model.ProposalSpeaker{Name: proposalName(sp.FirstName, sp.LastName),
				Email: sp.Email, Submitter: s.SubmitterContactID != nil && *s.SubmitterContactID == sp.ContactID})
		}
		out[i] = p
	}
	return out, nil
}

// PersonOf is the signed-in person of ctx, or nil for an API key.
func PersonOf(ctx context.Context) *viewer.Person {
	if v := viewer.FromContext(ctx); v != nil {
		return v.Person
	}
	return nil
}
