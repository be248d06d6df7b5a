package operation

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/agendaversion"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Published versions of the agenda (docs/agenda.md "Published versions"): each publish leaves
// version N with what it froze and the diff against version N−1; the diff reaches the
// agenda.published webhook and, from version 2 on, the speakers whose sessions changed.

// The kinds of a change (agenda.Change.Kinds).
const (
	changeAdded    = "added"
	changeRemoved  = "removed"
	changeMoved    = "moved"
	changeRetimed  = "retimed"
	changeReRoomed = "re-roomed"
	changeRetitled = "retitled"
	changeSpeakers = "speakers"
)

// DiffAgenda is how a published agenda (sessions and blocks) differs from the one published
// before it: one change per session or block that was added, removed or changed, none for those
// unchanged. Sessions come first, by code; then blocks, by start time (the new one, or the old
// one for a removed block). A first publish diffs against nothing: everything is added.
func DiffAgenda(before []agenda.Entry, beforeBlocks []agenda.Block, after []agenda.Entry, afterBlocks []agenda.Block) []agenda.Change {
	out := []agenda.Change{}
	old := make(map[string]*agenda.Entry, len(before))
	for i := range before {
		old[before[i].ID] = &before[i]
	}
	seen := make(map[string]bool, len(after))
	for i := range after {
		a := &after[i]
		seen[a.ID] = true
		b, ok := old[a.ID]
		if !ok {
			out = append(out, agenda.Change{SessionID: a.ID, Code: a.Code, Title: a.Title, Kinds: []string{changeAdded}, After: a})
			continue
		}
		kinds := placeKinds(b.RoomName != a.RoomName, b.StartsAt != a.StartsAt || b.EndsAt != a.EndsAt)
		if b.Title != a.Title {
			kinds = append(kinds, changeRetitled)
		}
		if !sameSpeakers(b.Speakers, a.Speakers) {
			kinds = append(kinds, changeSpeakers)
		}
		if len(kinds) > 0 {
			out = append(out, agenda.Change{SessionID: a.ID, Code: a.Code, Title: a.Title, Kinds: kinds, Before: b, After: a})
		}
	}
	for i := range before {
		if b := &before[i]; !seen[b.ID] {
			out = append(out, agenda.Change{SessionID: b.ID, Code: b.Code, Title: b.Title, Kinds: []string{changeRemoved}, Before: b})
		}
	}
	slices.SortFunc(out, func(x, y agenda.Change) int {
		return cmp.Or(naturalCompare(x.Code, y.Code), cmp.Compare(x.SessionID, y.SessionID))
	})

	var blocks []agenda.Change
	oldBlocks := make(map[string]*agenda.Block, len(beforeBlocks))
	for i := range beforeBlocks {
		oldBlocks[beforeBlocks[i].ID] = &beforeBlocks[i]
	}
	seenBlocks := make(map[string]bool, len(afterBlocks))
	for i := range afterBlocks {
		a := &afterBlocks[i]
		seenBlocks[a.ID] = true
		b, ok := oldBlocks[a.ID]
		if !ok {
			blocks = append(blocks, agenda.Change{BlockID: a.ID, Title: a.Title, Kinds: []string{changeAdded}, AfterBlock: a})
			continue
		}
		kinds := placeKinds(!equalPtr(b.RoomName, a.RoomName), b.StartsAt != a.StartsAt || b.EndsAt != a.EndsAt)
		if b.Title != a.Title {
			kinds = append(kinds, changeRetitled)
		}
		if len(kinds) > 0 {
			blocks = append(blocks, agenda.Change{BlockID: a.ID, Title: a.Title, Kinds: kinds, BeforeBlock: b, AfterBlock: a})
		}
	}
	for i := range beforeBlocks {
		if b := &beforeBlocks[i]; !seenBlocks[b.ID] {
			blocks = append(blocks, agenda.Change{BlockID: b.ID, Title: b.Title, Kinds: []string{changeRemoved}, BeforeBlock: b})
		}
	}
	start := func(c agenda.Change) string {
		if c.AfterBlock != nil {
			return c.AfterBlock.StartsAt
		}
		return c.BeforeBlock.StartsAt
	}
	slices.SortFunc(blocks, func(x, y agenda.Change) int {
		return cmp.Or(cmp.Compare(start(x), start(y)), cmp.Compare(x.BlockID, y.BlockID))
	})
	return append(out, blocks...)
}

