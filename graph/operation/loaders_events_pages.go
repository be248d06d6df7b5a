package operation

import (
	"context"
	"errors"
	"slices"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/graph/access"
)

// The entgql connections of an event — Event.speakers, Event.emails — read for a page of events
// in two statements whatever the number of events: the count of each event's rows, grouped by
// event, and the rows of each event's page, numbered within their event by the connection's
// order (row_number() OVER (PARTITION BY event_id …)) and cut at the page's limit. Each event's
// connection is then built as entgql's Paginate builds it for one event: the same rows, cursors,
// page info and total, from the same predicates (entgql.CursorsPredicate, the where input's
// predicate).

// entPage is what a page of an entgql connection asks, the same for each event of a page of
// events. Arguments that Paginate refuses (first with last, a negative count, an invalid where
// input or direction) never become one: those fields take the single-event path, which answers
// their error.
type entPage struct {
	after, before *ent.Cursor
	first, last   *int
	// column and direction are the order asked; id breaks ties in the same direction.
	column    string
	direction entgql.OrderDirection
	// where is the where input's predicate; nil without one.
	where func(*sql.Selector)
	// count reads the events' totals (totalCount or pageInfo asked, with a page or without
	// edges); nodes reads their rows (edges asked, and a page not cut to nothing).
	count, nodes bool
}

// newEntPage reads a connection's arguments and selection as Paginate does; ok is false when
// Paginate would refuse them.
func newEntPage(ctx context.Context, after *ent.Cursor, first *int, before *ent.Cursor, last *int,
	column string, direction entgql.OrderDirection, where func(*sql.Selector)) (*entPage, bool) {
	if (first != nil && last != nil) || (first != nil && *first < 0) || (last != nil && *last < 0) ||
		direction.Validate() != nil {
		return nil, false
	}
	p := &entPage{after: after, before: before, first: first, last: last, column: column, direction: direction, where: where}
	edges := collectedAlias(ctx, "edges")
	if collectedAlias(ctx, "totalCount") || collectedAlias(ctx, "pageInfo") {
		p.count = after != nil || first != nil || before != nil || last != nil || !edges
	}
	p.nodes = edges && (first == nil || *first > 0) && (last == nil || *last > 0)
	return p, true
}

// collectedAlias is entgql's hasCollectedField for one name: whether the selection of the field
// being resolved holds a field answering under that name.
func collectedAlias(ctx context.Context, name string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return true
	}
	return slices.ContainsFunc(graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, nil),
		func(f graphql.CollectedField) bool { return f.Alias == name })
}

// readDirection is the order the rows are read in: reversed for a page taken from the end.
func (p *entPage) readDirection() entgql.OrderDirection {
	if p.last != nil {
		return p.direction.Reverse()
	}
	return p.direction
}

// limit is the rows read per event: one more than the page, to tell whether more follow; 0 for all.
func (p *entPage) limit() int {
	switch {
	case p.first != nil:
		return *p.first + 1
	case p.last != nil:
		return *p.last + 1
	}
	return 0
}

// filters are the predicates of the rows counted: the events', the connection's own (scope) and
// the where input's.
func (p *entPage) filters(events []string, scope ...func(*sql.Selector)) []func(*sql.Selector) {
	out := append([]func(*sql.Selector){sql.FieldIn("event_id", events...)}, scope...)
	if p.where != nil {
		out = append(out, p.where)
	}
	return out
}

// order orders s as the page reads its rows: the order's column, then id.
func (p *entPage) order(s *sql.Selector) []sql.Querier {
	dir := string(p.readDirection())
	out := []sql.Querier{sql.ExprFunc(func(b *sql.Builder) { b.Ident(s.C(p.column)).Pad().WriteString(dir) })}
	if p.column != "id" {
		out = append(out, sql.ExprFunc(func(b *sql.Builder) { b.Ident(s.C("id")).Pad().WriteString(dir) }))
	}
	return out
}

// rows is the predicate of the rows of the events' pages, over table: those of filters after the
// cursors, and with a limit only each event's first limit of them in the read order — chosen in
// a subquery that numbers them within their event.
func (p *entPage) rows(table string, events []string, scope ...func(*sql.Selector)) func(*sql.Selector) {
	preds := append(p.filters(events, scope...),
		entgql.CursorsPredicate(p.after, p.before, "id", p.column, p.readDirection())...)
	limit := p.limit()
	return func(s *sql.Selector) {
		if limit == 0 {
			for _, pred := range preds {
				pred(s)
			}
			return
		}
		t := sql.Table(table)
		numbered := sql.Dialect(s.Dialect()).Select(t.C("id")).From(t)
		for _, pred := range preds {
			pred(numbered)
		}
		numbered.AppendSelectExprAs(sql.RowNumber().PartitionBy(numbered.C("event_id")).OrderExpr(p.order(numbered)...), "n")
		// Not numbered.As(…): an alias would rename the table its deferred predicates name.
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C("id")).WriteString(" IN (SELECT id FROM (").Join(numbered).
				WriteString(") AS numbered WHERE n <= ").Arg(limit).WriteString(")")
		}))
	}
}

