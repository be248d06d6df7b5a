package operation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podium/podium/graph/model"

	"github.com/riverqueue/river"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/agendadraft"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/agenda/solver"
	"github.com/podium/podium/graph/ai"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
	"github.com/podium/podium/jobs"
)

// Limits of a draft's request, checked before anything is written.
const (
	maxDraftName   = 120
	maxDraftRules  = 12
	maxDraftRule   = 200
	generatorAI    = ai.Provider
	generatorLocal = "solver"
)

var errDraftNotFound = apperr.NotFound("Agenda draft")

func toAgendaDraft(d *ent.AgendaDraft) *model.AgendaDraft {
	p := d.Proposal
	if p.Placements == nil {
		p.Placements = []agenda.Placement{}
	}
	if p.Unplaced == nil {
		p.Unplaced = []agenda.Unplaced{}
	}
	c := d.Criteria
	c.DayStartMinutes, c.DayEndMinutes = c.Window()
	for _, list := range []*[]string{&c.Days, &c.RoomIDs, &c.IncludeStatuses, &c.Rules} {
		if *list == nil {
			*list = []string{}
		}
	}
	return &model.AgendaDraft{ID: d.ID, EventID: d.EventID, Name: d.Name, Status: model.AgendaDraftStatus(d.Status), Criteria: c,
		Proposal: p, FailureReason: d.FailureReason, Generator: d.Generator, GeneratedAt: scalar.AtPtr(d.GeneratedAt),
		CommittedAt: scalar.AtPtr(d.CommittedAt), CreatedAt: scalar.At(d.CreatedAt), UpdatedAt: scalar.At(d.UpdatedAt)}
}

