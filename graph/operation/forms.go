package operation

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/level"
	"github.com/podium/podium/ent/schema/cfpform"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// Call-for-proposals forms (docs/cfp.md): organizers create, change and delete them; proposals
// come through them (cfp.go).

var errFormNotFound = apperr.NotFound("Form")

// Limits of a form's settings.
const (
	maxFormTitle      = 200
	maxQuestions      = 30
	maxQuestionLabel  = 500
	maxChoiceOptions  = 50
	maxChoiceOption   = 200
	maxOfferedOptions = 200
)

var questionKey = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// eventsForms answers Event.forms for a page of events: each event's forms, oldest first, in
// four statements whatever the number of events and forms — the forms, then the tracks, formats
// and levels of their events, which each form picks its own from.
func (r *Service) eventsForms(ctx context.Context, evs []*ent.Event) ([][]*model.CfpForm, error) {
	c := r.ClientOf(ctx)
	fs, err := c.Form.Query().Where(form.EventIDIn(eventIDs(evs)...)).
		Order(ent.Asc(form.FieldCreatedAt), ent.Asc(form.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byEvent := group(fs, func(f *ent.Form) string { return f.EventID })
	opts := map[string]*formOptions{}
	if len(fs) > 0 { // an event without forms offers nothing to name
		if opts, err = eventsFormOptions(ctx, c, slices.Collect(maps.Keys(byEvent))); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	out := make([][]*model.CfpForm, len(evs))
	for i, ev := range evs {
		out[i] = make([]*model.CfpForm, len(byEvent[ev.ID]))
		for j, f := range byEvent[ev.ID] {
			out[i][j] = formViewOf(ctx, ev, f, now, opts[ev.ID])
		}
	}
	return out, nil
}

// CreateForm creates a call-for-proposals form: a title, and defaults for what the input leaves
// out.
func (r *Service) CreateForm(ctx context.Context, eventID string, in model.CfpFormInput) (*model.CfpForm, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CfpForm, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if t, _ := in.Title.ValueOK(); t == nil {
			return nil, apperr.Invalid("Form title must not be empty")
		}
		s, err := formSettingsOf(ctx, c, ev.ID, &formSettings{status: form.StatusOpen}, in)
		if err != nil {
			return nil, err
		}
		f, err := c.Form.Create().SetEventID(ev.ID).SetExternalTitle(s.title).SetInternalName(s.internalName).
			SetStatus(s.status).SetNillableOpensAt(s.opensAt).SetNillableCloseDate(s.closesAt).
			SetNillableSubmissionLimit(s.limit).SetTrackIds(s.trackIDs).SetFormatIds(s.formatIDs).
			SetLevelIds(s.levelIDs).SetQuestions(s.questions).Save(ctx)
		if err != nil {
			return nil, err
		}
		return formView(ctx, c, ev, f, time.Now())
	})
}

// UpdateForm changes the settings the input gives and keeps every other one: closing a form
// keeps its questions, limit and tracks.
func (r *Service) UpdateForm(ctx context.Context, eventID, formID string, in model.CfpFormInput) (*model.CfpForm, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CfpForm, error) {
		c := r.ClientOf(ctx)
		ev, f, err := eventForm(ctx, c, eventID, formID)
		if err != nil {
			return nil, err
		}
		s, err := formSettingsOf(ctx, c, ev.ID, settingsOfForm(f), in)
		if err != nil {
			return nil, err
		}
		u := f.Update().SetExternalTitle(s.title).SetInternalName(s.internalName).SetStatus(s.status).
			SetTrackIds(s.trackIDs).SetFormatIds(s.formatIDs).SetLevelIds(s.levelIDs).SetQuestions(s.questions)
		if s.opensAt == nil {
			u.ClearOpensAt()
		} else {
			u.SetOpensAt(*s.opensAt)
		}
		if s.closesAt == nil {
			u.ClearCloseDate()
		} else {
			u.SetCloseDate(*s.closesAt)
		}
		if s.limit == nil {
			u.ClearSubmissionLimit()
		} else {
			u.SetSubmissionLimit(*s.limit)
		}
		if f, err = u.Save(ctx); err != nil {
			return nil, err
		}
		return formView(ctx, c, ev, f, time.Now())
	})
}

