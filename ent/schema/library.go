package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
)

// The event library: tracks, formats, rooms, tags and levels. Each kind is its own table (their
// extra fields and their references differ) sharing the columns of libraryMixin. Submissions
// refer to them; an item in use cannot be deleted (the foreign keys say NO ACTION, and the
// operation layer answers 409 resource_in_use before the database has to).

// libraryMixin holds what every library item has: its event, a name and a manual position.
type libraryMixin struct{ mixin.Schema }

// Fields of the libraryMixin.
func (libraryMixin) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("name").Validate(requiredText("Name", 200)).
			Comment("The item's name, trimmed and never empty; at most 200 characters."),
		field.Int("position").Default(0).
			Comment("The item's place among the event's items of its kind, from 1; new items go last."),
	}
}

// Indexes of the libraryMixin.
func (libraryMixin) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "position")}
}

func libraryAnnotations(comment string) []schema.Annotation {
	return []schema.Annotation{
		entgql.Implements("LibraryItem"),
		entgql.Skip(entgql.SkipWhereInput, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment(comment),
	}
}

func libraryEvent(ref string) ent.Edge {
	return edge.From("event", Event.Type).Ref(ref).Field("event_id").Unique().Required().Immutable().
		Annotations(entgql.Skip())
}

// Track is a topic line of the program; submissions, reviewers and resources are assigned to
// tracks.
type Track struct{ ent.Schema }

// Mixin of the Track.
func (Track) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "trk"}, timeMixin{}, libraryMixin{}, eventScoped()}
}

// Fields of the Track.
func (Track) Fields() []ent.Field {
	return []ent.Field{
		field.String("color").Default("#1d6b4c").Validate(requiredText("Colour", 32)).
			Comment("The colour the track is shown in, as a CSS colour such as #1d6b4c (the default)."),
	}
}

// Edges of the Track.
func (Track) Edges() []ent.Edge {
	return []ent.Edge{
		libraryEvent("tracks"),
		edge.From("submissions", Submission.Type).Ref("tracks").Annotations(entgql.Skip()),
		edge.From("reviewers", EventMember.Type).Ref("tracks").Annotations(entgql.Skip()),
		edge.From("resources", Resource.Type).Ref("tracks").Annotations(entgql.Skip()),
	}
}

// Annotations of the Track.
func (Track) Annotations() []schema.Annotation {
	return libraryAnnotations("Track is a topic line of the program. Submissions and sessions, reviewers " +
		"and resources are assigned to tracks. An item of the event's library (REST: GET " +
		"/events/{eventId}/library).")
}

// Format is a kind of session with a default length (talk, workshop, panel…).
type Format struct{ ent.Schema }

// Mixin of the Format.
func (Format) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "fmt"}, timeMixin{}, libraryMixin{}, eventScoped()}
}

// Fields of the Format.
func (Format) Fields() []ent.Field {
	return []ent.Field{
		field.Int("duration_minutes").Default(30).Validate(between("durationMinutes", 1, 1440)).
			Comment("How long sessions of this format last, in minutes: 1 to 1440; 30 by default."),
	}
}

// Edges of the Format.
func (Format) Edges() []ent.Edge {
	return []ent.Edge{
		libraryEvent("formats"),
		edge.To("submissions", Submission.Type).
			Annotations(entsql.OnDelete(entsql.NoAction), entgql.Skip()),
	}
}

// Annotations of the Format.
func (Format) Annotations() []schema.Annotation {
	return libraryAnnotations("Format is a kind of session with its length: talk, workshop, panel… An item " +
		"of the event's library (REST: GET /events/{eventId}/library).")
}

// Room is a place sessions are scheduled in.
type Room struct{ ent.Schema }

// Mixin of the Room.
func (Room) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "room"}, timeMixin{}, libraryMixin{}, eventScoped()}
}

// Fields of the Room.
func (Room) Fields() []ent.Field {
	return []ent.Field{
		field.Int("capacity").Optional().Nillable().Validate(between("capacity", 1, 1000000)).
			Comment("How many people the room seats; null when unknown."),
	}
}

// Edges of the Room.
func (Room) Edges() []ent.Edge {
	return []ent.Edge{
		libraryEvent("rooms"),
		edge.To("submissions", Submission.Type).
			Annotations(entsql.OnDelete(entsql.NoAction), entgql.Skip()),
	}
}

// Annotations of the Room.
func (Room) Annotations() []schema.Annotation {
	return libraryAnnotations("Room is a place sessions are scheduled in. An item of the event's library " +
		"(REST: GET /events/{eventId}/library).")
}

// Tag is a free label on submissions.
type Tag struct{ ent.Schema }

// Mixin of the Tag.
func (Tag) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "tag"}, timeMixin{}, libraryMixin{}, eventScoped()}
}

// Edges of the Tag.
func (Tag) Edges() []ent.Edge {
	return []ent.Edge{
		libraryEvent("tags"),
		edge.From("submissions", Submission.Type).Ref("tags").Annotations(entgql.Skip()),
	}
}

// Annotations of the Tag.
func (Tag) Annotations() []schema.Annotation {
	return libraryAnnotations("Tag is a free label organizers put on submissions. An item of the event's " +
		"library (REST: GET /events/{eventId}/library).")
}

// Level is the audience level of a session (beginner, advanced…).
type Level struct{ ent.Schema }

// Mixin of the Level.
func (Level) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "lvl"}, timeMixin{}, libraryMixin{}, eventScoped()}
}

// Edges of the Level.
func (Level) Edges() []ent.Edge {
	return []ent.Edge{
		libraryEvent("levels"),
		edge.To("submissions", Submission.Type).
			Annotations(entsql.OnDelete(entsql.NoAction), entgql.Skip()),
	}
}

// Annotations of the Level.
func (Level) Annotations() []schema.Annotation {
	return libraryAnnotations("Level is the audience level of a session: beginner, advanced… An item of the " +
		"event's library (REST: GET /events/{eventId}/library).")
}
