package operation

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/agendablock"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/agenda/solver"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Agenda blocks (docs/agenda.md "Blocks"): the stretches of the agenda that are not sessions —
// breaks, meals, registration, socials — in one room or in every room. They are edited here, read
// with the agenda (agendas, agenda.go), and frozen into the published agenda by PublishAgenda.

// blockKinds are the kinds of block, in the order messages list them.
var blockKinds = []string{"break", "meal", "registration", "social", "other"}

// blockMark is the grid blocks sit on: starts and ends on 5-minute marks, as the original's.
const blockMark = 5 * time.Minute

// blockTitleMax is the longest title, in characters (the schema's limit).
const blockTitleMax = 200

var (
	errUnknownBlock = apperr.Invalid("Choose a block to edit")
	errBlockTitle   = apperr.Invalid("Give the block a title of 1 to %d characters", blockTitleMax)
	errBlockKind    = apperr.Invalid("Choose a kind of block: %s", strings.Join(blockKinds, ", "))
	errBlockRoom    = apperr.Invalid("Choose a room from this event, or none for every room")
	errBlockMarks   = apperr.Invalid("Start and end the block on 5-minute marks")
	errBlockDay     = apperr.Invalid("Keep the block within one event day")
)

// SaveAgendaBlock creates a block (in.ID nil) or edits one of the event (docs/rest-api.md: PUT
// E/agenda/blocks) and marks the published agenda stale (agendaDirty). An id that is no block of
// the event is refused, as the original does: a client that lost its block should not silently
// create another.
func (r *Service) SaveAgendaBlock(ctx context.Context, eventID string, in model.SaveAgendaBlockInput) (*model.Agenda, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Agenda, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		var existing *ent.AgendaBlock
		if in.ID != nil {
			if !pid.Plausible(*in.ID) {
				return nil, errUnknownBlock
			}
			existing, err = c.AgendaBlock.Query().Where(agendablock.ID(*in.ID), agendablock.EventID(ev.ID)).ForUpdate().Only(ctx)
			if ent.IsNotFound(err) {
				return nil, errUnknownBlock
			}
			if err != nil {
				return nil, err
			}
		}
		title, err := checkBlock(ctx, c, ev, in)
		if err != nil {
			return nil, err
		}
		var id string
		if existing == nil {
			b, err := c.AgendaBlock.Create().SetEventID(ev.ID).SetTitle(title).SetKind(agendablock.Kind(in.Kind)).
				SetNillableRoomID(in.RoomID).SetStartsAt(in.StartsAt).SetEndsAt(in.EndsAt).Save(ctx)
			if err != nil {
				return nil, err
			}
			id = b.ID
		} else {
			u := existing.Update().SetTitle(title).SetKind(agendablock.Kind(in.Kind)).SetStartsAt(in.StartsAt).SetEndsAt(in.EndsAt)
			if in.RoomID == nil {
				u.ClearRoomID()
			} else {
				u.SetRoomID(*in.RoomID)
			}
			if err := u.Exec(ctx); err != nil {
				return nil, err
			}
			id = existing.ID
		}
		return r.blockChanged(ctx, ev, id)
	})
}

// DeleteAgendaBlock deletes a block of the event (docs/rest-api.md: DELETE E/agenda/blocks/{blockId}).
// A block that does not exist is already gone: the agenda is answered as it is, and only a block
// that goes marks the published agenda stale.
func (r *Service) DeleteAgendaBlock(ctx context.Context, eventID, blockID string) (*model.Agenda, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Agenda, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if !pid.Plausible(blockID) {
			return r.agenda(ctx, ev)
		}
		n, err := c.AgendaBlock.Delete().Where(agendablock.ID(blockID), agendablock.EventID(ev.ID)).Exec(ctx)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return r.agenda(ctx, ev)
		}
		return r.blockChanged(ctx, ev, blockID)
	})
}

// blockChanged marks the event's agenda changed since its publication, records the change for
// subscribers (AGENDA_CHANGED with the block), and answers the agenda.
func (r *Service) blockChanged(ctx context.Context, ev *ent.Event, blockID string) (*model.Agenda, error) {
	ev, err := ev.Update().SetAgendaDirty(true).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.change(ctx, changeAgenda, ev.ID, map[string]string{"blockId": blockID}); err != nil {
		return nil, err
	}
	return r.agenda(ctx, ev)
}

// checkBlock checks a block against the rules of the agenda: a title, a kind, the room of the
// event or none, and a start and an end on 5-minute marks within one of the event's days in its
// time zone (the rule of a session's slot, solver.Event.CheckSlot). It returns the trimmed title.
func checkBlock(ctx context.Context, c *ent.Client, ev *ent.Event, in model.SaveAgendaBlockInput) (string, error) {
	title := strings.TrimSpace(in.Title)
	if n := utf8.RuneCountInString(title); n == 0 || n > blockTitleMax || !utf8.ValidString(title) || strings.IndexByte(title, 0) >= 0 {
		return "", errBlockTitle
	}
	if !slices.Contains(blockKinds, in.Kind) {
		return "", errBlockKind
	}
	if in.RoomID != nil {
		if !pid.Plausible(*in.RoomID) {
			return "", errBlockRoom
		}
		ok, err := c.Room.Query().Where(room.ID(*in.RoomID), room.EventID(ev.ID)).Exist(ctx)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errBlockRoom
		}
	}
	err := solver.EventOf(ev.Timezone, ev.StartsAt, ev.EndsAt).CheckSlot(in.StartsAt, in.EndsAt)
	switch {
	case errors.Is(err, solver.ErrOutsideEvent):
		return "", errBlockDay
	case err != nil:
		return "", apperr.Invalid("%s", err.Error())
	}
	if !onMark(in.StartsAt) || !onMark(in.EndsAt) {
		return "", errBlockMarks
	}
	return title, nil
}

func onMark(t time.Time) bool { return t.Truncate(blockMark).Equal(t) }

// publishedBlocks freezes the agenda's blocks for the published agenda: each with its room's name
// (null for every room), by start time. A block whose room is not among the agenda's is left out.
func publishedBlocks(a *model.Agenda) []agenda.Block {
	rooms := map[string]string{}
	for _, rm := range a.Rooms {
		rooms[rm.ID] = rm.Name
	}
	out := []agenda.Block{}
	for _, b := range a.Blocks {
		pb := agenda.Block{ID: b.ID, Title: b.Title, Kind: b.Kind, StartsAt: scalar.FormatTime(b.StartsAt.Time),
			EndsAt: scalar.FormatTime(b.EndsAt.Time)}
		if b.RoomID != nil {
			name, ok := rooms[*b.RoomID]
			if !ok {
				continue
			}
			pb.RoomName = &name
		}
		out = append(out, pb)
	}
	slices.SortStableFunc(out, func(x, y agenda.Block) int { return cmp.Compare(x.StartsAt, y.StartsAt) })
	return out
}

// eventBlocks is the event's published blocks: none while its agenda is not published.
func eventBlocks(ev *ent.Event) []agenda.Block {
	if ev.AgendaPublishedAt == nil || ev.PublishedBlocks == nil {
		return []agenda.Block{}
	}
	return ev.PublishedBlocks
}
