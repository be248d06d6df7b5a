package operation

import (
	"context"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/level"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/tag"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// libraryKind is what the library operations need to know about one kind of item. The five kinds
// are separate tables with different extra fields, so each supplies its own small functions and
// the rules (names trimmed and required, new items last, 404 for another event's id, 409 while in
// use) are written once, in saveLibraryItem and deleteLibraryItem.
type libraryKind struct {
	// label names the kind in messages: "Track not found".
	label  string
	count  func(ctx context.Context, c *ent.Client, eventID string) (int, error)
	create func(ctx context.Context, c *ent.Client, eventID, name string, position int, in model.SaveLibraryItemInput) (ent.Noder, error)
	// update changes the item id of eventID, reporting ent's not-found error when there is none.
	update func(ctx context.Context, c *ent.Client, eventID, id, name string, in model.SaveLibraryItemInput) (ent.Noder, error)
	exists func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error)
	inUse  func(ctx context.Context, c *ent.Client, id string) (bool, error)
	delete func(ctx context.Context, c *ent.Client, id string) error
}

var libraryKinds = map[model.LibraryKind]libraryKind{
	model.LibraryKindTrack: {
		label: "Track",
		count: func(ctx context.Context, c *ent.Client, eventID string) (int, error) {
			return c.Track.Query().Where(track.EventID(eventID)).Count(ctx)
		},
		create: func(ctx context.Context, c *ent.Client, eventID, name string, position int, in model.SaveLibraryItemInput) (ent.Noder, error) {
			return c.Track.Create().SetEventID(eventID).SetName(name).SetPosition(position).
				SetNillableColor(in.Color).Save(ctx)
		},
		update: func(ctx context.Context, c *ent.Client, eventID, id, name string, in model.SaveLibraryItemInput) (ent.Noder, error) {
			t, err := c.Track.Query().Where(track.ID(id), track.EventID(eventID)).Only(ctx)
			if err != nil {
				return nil, err
			}
			return t.Update().SetName(name).SetNillableColor(in.Color).Save(ctx)
		},
		exists: func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error) {
			return c.Track.Query().Where(track.ID(id), track.EventID(eventID)).Exist(ctx)
		},
		inUse: func(ctx context.Context, c *ent.Client, id string) (bool, error) {
			return c.Submission.Query().Where(submission.HasTracksWith(track.ID(id))).Exist(ctx)
		},
		delete: func(ctx context.Context, c *ent.Client, id string) error {
			return c.Track.DeleteOneID(id).Exec(ctx)
		},
	},
	model.LibraryKindFormat: {
		label: "Format",
		count: func(ctx context.Context, c *ent.Client, eventID string) (int, error) {
			return c.Format.Query().Where(format.EventID(eventID)).Count(ctx)
		},
		create: func(ctx context.Context, c *ent.Client, eventID, name string, position int, in model.SaveLibraryItemInput) (ent.Noder, error) {
			return c.Format.Create().SetEventID(eventID).SetName(name).SetPosition(position).
				SetNillableDurationMinutes(in.DurationMinutes).Save(ctx)
		},
		update: func(ctx context.Context, c *ent.Client, eventID, id, name string, in model.SaveLibraryItemInput) (ent.Noder, error) {
			f, err := c.Format.Query().Where(format.ID(id), format.EventID(eventID)).Only(ctx)
			if err != nil {
				return nil, err
			}
			return f.Update().SetName(name).SetNillableDurationMinutes(in.DurationMinutes).Save(ctx)
		},
		exists: func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error) {
			return c.Format.Query().Where(format.ID(id), format.EventID(eventID)).Exist(ctx)
		},
		inUse: func(ctx context.Context, c *ent.Client, id string) (bool, error) {
			return c.Submission.Query().Where(submission.FormatID(id)).Exist(ctx)
		},
		delete: func(ctx context.Context, c *ent.Client, id string) error {
			return c.Format.DeleteOneID(id).Exec(ctx)
		},
	},
	model.LibraryKindRoom: {
		label: "Room",
		count: func(ctx context.Context, c *ent.Client, eventID string) (int, error) {
			return c.Room.Query().Where(room.EventID(eventID)).Count(ctx)
		},
		create: func(ctx context.Context, c *ent.Client, eventID, name string, position int, in model.SaveLibraryItemInput) (ent.Noder, error) {
			return c.Room.Create().SetEventID(eventID).SetName(name).SetPosition(position).
				SetNillableCapacity(in.Capacity.Value()).Save(ctx)
		},
		update: func(ctx context.Context, c *ent.Client, eventID, id, name string, in model.SaveLibraryItemInput) (ent.Noder, error) {
			r, err := c.Room.Query().Where(room.ID(id), room.EventID(eventID)).Only(ctx)
			if err != nil {
				return nil, err
			}
			u := r.Update().SetName(name)
			if capacity, set := in.Capacity.ValueOK(); set {
				if capacity == nil {
					u.ClearCapacity()
				} else {
					u.SetCapacity(*capacity)
				}
			}
			return u.Save(ctx)
		},
		exists: func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error) {
			return c.Room.Query().Where(room.ID(id), room.EventID(eventID)).Exist(ctx)
		},
		inUse: func(ctx context.Context, c *ent.Client, id string) (bool, error) {
			return c.Submission.Query().Where(submission.RoomID(id)).Exist(ctx)
		},
		delete: func(ctx context.Context, c *ent.Client, id string) error {
			return c.Room.DeleteOneID(id).Exec(ctx)
		},
	},
	model.LibraryKindTag: {
		label: "Tag",
		count: func(ctx context.Context, c *ent.Client, eventID string) (int, error) {
			return c.Tag.Query().Where(tag.EventID(eventID)).Count(ctx)
		},
		create: func(ctx context.Context, c *ent.Client, eventID, name string, position int, _ model.SaveLibraryItemInput) (ent.Noder, error) {
			return c.Tag.Create().SetEventID(eventID).SetName(name).SetPosition(position).Save(ctx)
		},
		update: func(ctx context.Context, c *ent.Client, eventID, id, name string, _ model.SaveLibraryItemInput) (ent.Noder, error) {
			t, err := c.Tag.Query().Where(tag.ID(id), tag.EventID(eventID)).Only(ctx)
			if err != nil {
				return nil, err
			}
			return t.Update().SetName(name).Save(ctx)
		},
		exists: func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error) {
			return c.Tag.Query().Where(tag.ID(id), tag.EventID(eventID)).Exist(ctx)
		},
		inUse: func(ctx context.Context, c *ent.Client, id string) (bool, error) {
			return c.Submission.Query().Where(submission.HasTagsWith(tag.ID(id))).Exist(ctx)
		},
		delete: func(ctx context.Context, c *ent.Client, id string) error {
			return c.Tag.DeleteOneID(id).Exec(ctx)
		},
	},
	model.LibraryKindLevel: {
		label: "Level",
		count: func(ctx context.Context, c *ent.Client, eventID string) (int, error) {
			return c.Level.Query().Where(level.EventID(eventID)).Count(ctx)
		},
		create: func(ctx context.Context, c *ent.Client, eventID, name string, position int, _ model.SaveLibraryItemInput) (ent.Noder, error) {
			return c.Level.Create().SetEventID(eventID).SetName(name).SetPosition(position).Save(ctx)
		},
		update: func(ctx context.Context, c *ent.Client, eventID, id, name string, _ model.SaveLibraryItemInput) (ent.Noder, error) {
			l, err := c.Level.Query().Where(level.ID(id), level.EventID(eventID)).Only(ctx)
			if err != nil {
				return nil, err
			}
			return l.Update().SetName(name).Save(ctx)
		},
		exists: func(ctx context.Context, c *ent.Client, eventID, id string) (bool, error) {
			return c.Level.Query().Where(level.ID(id), level.EventID(eventID)).Exist(ctx)
		},
		inUse: func(ctx context.Context, c *ent.Client, id string) (bool, error) {
			return c.Submission.Query().Where(submission.LevelID(id)).Exist(ctx)
		},
		delete: func(ctx context.Context, c *ent.Client, id string) error {
			return c.Level.DeleteOneID(id).Exec(ctx)
		},
	},
}

