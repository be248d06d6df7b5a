package operation

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/format"
	"github.com/podium/podium/ent/level"
	"github.com/podium/podium/ent/organization"
	"github.com/podium/podium/ent/room"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/tag"
	"github.com/podium/podium/ent/track"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// nodeTables maps an id's prefix to the table of the type it names, for node(id:). Listed here are
// the types exposed as GraphQL nodes; each entry takes its prefix from the type's own id default,
// so the two cannot disagree.
var nodeTables = func() map[string]string {
	m := map[string]string{}
	for _, t := range []struct {
		newID func() string
		table string
	}{
		{organization.DefaultID, organization.Table},
		{event.DefaultID, event.Table},
		{track.DefaultID, track.Table},
		{format.DefaultID, format.Table},
		{room.DefaultID, room.Table},
		{tag.DefaultID, tag.Table},
		{level.DefaultID, level.Table},
		{emaillog.DefaultID, emaillog.Table},
		{contact.DefaultID, contact.Table},
	} {
		m[pid.Prefix(t.newID())] = t.table
	}
	return m
}()

// errNodeNotFound answers node(id:) for an id that names nothing the caller can see: unknown,
// malformed and other organizations' ids alike.
var errNodeNotFound = apperr.NotFound("Node")

func nodeType(_ context.Context, id string) (string, error) {
	if t, ok := nodeTables[pid.Prefix(id)]; ok {
		return t, nil
	}
	return "", errNodeNotFound
}

// Node resolves one id; the tenant filter of the ent schema hides other organizations' rows.
// Submissions are read models rather than ent nodes, and resolve through their loader.
func (r *Service) Node(ctx context.Context, id string) (ent.Noder, error) {
	if pid.Prefix(id) == pid.Prefix(submission.DefaultID()) {
		s, err := r.ClientOf(ctx).Submission.Query().Where(submission.ID(id)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, errNodeNotFound
		}
		if err != nil {
			return nil, err
		}
		return r.Submission(ctx, s.EventID, id)
	}
	n, err := r.ClientOf(ctx).Noder(ctx, id, ent.WithNodeType(nodeType))
	if err != nil {
		if _, ok := apperr.As(err); ok || ent.IsNotFound(err) {
			return nil, errNodeNotFound
		}
		return nil, err
	}
	if access.Hidden(ctx, r.ClientOf(ctx), n) {
		return nil, errNodeNotFound
	}
	return n, nil
}

// Nodes resolves several ids; an id naming nothing visible gives a null entry and an error.
func (r *Service) Nodes(ctx context.Context, ids []string) ([]ent.Noder, error) {
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := r.Node(ctx, id)
		if err != nil {
			if !errors.Is(err, errNodeNotFound) {
				return nil, err
			}
			graphql.AddError(ctx, gqlerror.WrapPath(append(graphql.GetPath(ctx), ast.PathIndex(i)), err))
			continue
		}
		out[i] = n
	}
	return out, nil
}
