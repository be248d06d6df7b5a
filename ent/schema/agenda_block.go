package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/podium/podium/ent/schema/agenda"
)

// The agenda beyond sessions (docs/agenda.md): blocks (breaks, meals, registration, socials),
// the numbered versions each publish leaves, when speakers can speak, and the personal calendars
// visitors subscribe to.

func init() {
	// These types are tenant data; tenantColumn is built before init functions run.
	for name, t := range map[string]ent.Interface{"AgendaBlock": AgendaBlock{}, "AgendaVersion": AgendaVersion{},
		"SpeakerAvailability": SpeakerAvailability{}, "PersonalCalendar": PersonalCalendar{}} {
		for _, m := range t.Mixin() {
			if _, ok := m.(tenantMixin); ok {
				tenantColumn[name] = "organization_id"
			}
		}
	}
}

// AgendaBlock is a stretch of the agenda that is not a session: a break, a meal, registration, a
// social or something else, in one room or (room_id null) in every room. Blocks are shown in the
// agenda, copied into the published agenda, and are blackout windows for scheduling.
type AgendaBlock struct{ ent.Schema }

// Mixin of the AgendaBlock.
func (AgendaBlock) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "blk"}, timeMixin{}, eventScoped()}
}

// Fields of the AgendaBlock.
func (AgendaBlock) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("title").Validate(text("Title", 200)),
		field.Enum("kind").Values("break", "meal", "registration", "social", "other"),
		optionalRef("room_id"),
		field.Time("starts_at"),
		field.Time("ends_at"),
	}
}

// Edges of the AgendaBlock.
func (AgendaBlock) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		// Deleting a room deletes its blocks: a block of a room that is gone would otherwise turn
		// into one spanning every room.
		edge.To("room", Room.Type).Field("room_id").Unique().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the AgendaBlock.
func (AgendaBlock) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "starts_at")}
}

// Annotations of the AgendaBlock.
func (AgendaBlock) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("agenda_blocks")}
}

// AgendaVersion is one publish of an event's agenda: version Number (1, 2, …) with the sessions
// and blocks it froze and what changed against the version before it.
type AgendaVersion struct{ ent.Schema }

// Mixin of the AgendaVersion.
func (AgendaVersion) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "agv"}, eventScoped()}
}

// Fields of the AgendaVersion.
func (AgendaVersion) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.Int("number").Immutable().Positive(),
		field.Time("published_at").Immutable().Default(time.Now),
		// published_by names who published: a person's name, or "API key: name".
		field.String("published_by").Immutable().Default(""),
		field.JSON("sessions", []agenda.Entry{}).Immutable(),
		field.JSON("blocks", []agenda.Block{}).Immutable(),
		field.JSON("changes", []agenda.Change{}).Immutable(),
	}
}

// Edges of the AgendaVersion.
func (AgendaVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the AgendaVersion.
func (AgendaVersion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "number").Unique()}
}

// Annotations of the AgendaVersion.
func (AgendaVersion) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("agenda_versions")}
}

// SpeakerAvailability is a stretch of time a speaker (a contact of the event) can speak. A
// speaker with none is available throughout the event; one with some is available only within
// them, and a session outside its speakers' availability is a conflict.
type SpeakerAvailability struct{ ent.Schema }

// Mixin of the SpeakerAvailability.
func (SpeakerAvailability) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "avl"}, timeMixin{}, eventScoped()}
}

// Fields of the SpeakerAvailability.
func (SpeakerAvailability) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		ref("contact_id"),
		field.Time("starts_at"),
		field.Time("ends_at"),
	}
}

// Edges of the SpeakerAvailability.
func (SpeakerAvailability) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("contact", Contact.Type).Field("contact_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the SpeakerAvailability.
func (SpeakerAvailability) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "contact_id", "starts_at")}
}

// Annotations of the SpeakerAvailability.
func (SpeakerAvailability) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("speaker_availabilities")}
}

// PersonalCalendar is a visitor's calendar of the sessions they starred in a widget, served as
// iCalendar at an unguessable address. Only the SHA-256 of its token is stored; the sessions
// follow the published agenda, so a subscribed calendar shows moves and removals.
type PersonalCalendar struct{ ent.Schema }

// Mixin of the PersonalCalendar.
func (PersonalCalendar) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "pcal"}, timeMixin{}, eventScoped()}
}

// Fields of the PersonalCalendar.
func (PersonalCalendar) Fields() []ent.Field {
	return []ent.Field{
		ref("event_id"),
		field.String("token_hash").Immutable().NotEmpty().Sensitive(),
		field.JSON("session_ids", []string{}),
		field.Time("last_read_at").Optional().Nillable(),
	}
}

// Edges of the PersonalCalendar.
func (PersonalCalendar) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("event", Event.Type).Field("event_id").Unique().Required().Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the PersonalCalendar.
func (PersonalCalendar) Indexes() []ent.Index {
	return []ent.Index{index.Fields("token_hash").Unique(), index.Fields("event_id")}
}

// Annotations of the PersonalCalendar.
func (PersonalCalendar) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("personal_calendars")}
}