// kindOf returns the kind's operations, or 400 for a kind that does not exist (REST passes the
// kind as a path segment, unchecked).
func kindOf(kind model.LibraryKind) (libraryKind, error) {
	k, ok := libraryKinds[kind]
	if !ok {
		return libraryKind{}, apperr.Invalid("kind must be one of track, format, room, tag, level")
	}
	return k, nil
}

// SaveLibraryItem creates (id null) or updates a library item. New items go last.
func (r *Service) SaveLibraryItem(ctx context.Context, eventID string, in model.SaveLibraryItemInput) (ent.Noder, error) {
	return inTx(ctx, r, func(ctx context.Context) (ent.Noder, error) {
		k, err := kindOf(in.Kind)
		if err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSpace(in.Name)
		if name == "" {
			return nil, apperr.Invalid("Enter a name")
		}
		if in.Color != nil {
			color := strings.TrimSpace(*in.Color)
			in.Color = &color
		}
		if in.ID == nil {
			n, err := k.count(ctx, c, ev.ID)
			if err != nil {
				return nil, err
			}
			return k.create(ctx, c, ev.ID, name, n+1, in)
		}
		item, err := k.update(ctx, c, ev.ID, *in.ID, name, in)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound(k.label)
		}
		return item, err
	})
}

// DeleteLibraryItem deletes an item no submission or session uses.
func (r *Service) DeleteLibraryItem(ctx context.Context, eventID string, kind model.LibraryKind, id string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		k, err := kindOf(kind)
		if err != nil {
			return "", err
		}
		found, err := k.exists(ctx, c, ev.ID, id)
		if err != nil {
			return "", err
		}
		if !found {
			return "", apperr.NotFound(k.label)
		}
		used, err := k.inUse(ctx, c, id)
		if err != nil {
			return "", err
		}
		if used {
			return "", apperr.Conflict(apperr.CodeResourceInUse, k.label+" cannot be deleted because it is in use")
		}
		if err := k.delete(ctx, c, id); err != nil {
			return "", err
		}
		return id, nil
	})
}