// placeKinds names a change of place: moved (room and time), re-roomed or retimed.
func placeKinds(room, time bool) []string {
	switch {
	case room && time:
		return []string{changeMoved}
	case room:
		return []string{changeReRoomed}
	case time:
		return []string{changeRetimed}
	}
	return nil
}

// sameSpeakers reports whether two sessions have the same speakers, in whatever order.
func sameSpeakers(a, b []agenda.Speaker) bool {
	ids := func(s []agenda.Speaker) []string {
		out := mapAll(s, func(sp agenda.Speaker) string { return sp.ID })
		slices.Sort(out)
		return out
	}
	return slices.Equal(ids(a), ids(b))
}

// naturalCompare orders codes as people read them: SESS-2 before SESS-10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), cmp.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// recordAgendaVersion records the publish PublishAgenda is making, under its lock of the event's
// row: version N = the event's last + 1, with the sessions and blocks published and the diff
// against the last version (an unpublish in between makes no version, so a republish diffs
// against what was last published). It tells the agenda.published webhook the version and its
// changes, and from version 2 on emails each speaker whose sessions changed.
func (r *Service) recordAgendaVersion(ctx context.Context, ev *ent.Event, entries []agenda.Entry, blocks []agenda.Block) error {
	c := r.ClientOf(ctx)
	if entries == nil {
		entries = []agenda.Entry{}
	}
	if blocks == nil {
		blocks = []agenda.Block{}
	}
	last, err := c.AgendaVersion.Query().Where(agendaversion.EventID(ev.ID)).
		Order(ent.Desc(agendaversion.FieldNumber)).First(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return err
	}
	number := 1
	var changes []agenda.Change
	if last == nil {
		changes = DiffAgenda(nil, nil, entries, blocks)
	} else {
		number = last.Number + 1
		changes = DiffAgenda(last.Sessions, last.Blocks, entries, blocks)
	}
	_, _, by := crmActor(ctx)
	at := time.Now()
	if ev.AgendaPublishedAt != nil {
		at = *ev.AgendaPublishedAt
	}
	if err := c.AgendaVersion.Create().SetEventID(ev.ID).SetNumber(number).SetPublishedAt(at).SetPublishedBy(by).
		SetSessions(entries).SetBlocks(blocks).SetChanges(changes).Exec(ctx); err != nil {
		return err
	}
	hooked, more := hookChanges(changes)
	if err := r.emit(ctx, hookAgendaPublished, hookData{"eventId": ev.ID, "sessions": len(entries), "version": number,
		"changes": hooked, "moreChanges": more}); err != nil {
		return err
	}
	if number < 2 {
		return nil
	}
	return r.queueAgendaChangeEmails(ctx, c, ev, number, changes)
}

// hookMaxChanges bounds the changes an agenda.published message lists: each is a few hundred
// bytes at most (ids, code, a title of up to 200 characters, kinds), so a message stays well under
// the 1 MiB receivers commonly read. The rest is counted in moreChanges; the version holds them
// all.
const hookMaxChanges = 500

// hookChange is a change as the agenda.published webhook carries it: thin, without the before
// and after of the session or block (GET …/agenda/versions/{number} has them).
type hookChange struct {
	SessionID string   `json:"sessionId"`
	BlockID   string   `json:"blockId"`
	Code      string   `json:"code"`
	Title     string   `json:"title"`
	Kinds     []string `json:"kinds"`
}

func hookChanges(changes []agenda.Change) ([]hookChange, int) {
	n := min(len(changes), hookMaxChanges)
	out := make([]hookChange, n)
	for i, c := range changes[:n] {
		out[i] = hookChange{SessionID: c.SessionID, BlockID: c.BlockID, Code: c.Code, Title: c.Title, Kinds: c.Kinds}
	}
	return out, len(changes) - n
}

// speakerNotice lists the kinds of a session change its speakers are told of; a change of
// speakers alone is not one.
var speakerNotice = []string{changeAdded, changeRemoved, changeMoved, changeRetimed, changeReRoomed, changeRetitled}