// SetFormStatus opens or closes a form and changes nothing else.
func (r *Service) SetFormStatus(ctx context.Context, eventID, formID string, status form.Status) (*model.CfpForm, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CfpForm, error) {
		c := r.ClientOf(ctx)
		ev, f, err := eventForm(ctx, c, eventID, formID)
		if err != nil {
			return nil, err
		}
		if f, err = f.Update().SetStatus(status).Save(ctx); err != nil {
			return nil, err
		}
		return formView(ctx, c, ev, f, time.Now())
	})
}

// eventForm is the event eventID, which the caller may access, and its form formID.
func eventForm(ctx context.Context, c *ent.Client, eventID, formID string) (*ent.Event, *ent.Form, error) {
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, nil, err
	}
	f, err := findForm(ctx, c, ev.ID, formID)
	return ev, f, err
}

// DeleteForm deletes a form without proposals. A form with proposals is refused: its proposals
// would lose their source and read as manual sessions, which can be deleted.
func (r *Service) DeleteForm(ctx context.Context, eventID, formID string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		_, f, err := eventForm(ctx, c, eventID, formID)
		if err != nil {
			return "", err
		}
		n, err := c.Submission.Query().Where(submission.SourceFormID(f.ID)).Count(ctx)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return "", apperr.Conflict(apperr.CodeResourceInUse,
				fmt.Sprintf("This form has %d proposal(s) and cannot be deleted: close it instead", n))
		}
		if err := c.Form.DeleteOneID(f.ID).Exec(ctx); err != nil {
			return "", err
		}
		return f.ID, nil
	})
}

// findForm loads a form of the event, locked for the change.
func findForm(ctx context.Context, c *ent.Client, eventID, id string) (*ent.Form, error) {
	if !pid.Plausible(id) {
		return nil, errFormNotFound
	}
	f, err := c.Form.Query().Where(form.ID(id), form.EventID(eventID)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errFormNotFound
	}
	return f, err
}

// formSettings are a form's checked settings.
type formSettings struct {
	title, internalName           string
	status                        form.Status
	opensAt, closesAt             *time.Time
	limit                         *int
	trackIDs, formatIDs, levelIDs []string
	questions                     []cfpform.Question
}

// settingsOfForm are f's settings as they are, the base of a partial update.
func settingsOfForm(f *ent.Form) *formSettings {
	return &formSettings{title: f.ExternalTitle, internalName: f.InternalName, status: f.Status, opensAt: f.OpensAt,
		closesAt: f.CloseDate, limit: f.SubmissionLimit, trackIDs: f.TrackIds, formatIDs: f.FormatIds,
		levelIDs: f.LevelIds, questions: f.Questions}
}