// libraries answers Event.library for a page of events: each event's library, each kind by
// position then creation, and its admins — nine statements whatever the number of events.
func (r *Service) libraries(ctx context.Context, evs []*ent.Event) ([]*model.Library, error) {
	c := r.ClientOf(ctx)
	ids := eventIDs(evs)
	tracks, err := c.Track.Query().Where(track.EventIDIn(ids...)).
		Order(ent.Asc(track.FieldPosition), ent.Asc(track.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	formats, err := c.Format.Query().Where(format.EventIDIn(ids...)).
		Order(ent.Asc(format.FieldPosition), ent.Asc(format.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	rooms, err := c.Room.Query().Where(room.EventIDIn(ids...)).
		Order(ent.Asc(room.FieldPosition), ent.Asc(room.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := c.Tag.Query().Where(tag.EventIDIn(ids...)).
		Order(ent.Asc(tag.FieldPosition), ent.Asc(tag.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	levels, err := c.Level.Query().Where(level.EventIDIn(ids...)).
		Order(ent.Asc(level.FieldPosition), ent.Asc(level.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	admins, err := r.eventsAdmins(ctx, evs)
	if err != nil {
		return nil, err
	}
	byTrack := group(tracks, func(t *ent.Track) string { return t.EventID })
	byFormat := group(formats, func(f *ent.Format) string { return f.EventID })
	byRoom := group(rooms, func(rm *ent.Room) string { return rm.EventID })
	byTag := group(tags, func(t *ent.Tag) string { return t.EventID })
	byLevel := group(levels, func(l *ent.Level) string { return l.EventID })
	out := make([]*model.Library, len(evs))
	for i, ev := range evs {
		out[i] = &model.Library{Tracks: nonNilSlice(byTrack[ev.ID]), Formats: nonNilSlice(byFormat[ev.ID]),
			Rooms: nonNilSlice(byRoom[ev.ID]), Tags: nonNilSlice(byTag[ev.ID]), Levels: nonNilSlice(byLevel[ev.ID]),
			Admins: admins[i]}
	}
	return out, nil
}