// queueAgendaChangeEmails queues one email per speaker whose sessions changed in this version
// (speakerNotice), listing those sessions' changes in the event's time zone, in the publish's
// transaction. A session's speakers are those it has now (those it had, when it was removed).
func (r *Service) queueAgendaChangeEmails(ctx context.Context, c *ent.Client, ev *ent.Event, number int, changes []agenda.Change) error {
	lines := map[string][]email.ChangeLine{}
	var order []string
	for _, ch := range changes {
		if ch.SessionID == "" || !slices.ContainsFunc(ch.Kinds, func(k string) bool { return slices.Contains(speakerNotice, k) }) {
			continue
		}
		e := ch.After
		if e == nil {
			e = ch.Before
		}
		line := email.ChangeLine{Title: ch.Title, Detail: changeDetail(ch, ev.Timezone)}
		for _, sp := range e.Speakers {
			if _, ok := lines[sp.ID]; !ok {
				order = append(order, sp.ID)
			}
			lines[sp.ID] = append(lines[sp.ID], line)
		}
	}
	if len(order) == 0 {
		return nil
	}
	people, err := c.Contact.Query().Where(contact.IDIn(order...), contact.EventID(ev.ID)).
		Select(contact.FieldID, contact.FieldFirstName, contact.FieldEmail).All(ctx)
	if err != nil {
		return err
	}
	byID := map[string]*ent.Contact{}
	for _, p := range people {
		byID[p.ID] = p
	}
	var batch []email.Email
	for _, id := range order {
		p := byID[id]
		if p == nil || p.Email == "" {
			continue
		}
		batch = append(batch, email.Email{EventID: ev.ID, ContactID: new(p.ID), Type: emaillog.TypeCustom, To: p.Email,
			Template: email.AgendaChanged, Data: email.Data{EventName: ev.Name, FirstName: p.FirstName, Path: "/portal",
				Count: number, Changes: lines[id]}})
	}
	_, err = r.Outbox.Queue(ctx, batch...)
	return err
}

// changeDetail says what happened to a session, in the event's time zone.
func changeDetail(ch agenda.Change, tz string) string {
	slot := func(e *agenda.Entry) string {
		start, err1 := scalar.ParseTime(e.StartsAt)
		end, err2 := scalar.ParseTime(e.EndsAt)
		if err1 != nil || err2 != nil {
			return e.StartsAt
		}
		return slotText(start, end, tz)
	}
	var parts []string
	for _, k := range ch.Kinds {
		switch k {
		case changeAdded:
			parts = append(parts, fmt.Sprintf("added to the agenda: %s, %s", ch.After.RoomName, slot(ch.After)))
		case changeRemoved:
			parts = append(parts, "removed from the agenda")
		case changeMoved:
			parts = append(parts, fmt.Sprintf("moved to %s, %s (was %s, %s)", ch.After.RoomName, slot(ch.After),
				ch.Before.RoomName, slot(ch.Before)))
		case changeRetimed:
			parts = append(parts, fmt.Sprintf("now %s (was %s)", slot(ch.After), slot(ch.Before)))
		case changeReRoomed:
			parts = append(parts, fmt.Sprintf("now in %s (was %s)", ch.After.RoomName, ch.Before.RoomName))
		case changeRetitled:
			parts = append(parts, fmt.Sprintf("retitled (was %q)", ch.Before.Title))
		}
	}
	return strings.Join(parts, "; ")
}

// agendaVersionsSQL lists an event's versions without reading their sessions, blocks and changes.
const agendaVersionsSQL = `SELECT event_id, number, published_at, published_by, jsonb_array_length(changes)
FROM agenda_versions WHERE event_id = ANY($1) ORDER BY event_id, number DESC`

// AgendaVersions lists the published versions of an event's agenda, newest first.
func (r *Service) AgendaVersions(ctx context.Context, eventID string) ([]*model.AgendaVersionSummary, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	return r.loaders(ctx).agendaVersions.Load(ctx, ev.ID)
}

// AgendaVersionsOf lists the versions of an agenda read with its event's access checked
// (Agenda.versions): the agendas of a page of events read theirs in one statement.
func (r *Service) AgendaVersionsOf(ctx context.Context, a *model.Agenda) ([]*model.AgendaVersionSummary, error) {
	return r.loaders(ctx).agendaVersions.Load(ctx, a.Event.ID)
}

