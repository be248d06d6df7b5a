package operation

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// The public program (docs/widgets.md): the published agenda as the public sees it. It starts from
// the snapshot publishAgenda froze on the event and keeps only the sessions that are still active;
// it shows the public view of each session and speaker (public_view.go: approved content only),
// never a draft, a cancelled session, an email address or a phone number. getProgram and every
// widget read it.

// The program reads four statements besides the event, whatever its size: the labels, the tags,
// and the public view of the snapshot's sessions that are still active (publicSessions, two).
const (
	programLabelsSQL = `
SELECT 'format', id, name FROM formats WHERE event_id = $1
UNION ALL
SELECT 'level', id, name FROM levels WHERE event_id = $1`

	programTagsSQL = `
SELECT st.submission_id, t.id, t.name
FROM submission_tags st JOIN tags t ON t.id = st.tag_id
WHERE st.submission_id = ANY($1)
ORDER BY t.position, t.name, t.id`
)

// Program answers getProgram: the program of an event of the caller's organization, with signed
// links to uploaded photos.
func (r *Service) Program(ctx context.Context, eventID string) (*model.Program, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	p, err := r.programOf(ctx, ev)
	if err != nil {
		return nil, err
	}
	for _, s := range p.Sessions {
		for _, sp := range s.Speakers {
			if sp.HeadshotKey != nil {
				sp.HeadshotURL = r.SignedLink(sp.HeadshotKey)
			}
		}
	}
	return p, nil
}

// programOf builds the program of ev, which the caller may read; ctx carries ev's organization.
func (r *Service) programOf(ctx context.Context, ev *ent.Event) (*model.Program, error) {
	p := &model.Program{Event: programEvent(ev), Tracks: []agenda.Track{}, Formats: []*model.ProgramLabel{},
		Tags: []*model.ProgramLabel{}, Sessions: []*model.ProgramSession{}, Blocks: eventBlocks(ev)}
	published := map[string]agenda.Entry{}
	ids := []string{}
	if ev.AgendaPublishedAt != nil {
		for _, e := range ev.PublishedAgenda {
			published[e.ID] = e
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return p, nil
	}
	q := r.sql(ctx)
	labels := map[string]*model.ProgramLabel{}
	err := eachRowArgs(ctx, q, programLabelsSQL, []any{ev.ID}, func(scan func(...any) error) error {
		var kind string
		l := &model.ProgramLabel{}
		if err := scan(&kind, &l.ID, &l.Name); err != nil {
			return err
		}
		labels[l.ID] = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	public, err := r.publicSessions(ctx, ev.ID, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*model.ProgramSession{}
	for _, id := range ids {
		ps, ok := public[id]
		e := published[id]
		start, end, readable := entrySlot(e)
		if !ok || !readable || byID[id] != nil {
			continue // cancelled since, nothing approved, or a snapshot entry without a readable slot
		}
		s := &model.ProgramSession{ID: id, Code: e.Code, Title: ps.Title, Description: ps.Description,
			Format: labels[deref(ps.FormatID)], Level: labels[deref(ps.LevelID)],
			Tracks: nonNilSlice(e.Tracks), Tags: []*model.ProgramLabel{}, Speakers: []*model.ProgramSpeaker{},
			StartsAt: scalar.At(start), EndsAt: scalar.At(end), RoomName: e.RoomName}
		// Only speakers the publication listed: one added since shows once the agenda is
		// published again, one removed disappears at once.
		for _, sp := range ps.Speakers {
			if slices.ContainsFunc(e.Speakers, func(x agenda.Speaker) bool { return x.ID == sp.ID }) {
				s.Speakers = append(s.Speakers, sp)
			}
		}
		byID[id] = s
		p.Sessions = append(p.Sessions, s)
	}
	live := mapAll(p.Sessions, func(s *model.ProgramSession) string { return s.ID })
	err = eachRowArgs(ctx, q, programTagsSQL, []any{live}, func(scan func(...any) error) error {
		var id string
		t := &model.ProgramLabel{}
		if err := scan(&id, &t.ID, &t.Name); err != nil {
			return err
		}
		byID[id].Tags = append(byID[id].Tags, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(p.Sessions, func(a, b *model.ProgramSession) int {
		return cmp.Or(a.StartsAt.Compare(b.StartsAt.Time), cmp.Compare(a.Code, b.Code))
	})
	p.Tracks, p.Formats, p.Tags = programIndexes(p.Sessions)
	return p, nil
}

// entrySlot is the start and end of a published entry; ok is false when they cannot be read.
func entrySlot(e agenda.Entry) (start, end time.Time, ok bool) {
	start, err1 := scalar.ParseTime(e.StartsAt)
	end, err2 := scalar.ParseTime(e.EndsAt)
	return start, end, err1 == nil && err2 == nil
}

// programIndexes lists the tracks, formats and tags of sessions, each once, in order of first
// appearance.
func programIndexes(sessions []*model.ProgramSession) ([]agenda.Track, []*model.ProgramLabel, []*model.ProgramLabel) {
	tracks, formats, tags := []agenda.Track{}, []*model.ProgramLabel{}, []*model.ProgramLabel{}
	seen := map[string]bool{}
	once := func(id string) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		return true
	}
	for _, s := range sessions {
		for _, t := range s.Tracks {
			if once(t.ID) {
				tracks = append(tracks, t)
			}
		}
		if s.Format != nil && once(s.Format.ID) {
			formats = append(formats, s.Format)
		}
		for _, t := range s.Tags {
			if once(t.ID) {
				tags = append(tags, t)
			}
		}
	}
	return tracks, formats, tags
}

func programEvent(ev *ent.Event) *model.ProgramEvent {
	return &model.ProgramEvent{ID: ev.ID, Slug: ev.Slug, Name: ev.Name, Tagline: ev.Tagline, Description: ev.Description,
		LogoURL: ev.LogoURL, Location: ev.Location, Timezone: ev.Timezone, StartsAt: scalar.At(ev.StartsAt),
		EndsAt: scalar.At(ev.EndsAt), AgendaPublishedAt: scalar.AtPtr(ev.AgendaPublishedAt)}
}

// DayKey is the day a time falls on in the event's time zone, as widgets filter by it:
// YYYY-MM-DD.
func DayKey(t time.Time, timezone string) string {
	return t.In(EventLocation(timezone)).Format(time.DateOnly)
}

// locations holds the time zones EventLocation has loaded: time.LoadLocation reads the zone's
// file each time, and pages and filters ask once per session shown.
var locations sync.Map // zone name → *time.Location

// EventLocation is the time zone named tz (an event's), loaded once per process; UTC when the name
// is not a zone.
func EventLocation(tz string) *time.Location {
	if loc, ok := locations.Load(tz); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	locations.Store(tz, loc)
	return loc
}

// FormatLocal writes t as an event's people read it, in the time zone tz (an event's) with the
// zone's abbreviation: "Thu 1 Jan 2099, 09:00 JST". Every page and message for people writes
// times this way, never in UTC unless the event runs in it.
func FormatLocal(t time.Time, tz string) string {
	return t.In(EventLocation(tz)).Format("Mon 2 Jan 2006, 15:04 MST")
}
