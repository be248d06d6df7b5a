package operation

import (
	"context"

	"entgo.io/contrib/entgql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph/access"
)

// Emails lists an event's email log, newest first unless orderBy says otherwise. Under a page of
// events the events' pages are read together (emailsInList).
func (r *Service) Emails(ctx context.Context, ev *ent.Event, page Page, orderBy *ent.EmailLogOrder,
	where *ent.EmailLogWhereInput) (*ent.EmailLogConnection, error) {
	after, first, before, last := page.After, page.First, page.Before, page.Last
	if orderBy == nil {
		orderBy = &ent.EmailLogOrder{Direction: entgql.OrderDirectionDesc, Field: ent.EmailLogOrderFieldCreatedAt}
	}
	if underList(ctx) {
		if conn, ok, err := r.emailsInList(ctx, ev, after, first, before, last, *orderBy, where); ok {
			return conn, err
		}
	}
	return r.ClientOf(ctx).EmailLog.Query().
		Where(emaillog.EventID(ev.ID), access.VisibleEmails()).
		Paginate(ctx, after, first, before, last, ent.WithEmailLogOrder(orderBy), ent.WithEmailLogFilter(where.Filter))
}