// AgendaDrafts lists an event's drafts, every status, newest first.
func (r *Service) AgendaDrafts(ctx context.Context, eventID string) ([]*model.AgendaDraft, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	drafts, err := c.AgendaDraft.Query().Where(agendadraft.EventID(ev.ID)).
		Order(ent.Desc(agendadraft.FieldCreatedAt), ent.Desc(agendadraft.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return mapAll(drafts, toAgendaDraft), nil
}

// AgendaDraft reads one draft of the event.
func (r *Service) AgendaDraft(ctx context.Context, eventID, draftID string) (*model.AgendaDraft, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	if !pid.Plausible(draftID) {
		return nil, errDraftNotFound
	}
	d, err := c.AgendaDraft.Query().Where(agendadraft.ID(draftID), agendadraft.EventID(ev.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errDraftNotFound
	}
	if err != nil {
		return nil, err
	}
	return toAgendaDraft(d), nil
}

// DraftRequestBudget bounds how long a request that generates its own draft (REST, see
// StartAgendaDraftFallback) works at it before answering it queued, unless Service.DraftBudget
// says otherwise: well within the server's write timeout.
const DraftRequestBudget = 40 * time.Second

// draftBudget is the time a request may generate its draft for.
func (r *Service) draftBudget() time.Duration {
	if r.DraftBudget > 0 {
		return r.DraftBudget
	}
	return DraftRequestBudget
}

// StartAgendaDraft checks the criteria, stores the draft queued and queues its generation in
// the same transaction (docs/agenda-drafts.md). Every refusal happens here, before anything is
// written: the job only meets criteria that were valid when it was queued.
func (r *Service) StartAgendaDraft(ctx context.Context, eventID string, in model.GenerateAgendaDraftInput) (*model.AgendaDraft, error) {
	s, err := r.startAgendaDraft(ctx, eventID, in, nil)
	if err != nil {
		return nil, err
	}
	return s.Draft, nil
}

// StartedDraft is a draft stored queued, and the job that generates it.
type StartedDraft struct {
	Draft *model.AgendaDraft
	jobID int64
}

// StartAgendaDraftFallback is StartAgendaDraft for a caller that generates the draft itself once
// the transaction commits (GenerateAgendaDraftNow): its job is scheduled after the draft budget,
// the fallback of a request that ends before it could generate.
func (r *Service) StartAgendaDraftFallback(ctx context.Context, eventID string, in model.GenerateAgendaDraftInput) (*StartedDraft, error) {
	return r.startAgendaDraft(ctx, eventID, in, &river.InsertOpts{ScheduledAt: time.Now().Add(r.draftBudget() + 5*time.Second)})
}

// GenerateAgendaDraftNow generates a draft StartAgendaDraftFallback stored, as its job would, within
// the draft budget, and answers it. When it cannot — the provider is slow or down — the draft is
// answered queued and its job runs at once instead, retrying as usual.
func (r *Service) GenerateAgendaDraftNow(ctx context.Context, s *StartedDraft) (*model.AgendaDraft, error) {
	gen, cancel := context.WithTimeout(ctx, r.draftBudget())
	err := r.GenerateAgendaDraft(gen, s.Draft.ID, false)
	cancel()
	if err != nil {
		if _, err := r.Outbox.Jobs.JobRetry(context.WithoutCancel(ctx), s.jobID); err != nil {
			return nil, fmt.Errorf("graph: run the job of draft %s now: %w", s.Draft.ID, err)
		}
	}
	return r.AgendaDraft(ctx, s.Draft.EventID, s.Draft.ID)
}

func (r *Service) startAgendaDraft(ctx context.Context, eventID string, in model.GenerateAgendaDraftInput, opts *river.InsertOpts) (*StartedDraft, error) {
	return inTx(ctx, r, func(ctx context.Context) (*StartedDraft, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSpace(in.Name)
		switch {
		case name == "":
			return nil, apperr.Invalid("Name this agenda draft")
		case utf8.RuneCountInString(name) > maxDraftName || strings.IndexByte(name, 0) >= 0:
			return nil, apperr.Invalid("Name this agenda draft in at most %d characters", maxDraftName)
		}
		if len(in.Criteria.IncludeStatuses) != 1 || in.Criteria.IncludeStatuses[0] != model.AgendaDraftSessionStatusAccepted {
			return nil, apperr.Invalid("AI drafts can schedule accepted sessions only")
		}
		crit := agenda.DraftCriteria{Days: unique(in.Criteria.Days), RoomIDs: unique(in.Criteria.RoomIds),
			IncludeStatuses: []string{"accepted"}, RespectExistingPlacements: in.Criteria.RespectExistingPlacements,
			Rules: in.Criteria.Rules, DayStartMinutes: agenda.CanvasStart, DayEndMinutes: agenda.CanvasEnd}
		if in.Criteria.DayStartMinutes != nil {
			crit.DayStartMinutes = *in.Criteria.DayStartMinutes
		}
		if in.Criteria.DayEndMinutes != nil {
			crit.DayEndMinutes = *in.Criteria.DayEndMinutes
		}
		if err := solver.CheckWindow(crit.DayStartMinutes, crit.DayEndMinutes); err != nil {
			return nil, apperr.Invalid("%s", err.Error())
		}
		if err := checkDraftRooms(ctx, r, ev, crit.RoomIDs); err != nil {
			return nil, err
		}
		if err := checkDraftDays(ev, crit.Days); err != nil {
			return nil, err
		}
		if len(crit.Rules) > maxDraftRules {
			return nil, apperr.Invalid("Give at most %d rules", maxDraftRules)
		}
		for _, rule := range crit.Rules {
			if utf8.RuneCountInString(rule) > maxDraftRule || strings.IndexByte(rule, 0) >= 0 {
				return nil, apperr.Invalid("Keep each rule within %d characters", maxDraftRule)
			}
		}
		d, err := c.AgendaDraft.Create().SetEventID(ev.ID).SetName(name).SetStatus(agendadraft.StatusQueued).
			SetCriteria(crit).Save(ctx)
		if err != nil {
			return nil, err
		}
		tx, err := r.tx(ctx)
		if err != nil {
			return nil, err
		}
		job, err := r.Outbox.Jobs.InsertTx(ctx, tx, jobs.AgendaDraftArgs{DraftID: d.ID, OrganizationID: ev.OrganizationID}, opts)
		if err != nil {
			return nil, err
		}
		if err := r.agendaChanged(ctx, ev.ID); err != nil {
			return nil, err
		}
		return &StartedDraft{Draft: toAgendaDraft(d), jobID: job.Job.ID}, nil
	})
}

// checkDraftRooms requires at least one room, each of the event.
func checkDraftRooms(ctx context.Context, r *Service, ev *ent.Event, ids []string) error {
	if len(ids) == 0 {
		return apperr.Invalid("Choose at least one room")
	}
	refused := apperr.Invalid("Choose rooms from this event")
	for _, id := range ids {
		if !pid.Plausible(id) {
			return refused
		}
	}
	n, err := r.ClientOf(ctx).Room.Query().Where(room.EventID(ev.ID), room.IDIn(ids...)).Count(ctx)
	if err != nil {
		return err
	}
	if n != len(ids) {
		return refused
	}
	return nil
}

// checkDraftDays requires at least one day, each a local date (YYYY-MM-DD) of the event.
func checkDraftDays(ev *ent.Event, days []string) error {
	if len(days) == 0 {
		return apperr.Invalid("Choose at least one day")
	}
	window := solver.EventOf(ev.Timezone, ev.StartsAt, ev.EndsAt)
	for _, day := range days {
		if _, err := time.Parse(time.DateOnly, day); err != nil || day < window.FirstDay || day > window.LastDay {
			return apperr.Invalid("Choose days of this event (YYYY-MM-DD, from %s to %s)", window.FirstDay, window.LastDay)
		}
	}
	return nil
}

// GenerateAgendaDraft makes the proposal of a queued draft: the work of an AgendaDraftArgs job,
// scoped to the draft's organization. With a provider it asks for a proposal and repairs it (see
// package solver), otherwise the solver makes one. A proposal that cannot be made — no legal
// slot for some session, a provider's answer that is not a proposal, a provider still down on
// the job's last attempt — fails the draft with the reason. A provider outage before the last
// attempt is returned, and the job retries. A draft no longer queued (discarded meanwhile) is
// left alone.
func (r *Service) GenerateAgendaDraft(ctx context.Context, draftID string, lastAttempt bool) error {
	c := r.Client
	d, err := c.AgendaDraft.Query().Where(agendadraft.ID(draftID)).WithEvent().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != agendadraft.StatusQueued {
		return nil
	}
	ev := d.Edges.Event
	current, err := r.agenda(ctx, ev)
	if err != nil {
		return err
	}
	in := solverInput(ev, current, d.Criteria)
	if dl, ok := ctx.Deadline(); ok {
		// A caller that cannot wait (REST, GenerateAgendaDraftNow) leaves the draft queued.
		in.Deadline = dl
	}
	var out solver.Outcome
	generator := generatorLocal
	if r.AI != nil {
		generator = generatorAI
		// The provider is asked outside any transaction; the draft is written in one statement.
		proposed, askErr := r.AI.ProposeAgenda(ctx, agendaPrompt(current, d.Criteria))
		var pe *ai.Error
		switch {
		case errors.As(askErr, &pe) && pe.Retryable() && !lastAttempt:
			return askErr
		case errors.As(askErr, &pe):
			return r.failDraft(ctx, d.EventID, d.ID, pe.Message)
		case askErr != nil:
			return askErr
		}
		out, err = solver.Repair(in, mapAll(proposed, func(p ai.ProposedPlacement) solver.Proposed {
			return solver.Proposed{SubmissionID: p.SubmissionID, RoomID: p.RoomID, StartsAt: p.StartsAt, EndsAt: p.EndsAt, Reason: p.Reason}
		}))
	} else {
		out, err = solver.Solve(in)
	}
	switch {
	case errors.Is(err, solver.ErrDeadline) && !lastAttempt:
		return err
	case errors.Is(err, solver.ErrDeadline):
		return r.failDraft(ctx, d.EventID, d.ID, "Making this draft takes too long: choose fewer days or rooms")
	case err != nil:
		return r.failDraft(ctx, d.EventID, d.ID, err.Error())
	}
	placements := mapAll(out.Placements, func(p solver.Placement) agenda.Placement {
		return agenda.Placement{SubmissionID: p.SubmissionID, RoomID: p.RoomID, StartsAt: scalar.FormatTime(p.StartsAt),
			EndsAt: scalar.FormatTime(p.EndsAt), Reason: p.Reason}
	})
	unplaced := mapAll(out.Unplaced, func(u solver.Unplaced) agenda.Unplaced {
		return agenda.Unplaced{SubmissionID: u.SubmissionID, Reason: u.Reason}
	})
	placements, unplaced = gateProposal(current, placements, unplaced)
	return r.DB.InTx(ctx, func(ctx context.Context) error {
		n, err := r.ClientOf(ctx).AgendaDraft.Update().Where(agendadraft.ID(d.ID), agendadraft.StatusEQ(agendadraft.StatusQueued)).
			SetStatus(agendadraft.StatusGenerated).SetProposal(agenda.Proposal{Placements: placements, Unplaced: unplaced}).
			SetGeneratedAt(time.Now()).SetGenerator(generator).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		return r.agendaChanged(ctx, d.EventID)
	})
}

// failDraft marks a queued draft of the event eventID failed, with the reason.
func (r *Service) failDraft(ctx context.Context, eventID, id, reason string) error {
	return r.DB.InTx(ctx, func(ctx context.Context) error {
		n, err := r.ClientOf(ctx).AgendaDraft.Update().Where(agendadraft.ID(id), agendadraft.StatusEQ(agendadraft.StatusQueued)).
			SetStatus(agendadraft.StatusFailed).SetFailureReason(truncateRunes(reason, 1000)).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		return r.agendaChanged(ctx, eventID)
	})
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// reasonGate is why the gate took a placement out of a proposal: the agenda's own conflict rules
// found a conflict the solver's did not.
const reasonGate = "Left unplaced: the proposed slot conflicts on the agenda."

// gateProposal checks a proposal with the agenda's conflict rules (Conflicts), on the agenda as
// the proposal would make it: the placed sessions in their proposed slots, the others unscheduled,
// the blocks and availability as they are. A placement in a conflict of any severity is not
// proposed; its session joins the unplaced, and the check runs again on what is left. The solver
// obeys the same rules, so this takes nothing out unless the two disagree.
func gateProposal(live *model.Agenda, placements []agenda.Placement, unplaced []agenda.Unplaced) ([]agenda.Placement, []agenda.Unplaced) {
	codes := map[string]string{}
	for _, s := range live.Sessions {
		codes[s.ID] = s.Code
	}
	for {
		conflicts := Conflicts(proposedAgenda(live, placements))
		if len(conflicts) == 0 {
			break
		}
		// The later session of a pair goes, so that the earlier keeps its slot.
		out := conflicts[0].SessionIds[len(conflicts[0].SessionIds)-1]
		placements = slices.DeleteFunc(placements, func(p agenda.Placement) bool { return p.SubmissionID == out })
		unplaced = append(unplaced, agenda.Unplaced{SubmissionID: out, Reason: reasonGate})
	}
	slices.SortStableFunc(unplaced, func(x, y agenda.Unplaced) int { return strings.Compare(codes[x.SubmissionID], codes[y.SubmissionID]) })
	return placements, unplaced
}

// proposedAgenda is a copy of the agenda with the placed sessions in their proposed slots and
// every other session unscheduled.
func proposedAgenda(a *model.Agenda, placements []agenda.Placement) *model.Agenda {
	out := *a
	out.Sessions = make([]*model.AgendaSession, len(a.Sessions))
	for i, s := range a.Sessions {
		cp := *s
		cp.RoomID, cp.StartsAt, cp.EndsAt = nil, nil, nil
		out.Sessions[i] = &cp
	}
	return applied(&out, placements)
}

// solverInput is the agenda as the solver sees it: its rooms and sessions, its blocks as blackout
// windows, its speakers' availability, and the criteria with their daily window. A session's
// duration is its current slot's length when it is scheduled, its format's otherwise.
func solverInput(ev *ent.Event, a *model.Agenda, crit agenda.DraftCriteria) solver.Input {
	dayStart, dayEnd := crit.Window()
	in := solver.Input{Event: solver.EventOf(ev.Timezone, ev.StartsAt, ev.EndsAt),
		Criteria: solver.Criteria{Days: crit.Days, RoomIDs: crit.RoomIDs, RespectExistingPlacements: crit.RespectExistingPlacements,
			Rules: crit.Rules, DayStart: dayStart, DayEnd: dayEnd}}
	for _, b := range a.Blocks {
		bl := solver.Block{ID: b.ID, StartsAt: b.StartsAt.Time, EndsAt: b.EndsAt.Time}
		if b.RoomID != nil {
			bl.RoomID = *b.RoomID
		}
		in.Blocks = append(in.Blocks, bl)
	}
	for _, av := range a.Availability {
		in.Availability = append(in.Availability, solver.Availability{SpeakerID: av.ContactID, StartsAt: av.StartsAt, EndsAt: av.EndsAt})
	}
	for _, rm := range a.Rooms {
		in.Rooms = append(in.Rooms, solver.Room{ID: rm.ID, Name: rm.Name, Position: rm.Position})
	}
	for _, s := range a.Sessions {
		ss := solver.Session{ID: s.ID, Code: s.Code, Duration: time.Duration(s.DurationMinutes) * time.Minute,
			Tracks:   mapAll(s.Tracks, func(t agenda.Track) string { return t.ID }),
			Speakers: mapAll(s.Speakers, func(sp agenda.Speaker) string { return sp.ID })}
		if s.FormatName != nil {
			ss.Format = *s.FormatName
		}
		if current := liveSlot(s); current != nil {
			ss.Current, ss.Duration = current, current.EndsAt.Sub(current.StartsAt)
		}
		in.Sessions = append(in.Sessions, ss)
	}
	return in
}

// liveSlot is a session's slot when room, start and end are all set.
func liveSlot(s *model.AgendaSession) *solver.Slot {
	if s.RoomID == nil || s.StartsAt == nil || s.EndsAt == nil {
		return nil
	}
	return &solver.Slot{RoomID: *s.RoomID, StartsAt: s.StartsAt.Time, EndsAt: s.EndsAt.Time}
}

type promptRoom struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type promptPlacement struct {
	RoomID   string `json:"roomId"`
	StartsAt string `json:"startsAt"`
	EndsAt   string `json:"endsAt"`
}

// promptBlock is a blackout window: roomId null for every room.
type promptBlock struct {
	RoomID   *string `json:"roomId"`
	StartsAt string  `json:"startsAt"`
	EndsAt   string  `json:"endsAt"`
}

// promptAvailability is a stretch a speaker can speak; a speaker without any can speak anytime.
type promptAvailability struct {
	SpeakerID string `json:"speakerId"`
	StartsAt  string `json:"startsAt"`
	EndsAt    string `json:"endsAt"`
}

// clock writes minutes after midnight as HH:MM.
func clock(minutes int) string {
	return time.Date(2000, 1, 1, minutes/60, minutes%60, 0, 0, time.UTC).Format("15:04")
}

type promptSession struct {
	ID               string           `json:"id"`
	Title            string           `json:"title"`
	Format           *string          `json:"format"`
	Tracks           []string         `json:"tracks"`
	Speakers         []agenda.Speaker `json:"speakers"`
	DurationMinutes  int              `json:"durationMinutes"`
	CurrentPlacement *promptPlacement `json:"currentPlacement"`
}

// agendaPrompt is what the provider is told: the event's time zone, the criteria, the chosen rooms
// in position order, and every active session with its duration and live slot. Speakers are named
// so that the provider can keep them apart; nothing else of theirs is sent.
func agendaPrompt(a *model.Agenda, crit agenda.DraftCriteria) string {
	rooms := []promptRoom{}
	for _, rm := range a.Rooms {
		if slices.Contains(crit.RoomIDs, rm.ID) {
			rooms = append(rooms, promptRoom{ID: rm.ID, Name: rm.Name})
		}
	}
	sessions := mapAll(a.Sessions, func(s *model.AgendaSession) promptSession {
		p := promptSession{ID: s.ID, Title: s.Title, Format: s.FormatName, DurationMinutes: s.DurationMinutes,
			Tracks: mapAll(s.Tracks, func(t agenda.Track) string { return t.Name }), Speakers: s.Speakers}
		if slot := liveSlot(s); slot != nil {
			p.DurationMinutes = int(slot.EndsAt.Sub(slot.StartsAt) / time.Minute)
			p.CurrentPlacement = &promptPlacement{RoomID: slot.RoomID, StartsAt: scalar.FormatTime(slot.StartsAt),
				EndsAt: scalar.FormatTime(slot.EndsAt)}
		}
		return p
	})
	rules := crit.Rules
	if rules == nil {
		rules = []string{}
	}
	blocks := []promptBlock{}
	for _, b := range a.Blocks {
		blocks = append(blocks, promptBlock{RoomID: b.RoomID, StartsAt: scalar.FormatTime(b.StartsAt.Time), EndsAt: scalar.FormatTime(b.EndsAt.Time)})
	}
	available := []promptAvailability{}
	for _, av := range a.Availability {
		available = append(available, promptAvailability{SpeakerID: av.ContactID, StartsAt: scalar.FormatTime(av.StartsAt),
			EndsAt: scalar.FormatTime(av.EndsAt)})
	}
	start, end := crit.Window()
	raw, _ := json.Marshal(map[string]any{"timezone": a.Event.Timezone, "days": crit.Days, "rules": rules,
		"dailyWindow":               map[string]string{"start": clock(start), "end": clock(end)},
		"respectExistingPlacements": crit.RespectExistingPlacements, "rooms": rooms, "sessions": sessions,
		"blocks": blocks, "speakerAvailability": available})
	return string(raw)
}

// lockedDraft finds a draft of the event and locks it for the transaction.
func lockedDraft(ctx context.Context, c *ent.Client, eventID, draftID string) (*ent.AgendaDraft, error) {
	if !pid.Plausible(draftID) {
		return nil, errDraftNotFound
	}
	d, err := c.AgendaDraft.Query().Where(agendadraft.ID(draftID), agendadraft.EventID(eventID)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errDraftNotFound
	}
	return d, err
}

// ChangeAgendaDraft duplicates a draft (answering the new one, with the same criteria and no
// proposal) or discards it (not when committed).
func (r *Service) ChangeAgendaDraft(ctx context.Context, eventID, draftID string, in model.ChangeAgendaDraftInput) (*model.AgendaDraft, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AgendaDraft, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		d, err := lockedDraft(ctx, c, ev.ID, draftID)
		if err != nil {
			return nil, err
		}
		changed := true
		switch in.Action {
		case model.AgendaDraftActionDiscard:
			changed = d.Status != agendadraft.StatusDiscarded
			if d.Status == agendadraft.StatusCommitted {
				return nil, apperr.Invalid("A committed draft cannot be discarded")
			}
			d, err = d.Update().SetStatus(agendadraft.StatusDiscarded).Save(ctx)
		default:
			d, err = c.AgendaDraft.Create().SetEventID(ev.ID).SetName(truncateRunes(d.Name+" copy", 200)).
				SetStatus(agendadraft.StatusDraft).SetCriteria(d.Criteria).Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		if changed {
			if err := r.agendaChanged(ctx, ev.ID); err != nil {
				return nil, err
			}
		}
		return toAgendaDraft(d), nil
	})
}

// errScheduleConflict answers changes that would double-book a room or a speaker.
var errScheduleConflict = apperr.Conflict(apperr.CodeScheduleConflict, "Those selected changes conflict with the current live agenda")

// AcceptAgendaDraft applies the chosen changes of a generated draft to the live schedule in the
// request's transaction, each as scheduleSession applies one (scheduleDirty, a timeline line, the
// session.scheduled webhook), marks the agenda dirty and the draft committed. Nothing is written
// unless every change is valid: a change that is no longer one, a room gone, a slot outside the
// event, or a room or speaker booked twice by the result refuse the whole request.
func (r *Service) AcceptAgendaDraft(ctx context.Context, eventID, draftID string, in model.AcceptAgendaDraftInput) (*model.AcceptAgendaDraftResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.AcceptAgendaDraftResult, error) {
		c := r.ClientOf(ctx)
		ev, err := lockedEvent(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		d, err := lockedDraft(ctx, c, ev.ID, draftID)
		if err != nil {
			return nil, err
		}
		if d.Status != agendadraft.StatusGenerated {
			return nil, apperr.Invalid("Choose a generated draft")
		}
		if len(in.SubmissionIds) == 0 || len(unique(in.SubmissionIds)) != len(in.SubmissionIds) {
			return nil, apperr.Invalid("Choose at least one proposed change")
		}
		live, err := r.agenda(ctx, ev)
		if err != nil {
			return nil, err
		}
		chosen, err := chosenChanges(ev, live, d.Proposal, in.SubmissionIds)
		if err != nil {
			return nil, err
		}
		if len(affected(Blocking(Conflicts(applied(live, chosen))), chosen)) > 0 {
			return nil, errScheduleConflict
		}
		ids := mapAll(chosen, func(p agenda.Placement) string { return p.SubmissionID })
		sessions, err := c.Submission.Query().Where(submission.IDIn(ids...), submission.EventID(ev.ID),
			submission.StatusEQ(submission.StatusAccepted), submission.CancelledAtIsNil()).ForUpdate().All(ctx)
		if err != nil {
			return nil, err
		}
		byID := map[string]*ent.Submission{}
		for _, s := range sessions {
			byID[s.ID] = s
		}
		rooms := map[string]string{}
		for _, rm := range live.Rooms {
			rooms[rm.ID] = rm.Name
		}
		for _, p := range chosen {
			s, ok := byID[p.SubmissionID]
			if !ok {
				return nil, apperr.Invalid("Choose changes from this draft")
			}
			start, _ := scalar.ParseTime(p.StartsAt)
			end, _ := scalar.ParseTime(p.EndsAt)
			slot := model.ScheduleSessionInput{SubmissionID: s.ID, RoomID: &p.RoomID, StartsAt: &start, EndsAt: &end}
			if err := r.moveSession(ctx, c, ev, s, slot, rooms[p.RoomID]); err != nil {
				return nil, err
			}
		}
		if ev, err = ev.Update().SetAgendaDirty(true).Save(ctx); err != nil {
			return nil, err
		}
		if d, err = d.Update().SetStatus(agendadraft.StatusCommitted).SetCommittedAt(time.Now()).Save(ctx); err != nil {
			return nil, err
		}
		if err := r.agendaChanged(ctx, ev.ID); err != nil {
			return nil, err
		}
		after, err := r.agenda(ctx, ev)
		if err != nil {
			return nil, err
		}
		return &model.AcceptAgendaDraftResult{Agenda: after, Draft: toAgendaDraft(d), ChangedSubmissionIds: ids}, nil
	})
}

// chosenChanges returns the proposal's placements of the chosen sessions, in the proposal's order:
// each must be a change (an active session whose live slot differs), in a room that still exists
// and a slot the schedule rules allow.
func chosenChanges(ev *ent.Event, live *model.Agenda, proposal agenda.Proposal, ids []string) ([]agenda.Placement, error) {
	sessions := map[string]*model.AgendaSession{}
	for _, s := range live.Sessions {
		sessions[s.ID] = s
	}
	rooms := map[string]bool{}
	for _, rm := range live.Rooms {
		rooms[rm.ID] = true
	}
	window := solver.EventOf(ev.Timezone, ev.StartsAt, ev.EndsAt)
	var out []agenda.Placement
	for _, p := range proposal.Placements {
		s, active := sessions[p.SubmissionID]
		if !active || !slices.Contains(ids, p.SubmissionID) {
			continue
		}
		start, err1 := scalar.ParseTime(p.StartsAt)
		end, err2 := scalar.ParseTime(p.EndsAt)
		if err1 != nil || err2 != nil {
			continue
		}
		if slot := liveSlot(s); slot != nil && slot.RoomID == p.RoomID && slot.StartsAt.Equal(start) && slot.EndsAt.Equal(end) {
			continue
		}
		if !rooms[p.RoomID] || window.CheckSlot(start, end) != nil {
			return nil, apperr.Invalid("A chosen change no longer fits the event (its room or day is gone); generate a new draft")
		}
		out = append(out, p)
	}
	if len(out) != len(ids) {
		return nil, apperr.Invalid("Choose changes from this draft")
	}
	return out, nil
}

// applied is a copy of the agenda with the placements applied.
func applied(a *model.Agenda, placements []agenda.Placement) *model.Agenda {
	out := *a
	out.Sessions = make([]*model.AgendaSession, len(a.Sessions))
	for i, s := range a.Sessions {
		cp := *s
		for _, p := range placements {
			if p.SubmissionID == s.ID {
				start, _ := scalar.ParseTime(p.StartsAt)
				end, _ := scalar.ParseTime(p.EndsAt)
				cp.RoomID, cp.StartsAt, cp.EndsAt = new(p.RoomID), new(scalar.At(start)), new(scalar.At(end))
			}
		}
		out.Sessions[i] = &cp
	}
	return &out
}

// affected keeps the conflicts involving a moved session: a conflict among sessions the changes
// do not touch is the organizer's, already on the live agenda, and does not block them.
func affected(all []*model.AgendaConflict, moved []agenda.Placement) []*model.AgendaConflict {
	return slices.DeleteFunc(all, func(c *model.AgendaConflict) bool {
		return !slices.ContainsFunc(moved, func(p agenda.Placement) bool { return slices.Contains(c.SessionIds, p.SubmissionID) })
	})
}