// formSettingsOf checks the settings in gives and lays them over base: a setting left out keeps
// base's value; a null takes the default.
func formSettingsOf(ctx context.Context, c *ent.Client, eventID string, base *formSettings, in model.CfpFormInput) (*formSettings, error) {
	s := *base
	if t, ok := in.Title.ValueOK(); ok {
		if t == nil {
			return nil, apperr.Invalid("Form title must not be empty")
		}
		s.title = strings.TrimSpace(*t)
		if err := checkLine("Form title", s.title, maxFormTitle, true); err != nil {
			return nil, err
		}
		if base.internalName == "" {
			s.internalName = s.title
		}
	}
	if n, ok := in.InternalName.ValueOK(); ok {
		s.internalName = s.title
		if n != nil {
			s.internalName = strings.TrimSpace(*n)
			if err := checkLine("Form name", s.internalName, maxFormTitle, true); err != nil {
				return nil, err
			}
		}
	}
	if st, ok := in.Status.ValueOK(); ok {
		s.status = form.StatusOpen
		if st != nil {
			s.status = form.Status(*st)
		}
	}
	if v, ok := in.OpensAt.ValueOK(); ok {
		s.opensAt = v
	}
	if v, ok := in.ClosesAt.ValueOK(); ok {
		s.closesAt = v
	}
	if v, ok := in.SubmissionLimit.ValueOK(); ok {
		s.limit = v
	}
	if s.opensAt != nil && s.closesAt != nil && !s.closesAt.After(*s.opensAt) {
		return nil, apperr.Invalid("closesAt must be after opensAt")
	}
	if s.limit != nil && *s.limit < 1 {
		return nil, apperr.Invalid("submissionLimit must be a whole number of at least 1")
	}
	var err error
	if ids, ok := in.TrackIds.ValueOK(); ok {
		if s.trackIDs, err = offered(ctx, "tracks", ids, func(ids []string) (int, error) {
			return c.Track.Query().Where(track.IDIn(ids...), track.EventID(eventID)).Count(ctx)
		}); err != nil {
			return nil, err
		}
	}
	if ids, ok := in.FormatIds.ValueOK(); ok {
		if s.formatIDs, err = offered(ctx, "formats", ids, func(ids []string) (int, error) {
			return c.Format.Query().Where(format.IDIn(ids...), format.EventID(eventID)).Count(ctx)
		}); err != nil {
			return nil, err
		}
	}
	if ids, ok := in.LevelIds.ValueOK(); ok {
		if s.levelIDs, err = offered(ctx, "levels", ids, func(ids []string) (int, error) {
			return c.Level.Query().Where(level.IDIn(ids...), level.EventID(eventID)).Count(ctx)
		}); err != nil {
			return nil, err
		}
	}
	if qs, ok := in.Questions.ValueOK(); ok {
		if s.questions, err = questionsOf(qs); err != nil {
			return nil, err
		}
	}
	for _, l := range []*[]string{&s.trackIDs, &s.formatIDs, &s.levelIDs} {
		if *l == nil {
			*l = []string{}
		}
	}
	if s.questions == nil {
		s.questions = []cfpform.Question{}
	}
	return &s, nil
}

// offered checks ids the form offers: each one of the event's (count counts those that are).
func offered(_ context.Context, what string, ids []string, count func([]string) (int, error)) ([]string, error) {
	ids = unique(ids)
	if len(ids) == 0 {
		return []string{}, nil
	}
	if len(ids) > maxOfferedOptions {
		return nil, apperr.Invalid("Offer at most %d %s", maxOfferedOptions, what)
	}
	for _, id := range ids {
		if !pid.Plausible(id) {
			return nil, apperr.Invalid("Choose %s from this event", what)
		}
	}
	n, err := count(ids)
	if err != nil {
		return nil, err
	}
	if n != len(ids) {
		return nil, apperr.Invalid("Choose %s from this event", what)
	}
	return ids, nil
}

// questionsOf checks a form's own questions.
func questionsOf(in []*model.CfpQuestionInput) ([]cfpform.Question, error) {
	if len(in) > maxQuestions {
		return nil, apperr.Invalid("A form has at most %d questions", maxQuestions)
	}
	out := make([]cfpform.Question, 0, len(in))
	seen := map[string]bool{}
	for i, q := range in {
		n := i + 1
		if !questionKey.MatchString(q.Key) {
			return nil, apperr.Invalid("Question %d: the key must be 1 to 40 lower-case letters, digits or underscores, starting with a letter", n)
		}
		if seen[q.Key] {
			return nil, apperr.Invalid("Question %d: the key %s is used twice", n, q.Key)
		}
		seen[q.Key] = true
		label := strings.TrimSpace(q.Label)
		if err := checkLine(fmt.Sprintf("Question %d", n), label, maxQuestionLabel, true); err != nil {
			return nil, err
		}
		opts := []string{}
		if q.Kind == model.CfpQuestionKindChoice {
			if len(q.Options) == 0 || len(q.Options) > maxChoiceOptions {
				return nil, apperr.Invalid("Question %d: a choice has 1 to %d options", n, maxChoiceOptions)
			}
			for _, o := range q.Options {
				o = strings.TrimSpace(o)
				if err := checkLine(fmt.Sprintf("Question %d: an option", n), o, maxChoiceOption, true); err != nil {
					return nil, err
				}
				if slices.Contains(opts, o) {
					return nil, apperr.Invalid("Question %d: the option %q is listed twice", n, o)
				}
				opts = append(opts, o)
			}
		} else if len(q.Options) > 0 {
			return nil, apperr.Invalid("Question %d: only a choice question has options", n)
		}
		out = append(out, cfpform.Question{Key: q.Key, Label: label, Kind: string(q.Kind),
			Required: q.Required != nil && *q.Required, Options: opts,
			HiddenFromReviewers: q.HiddenFromReviewers != nil && *q.HiddenFromReviewers})
	}
	return out, nil
}

