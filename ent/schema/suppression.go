package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Deliverability (docs/deliverability.md): the addresses an organization no longer sends campaign
// mail to. A suppression belongs to the organization, not to an event: someone who unsubscribes
// from one event's campaign hears from no other event of that organization, and a dead mailbox is
// dead for all of them. Transactional mail (decisions, sign-in links, invitations) is not
// suppressed.

func init() {
	// Suppressions are tenant data; tenantColumn is built before init functions run.
	for _, m := range (EmailSuppression{}).Mixin() {
		if _, ok := m.(tenantMixin); ok {
			tenantColumn["EmailSuppression"] = "organization_id"
		}
	}
}

// EmailSuppression is an address an organization's campaigns skip, and why.
type EmailSuppression struct{ ent.Schema }

// Mixin of the EmailSuppression: organization_id is filled from the context on insert, as for
// webhook endpoints; row-level security checks it.
func (EmailSuppression) Mixin() []ent.Mixin {
	return []ent.Mixin{idMixin{prefix: "sup"}, timeMixin{}, tenantMixin{}}
}

// Fields of the EmailSuppression.
func (EmailSuppression) Fields() []ent.Field {
	return []ent.Field{
		// address is lower-cased before it is stored, so that one mailbox is one row however it is
		// spelled; campaigns compare it with lower(recipient).
		field.String("address").Immutable().Validate(text("Email", 320)).
			Comment("The suppressed address, lower-cased."),
		field.Enum("reason").Values("unsubscribe", "bounce", "complaint", "manual").Immutable().
			Comment("Why: the recipient unsubscribed, the address bounced, the recipient complained, or an organizer added it."),
		field.String("detail").Default("").Immutable().Validate(text("Detail", 1000)).
			Comment("What the relay or the provider said, or the organizer's note; empty when nothing was said."),
	}
}

// Indexes of the EmailSuppression: one row per organization and address.
func (EmailSuppression) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "address").Unique()}
}

// Annotations of the EmailSuppression.
func (EmailSuppression) Annotations() []schema.Annotation {
	return []schema.Annotation{hidden(), entsql.Table("email_suppressions")}
}
