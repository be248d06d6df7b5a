package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// EventChange is one committed change to an event, as GraphQL subscriptions deliver it
// (docs/subscriptions.md): written in the transaction of the change, announced to every Podium
// process by NOTIFY at its commit, and kept a day so that a client that reconnects gets what it
// missed. Its id orders the event's stream and is the client's cursor.
//
// event_id has no foreign key: a change is written by many operations, often several per
// transaction, and a key's check would lock the event's row in each; the rows outlive their event
// by at most the retention, invisible to anyone who cannot read the event.
type EventChange struct{ ent.Schema }

// Mixin of the EventChange.
func (EventChange) Mixin() []ent.Mixin {
	return []ent.Mixin{eventScoped()}
}

// Fields of the EventChange.
func (EventChange) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").Immutable(),
		field.String("event_id").Immutable().NotEmpty(),
		// type is what changed, as "session.cancelled" (the GraphQL enum's value lower-cased,
		// its first underscore a dot).
		field.String("type").Immutable().NotEmpty(),
		// data holds the ids the change concerns and its new status, by their GraphQL names.
		field.JSON("data", map[string]string{}).Immutable(),
		field.Time("created_at").Immutable().Default(time.Now),
	}
}

// Indexes of the EventChange.
func (EventChange) Indexes() []ent.Index {
	return []ent.Index{index.Fields("event_id", "id"), index.Fields("created_at")}
}

// Annotations of the EventChange.
func (EventChange) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("event_changes")}
}