// eventsAgendaVersions reads the versions of the agendas of events, newest first in each.
func (r *Service) eventsAgendaVersions(ctx context.Context, events []string) (map[string][]*model.AgendaVersionSummary, error) {
	out := make(map[string][]*model.AgendaVersionSummary, len(events))
	for _, id := range events {
		out[id] = []*model.AgendaVersionSummary{}
	}
	err := eachRow(ctx, r.sql(ctx), agendaVersionsSQL, events, func(scan func(...any) error) error {
		var event string
		var at time.Time
		v := &model.AgendaVersionSummary{}
		if err := scan(&event, &v.Number, &at, &v.PublishedBy, &v.ChangeCount); err != nil {
			return err
		}
		v.PublishedAt = scalar.At(at)
		out[event] = append(out[event], v)
		return nil
	})
	return out, err
}

// AgendaVersion is one published version of an event's agenda; not found for a number the event
// has no version of.
func (r *Service) AgendaVersion(ctx context.Context, eventID string, number int) (*model.AgendaVersion, error) {
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	v, err := c.AgendaVersion.Query().Where(agendaversion.EventID(ev.ID), agendaversion.Number(number)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("Agenda version")
	}
	if err != nil {
		return nil, err
	}
	return &model.AgendaVersion{Number: v.Number, PublishedAt: scalar.At(v.PublishedAt), PublishedBy: v.PublishedBy,
		Sessions: orEmpty(v.Sessions), Blocks: orEmpty(v.Blocks), Changes: orEmpty(v.Changes)}, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// PublicAgendaChanges is the public changelog of an agenda: its published versions, newest
// first, with their changes.
type PublicAgendaChanges struct {
	Event    PublicAgendaEvent     `json:"event"`
	Versions []PublicAgendaVersion `json:"versions"`
}

// PublicAgendaVersion is a published version as anyone may read it: no names of who published.
type PublicAgendaVersion struct {
	Number      int              `json:"number"`
	PublishedAt scalar.Timestamp `json:"publishedAt"`
	Changes     []agenda.Change  `json:"changes"`
}

// MarshalJSON answers the changes with every key present (model.AgendaChangeJSON).
func (v PublicAgendaVersion) MarshalJSON() ([]byte, error) {
	type fields PublicAgendaVersion
	return json.Marshal(struct {
		fields
		Changes []model.AgendaChangeJSON `json:"changes"`
	}{fields(v), model.AgendaChangesJSON(v.Changes)})
}

// PublicAgendaChangelog is the changelog of any event's agenda, for anyone (no key): the
// versions' numbers, dates and changes, which hold only what each version published. While the
// agenda is unpublished the changelog is empty, as the published agenda is.
func (r *Service) PublicAgendaChangelog(ctx context.Context, eventID string) (*PublicAgendaChanges, error) {
	notFound := apperr.NotFound("Event")
	if !pid.Plausible(eventID) {
		return nil, notFound
	}
	// Anyone may read any event's changelog: the read spans organizations and selects published
	// fields only.
	sys := viewer.System(ctx, "public agenda changelog: the published versions of any event, without a key")
	ev, err := r.Client.Event.Query().Where(event.ID(eventID)).
		Select(event.FieldID, event.FieldName, event.FieldTimezone, event.FieldAgendaPublishedAt).Only(sys)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	out := &PublicAgendaChanges{Event: PublicAgendaEvent{ID: ev.ID, Name: ev.Name, Timezone: ev.Timezone,
		AgendaPublishedAt: scalar.AtPtr(ev.AgendaPublishedAt)}, Versions: []PublicAgendaVersion{}}
	if ev.AgendaPublishedAt == nil {
		return out, nil
	}
	versions, err := r.Client.AgendaVersion.Query().Where(agendaversion.EventID(ev.ID)).
		Order(ent.Desc(agendaversion.FieldNumber)).
		Select(agendaversion.FieldNumber, agendaversion.FieldPublishedAt, agendaversion.FieldChanges).All(sys)
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		out.Versions = append(out.Versions, PublicAgendaVersion{Number: v.Number, PublishedAt: scalar.At(v.PublishedAt),
			Changes: orEmpty(v.Changes)})
	}
	return out, nil
}