// checkLine checks one line of text a person typed: no NUL or other control characters (JSON
// columns cannot hold NUL), valid UTF-8, at most limit characters, not empty when required.
func checkLine(label, s string, limit int, required bool) error {
	if required && s == "" {
		return apperr.Invalid("%s must not be empty", label)
	}
	if err := checkText(label, s, limit); err != nil {
		return err
	}
	if strings.ContainsAny(s, "\r\n") {
		return apperr.Invalid("%s must be one line", label)
	}
	return nil
}

// checkText checks text a person typed, line breaks allowed.
func checkText(label, s string, limit int) error {
	if !utf8.ValidString(s) {
		return apperr.Invalid("%s is not valid text", label)
	}
	for _, r := range s {
		if r == 0 || (r < 0x20 && r != '\n' && r != '\r' && r != '\t') || r == 0x7f {
			return apperr.Invalid("%s must not contain control characters", label)
		}
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return apperr.Invalid("%s must be at most %d characters (it has %d)", label, limit, n)
	}
	return nil
}

// formAccepting reports whether f takes proposals at now.
func formAccepting(f *ent.Form, now time.Time) bool {
	return f.Status == form.StatusOpen && (f.OpensAt == nil || !now.Before(*f.OpensAt)) &&
		(f.CloseDate == nil || now.Before(*f.CloseDate))
}

// checkFormOpen answers form_closed unless f, a form of ev, takes proposals at now.
func checkFormOpen(ev *ent.Event, f *ent.Form, now time.Time) error {
	if formAccepting(f, now) {
		return nil
	}
	if f.Status == form.StatusOpen && f.OpensAt != nil && now.Before(*f.OpensAt) {
		return apperr.Conflict(apperr.CodeFormClosed, "This form opens on "+FormatLocal(*f.OpensAt, ev.Timezone))
	}
	return apperr.Conflict(apperr.CodeFormClosed, "This submission form is closed")
}

// formLimit is the proposals a speaker may make through f.
func formLimit(f *ent.Form, ev *ent.Event) int {
	if f.SubmissionLimit != nil {
		return *f.SubmissionLimit
	}
	return ev.DefaultSubmissionLimit
}

// internalName is the form's internal name when the caller is one of its organizers, nil for
// anyone else: the organizers' own name for a form ("B-list", "invited only") is not for the
// speakers and reviewers who read the form, nor for another organization.
func internalName(ctx context.Context, f *ent.Form) *string {
	if !formOrganizer(ctx, f) {
		return nil
	}
	name := f.InternalName
	return &name
}

// formOrganizer tells whether the caller organizes the form: its organization's API key (one
// confined to the form's event, if confined), or a person acting as a member of that organization.
func formOrganizer(ctx context.Context, f *ent.Form) bool {
	v := viewer.FromContext(ctx)
	return v != nil && v.OrganizationID != "" && v.OrganizationID == f.OrganizationID && (v.Person == nil || v.Role != "") &&
		(v.APIKeyEventID == "" || v.APIKeyEventID == f.EventID)
}

// formOptions are the tracks, formats and levels of an event, each by position then name: what its
// forms may offer.
type formOptions struct {
	tracks  []*ent.Track
	formats []*ent.Format
	levels  []*ent.Level
}