// orderRows orders the rows of the events' pages (rows) in the read order.
func (p *entPage) orderRows(s *sql.Selector) { s.OrderExpr(p.order(s)...) }

// pageOf is one event's rows of a page, in the read order, and its total when counted.
type pageOf[T any] struct {
	rows    []T
	total   int
	counted bool
}

// eventTotal is a row of a count grouped by event.
type eventTotal struct {
	EventID string `json:"event_id"`
	Count   int    `json:"count"`
}

// readEventPages reads the pages of keys, those of one field together: count reads the totals of
// the events for the page (grouped), list their rows (rows, orderRows); eventOf names a row's event.
func readEventPages[T any](ctx context.Context, keys []eventPageKey,
	count func(context.Context, *entPage, []string) ([]eventTotal, error),
	list func(context.Context, *entPage, []string) ([]T, error), eventOf func(T) string) (map[eventPageKey]*pageOf[T], error) {
	out := make(map[eventPageKey]*pageOf[T], len(keys))
	for args, group := range group(keys, func(k eventPageKey) any { return k.args }) {
		p := args.(*entPage)
		events := unique(mapAll(group, func(k eventPageKey) string { return k.event }))
		pages := make(map[string]*pageOf[T], len(events))
		for _, e := range events {
			pages[e] = &pageOf[T]{counted: p.count}
		}
		if p.count {
			totals, err := count(ctx, p, events)
			if err != nil {
				return nil, err
			}
			for _, t := range totals {
				if pg := pages[t.EventID]; pg != nil {
					pg.total = t.Count
				}
			}
		}
		if p.nodes {
			rows, err := list(ctx, p, events)
			if err != nil {
				return nil, err
			}
			for _, row := range rows {
				if pg := pages[eventOf(row)]; pg != nil {
					pg.rows = append(pg.rows, row)
				}
			}
		}
		for _, k := range group {
			out[k] = pages[k.event]
		}
	}
	return out, nil
}

// entConnection is a connection built from one event's page as entgql's Paginate builds it.
type entConnection[T any] struct {
	nodes    []T
	cursors  []ent.Cursor
	pageInfo ent.PageInfo
	total    int
}

// build turns pg into the page's nodes, in the connection's order, with their cursors.
func buildEntConnection[T any](p *entPage, pg *pageOf[T], cursor func(T) ent.Cursor) *entConnection[T] {
	c := &entConnection[T]{nodes: []T{}}
	if pg.counted {
		c.total = pg.total
		c.pageInfo.HasNextPage = p.first != nil && c.total > 0
		c.pageInfo.HasPreviousPage = p.last != nil && c.total > 0
	}
	if !p.nodes {
		return c
	}
	nodes := pg.rows
	c.pageInfo.HasNextPage = p.before != nil
	c.pageInfo.HasPreviousPage = p.after != nil
	if p.first != nil && *p.first+1 == len(nodes) {
		c.pageInfo.HasNextPage = true
		nodes = nodes[:len(nodes)-1]
	} else if p.last != nil && *p.last+1 == len(nodes) {
		c.pageInfo.HasPreviousPage = true
		nodes = nodes[:len(nodes)-1]
	}
	c.nodes = slices.Clone(nodes)
	if p.last != nil {
		slices.Reverse(c.nodes)
	}
	c.cursors = mapAll(c.nodes, cursor)
	if n := len(c.cursors); n > 0 {
		c.pageInfo.StartCursor = &c.cursors[0]
		c.pageInfo.EndCursor = &c.cursors[n-1]
	}
	if c.total == 0 {
		c.total = len(c.nodes)
	}
	return c
}

// contactOrderColumns are the columns of the contact order fields, by name (entgql keeps them
// unexported); an order field missing here takes the single-event path.
var contactOrderColumns = map[string]string{"": contact.FieldID, "CREATED_AT": contact.FieldCreatedAt,
	"EMAIL": contact.FieldEmail, "FIRST_NAME": contact.FieldFirstName, "LAST_NAME": contact.FieldLastName}

// speakersInList answers Event.speakers (or, with its scope, Event.submitters) for an event of a
// page of events, read with the page's other events (eventLoaders.speakers: the field asking is in
// the key, so the two fields' pages are read apart); ok is false for arguments the single path
// must answer.
func (r *Service) speakersInList(ctx context.Context, ev *ent.Event, scope predicate.Contact, after *ent.Cursor, first *int,
	before *ent.Cursor, last *int, order ent.ContactOrder, where *ent.ContactWhereInput) (*ent.ContactConnection, bool, error) {
	if order.Field == nil {
		order.Field = ent.DefaultContactOrder.Field
	}
	column, known := contactOrderColumns[order.Field.String()]
	var pred predicate.Contact
	if where != nil {
		var err error
		if pred, err = where.P(); err != nil && !errors.Is(err, ent.ErrEmptyContactWhereInput) {
			return nil, false, nil
		}
	}
	if !known {
		return nil, false, nil
	}
	if pred == nil {
		pred = scope
	} else {
		pred = contact.And(pred, scope)
	}
	p, ok := newEntPage(ctx, after, first, before, last, column, order.Direction, pred)
	if !ok {
		return nil, false, nil
	}
	l := r.eventLoaders(ctx)
	p = l.fieldArgs(ctx, p).(*entPage)
	pg, err := loadEvent(ctx, l.speakers, eventPageKey{ev.ID, p}, func(e string) eventPageKey { return eventPageKey{e, p} })
	if err != nil {
		return nil, true, err
	}
	c := buildEntConnection(p, pg, func(ct *ent.Contact) ent.Cursor { return ct.ToEdge(&order).Cursor })
	conn := &ent.ContactConnection{Edges: make([]*ent.ContactEdge, len(c.nodes)), PageInfo: c.pageInfo, TotalCount: c.total}
	for i, n := range c.nodes {
		conn.Edges[i] = &ent.ContactEdge{Node: n, Cursor: c.cursors[i]}
	}
	return conn, true, nil
}