// eventsFormOptions reads the options of events, three statements whatever their number.
func eventsFormOptions(ctx context.Context, c *ent.Client, events []string) (map[string]*formOptions, error) {
	out := make(map[string]*formOptions, len(events))
	of := func(event string) *formOptions {
		if out[event] == nil {
			out[event] = &formOptions{}
		}
		return out[event]
	}
	ts, err := c.Track.Query().Where(track.EventIDIn(events...)).
		Order(ent.Asc(track.FieldPosition), ent.Asc(track.FieldName), ent.Asc(track.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		of(t.EventID).tracks = append(of(t.EventID).tracks, t)
	}
	fs, err := c.Format.Query().Where(format.EventIDIn(events...)).
		Order(ent.Asc(format.FieldPosition), ent.Asc(format.FieldName), ent.Asc(format.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		of(f.EventID).formats = append(of(f.EventID).formats, f)
	}
	ls, err := c.Level.Query().Where(level.EventIDIn(events...)).
		Order(ent.Asc(level.FieldPosition), ent.Asc(level.FieldName), ent.Asc(level.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		of(l.EventID).levels = append(of(l.EventID).levels, l)
	}
	return out, nil
}

// formView is a form as GraphQL and the pages show it, with the names of what it offers (all of
// the event's when it lists none).
func formView(ctx context.Context, c *ent.Client, ev *ent.Event, f *ent.Form, now time.Time) (*model.CfpForm, error) {
	opts, err := eventsFormOptions(ctx, c, []string{ev.ID})
	if err != nil {
		return nil, err
	}
	return formViewOf(ctx, ev, f, now, opts[ev.ID]), nil
}

// formViewOf is formView with the event's options read: those the form lists, or all of them
// when it lists none (opts is nil for an event without any).
func formViewOf(ctx context.Context, ev *ent.Event, f *ent.Form, now time.Time, opts *formOptions) *model.CfpForm {
	if opts == nil {
		opts = &formOptions{}
	}
	out := &model.CfpForm{ID: f.ID, EventID: ev.ID, EventName: ev.Name, EventTimezone: ev.Timezone, Title: f.ExternalTitle, InternalName: internalName(ctx, f),
		Status: model.CfpFormStatus(f.Status), AcceptingProposals: formAccepting(f, now), OpensAt: f.OpensAt,
		ClosesAt: f.CloseDate, SubmissionLimit: f.SubmissionLimit, EffectiveSubmissionLimit: formLimit(f, ev),
		IsDefault: f.IsDefault, Questions: []*model.CfpQuestion{}}
	out.Tracks = offeredOptions(opts.tracks, f.TrackIds, func(t *ent.Track) *model.CfpOption { return &model.CfpOption{ID: t.ID, Name: t.Name} })
	out.Formats = offeredOptions(opts.formats, f.FormatIds, func(t *ent.Format) *model.CfpOption { return &model.CfpOption{ID: t.ID, Name: t.Name} })
	out.Levels = offeredOptions(opts.levels, f.LevelIds, func(t *ent.Level) *model.CfpOption { return &model.CfpOption{ID: t.ID, Name: t.Name} })
	for _, q := range f.Questions {
		out.Questions = append(out.Questions, &model.CfpQuestion{Key: q.Key, Label: q.Label, Kind: model.CfpQuestionKind(q.Kind),
			Required: q.Required, Options: append([]string{}, q.Options...), HiddenFromReviewers: q.HiddenFromReviewers})
	}
	return out
}

// offeredOptions is the options of a kind a form offers, in the event's order: those whose ids it lists,
// or all when it lists none. An id the event no longer has offers nothing.
func offeredOptions[T any](all []T, ids []string, option func(T) *model.CfpOption) []*model.CfpOption {
	out := []*model.CfpOption{}
	for _, v := range all {
		o := option(v)
		if len(ids) == 0 || slices.Contains(ids, o.ID) {
			out = append(out, o)
		}
	}
	return out
}