// eventsSpeakers reads the pages of Event.speakers of keys.
func (r *Service) eventsSpeakers(ctx context.Context, keys []eventPageKey) (map[eventPageKey]*pageOf[*ent.Contact], error) {
	return readEventPages(ctx, keys, func(ctx context.Context, p *entPage, events []string) ([]eventTotal, error) {
		var out []eventTotal
		err := r.ClientOf(ctx).Contact.Query().Where(predicate.Contact(all(p.filters(events)))).
			GroupBy(contact.FieldEventID).Aggregate(ent.Count()).Scan(ctx, &out)
		return out, err
	}, func(ctx context.Context, p *entPage, events []string) ([]*ent.Contact, error) {
		return r.ClientOf(ctx).Contact.Query().Where(predicate.Contact(p.rows(contact.Table, events))).
			Order(p.orderRows).All(ctx)
	}, func(ct *ent.Contact) string { return ct.EventID })
}

// emailOrderColumns are the columns of the email order fields, as contactOrderColumns.
var emailOrderColumns = map[string]string{"": emaillog.FieldID, "CREATED_AT": emaillog.FieldCreatedAt}

// emailsInList answers Event.emails for an event of a page of events, as speakersInList.
func (r *Service) emailsInList(ctx context.Context, ev *ent.Event, after *ent.Cursor, first *int,
	before *ent.Cursor, last *int, order ent.EmailLogOrder, where *ent.EmailLogWhereInput) (*ent.EmailLogConnection, bool, error) {
	if order.Field == nil {
		order.Field = ent.DefaultEmailLogOrder.Field
	}
	column, known := emailOrderColumns[order.Field.String()]
	var pred predicate.EmailLog
	if where != nil {
		var err error
		if pred, err = where.P(); err != nil && !errors.Is(err, ent.ErrEmptyEmailLogWhereInput) {
			return nil, false, nil
		}
	}
	if !known {
		return nil, false, nil
	}
	p, ok := newEntPage(ctx, after, first, before, last, column, order.Direction, pred)
	if !ok {
		return nil, false, nil
	}
	l := r.eventLoaders(ctx)
	p = l.fieldArgs(ctx, p).(*entPage)
	pg, err := loadEvent(ctx, l.emails, eventPageKey{ev.ID, p}, func(e string) eventPageKey { return eventPageKey{e, p} })
	if err != nil {
		return nil, true, err
	}
	c := buildEntConnection(p, pg, func(e *ent.EmailLog) ent.Cursor { return e.ToEdge(&order).Cursor })
	conn := &ent.EmailLogConnection{Edges: make([]*ent.EmailLogEdge, len(c.nodes)), PageInfo: c.pageInfo, TotalCount: c.total}
	for i, n := range c.nodes {
		conn.Edges[i] = &ent.EmailLogEdge{Node: n, Cursor: c.cursors[i]}
	}
	return conn, true, nil
}

// eventsEmails reads the pages of Event.emails of keys: sign-in emails are never among them
// (access.VisibleEmails), as on the single path.
func (r *Service) eventsEmails(ctx context.Context, keys []eventPageKey) (map[eventPageKey]*pageOf[*ent.EmailLog], error) {
	visible := access.VisibleEmails()
	return readEventPages(ctx, keys, func(ctx context.Context, p *entPage, events []string) ([]eventTotal, error) {
		var out []eventTotal
		err := r.ClientOf(ctx).EmailLog.Query().Where(predicate.EmailLog(all(p.filters(events, visible)))).
			GroupBy(emaillog.FieldEventID).Aggregate(ent.Count()).Scan(ctx, &out)
		return out, err
	}, func(ctx context.Context, p *entPage, events []string) ([]*ent.EmailLog, error) {
		return r.ClientOf(ctx).EmailLog.Query().Where(predicate.EmailLog(p.rows(emaillog.Table, events, visible))).
			Order(p.orderRows).All(ctx)
	}, func(e *ent.EmailLog) string { return e.EventID })
}

// all is the conjunction of preds, applied in turn.
func all(preds []func(*sql.Selector)) func(*sql.Selector) {
	return func(s *sql.Selector) {
		for _, p := range preds {
			p(s)
		}
	}
}
