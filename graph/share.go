package graph

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/podium/podium/graph/operation"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// FairShare bounds the expensive operations one organization, and one caller (an API key or a
// person), run at once, and the whole server too, so that one tenant's heavy documents cannot
// take every core and pooled connection from the others: an expensive operation takes a place of
// its organization, one of its caller and one of the server, waits Wait at most for them, and is
// refused rate_limited otherwise. While it runs, its resolvers give way to cheap requests (Lane).
// Cheap operations — nearly every front-end read — take no place.
type FairShare struct {
	// Expensive is the complexity (see costedSchema) from which an operation takes a place.
	Expensive int
	// PerOrganization and PerCaller are the places: the expensive operations that may run at
	// once. Each may use a few pooled connections (a page and its counts, loaders), so the
	// places of one organization hold a fraction of the pool.
	PerOrganization, PerCaller int
	// PerServer is the expensive operations that may run at once on the whole server, whatever
	// their organization. gqlgen resolves the items of a list in goroutines of their own, so one
	// such operation already spreads over every core; a second one only doubles the goroutines
	// that other requests queue behind. 0 means no bound.
	PerServer int
	// Wait is how long an operation waits for its places before it is refused.
	Wait time.Duration
}

// DefaultFairShare runs one expensive operation at a time on the server: a page of a hundred
// sessions with their lists is not expensive, a board of thousands is. An organization holds two
// places, one per caller, so that its second operation waits in line for the server's place
// while its first runs, and another organization's operation waits behind at most two of it.
var DefaultFairShare = FairShare{Expensive: 20_000, PerOrganization: 2, PerCaller: 1, PerServer: 1, Wait: 2 * time.Second}

// fairShare is the extension that enforces a FairShare. Cheap operations enter lane while they
// run, and the resolvers of expensive ones wait for them.
type fairShare struct {
	share  FairShare
	places *places
	lane   *operation.Lane
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = fairShare{}

// ExtensionName names the extension.
func (fairShare) ExtensionName() string { return "PodiumFairShare" }

// Validate accepts any schema.
func (fairShare) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse runs an expensive operation once its organization, its caller and the
// server have a place, its resolvers giving way to cheap requests; a cheap operation runs at once,
// in the lane.
func (f fairShare) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if isSubscription(ctx) { // an event waits for its change, holding no place meanwhile
		return next(ctx)
	}
	stats := extension.GetComplexityStats(ctx)
	if stats == nil || f.share.Expensive <= 0 || stats.Complexity < f.share.Expensive {
		leave := f.lane.Enter()
		defer leave()
		return next(ctx)
	}
	v := viewer.FromContext(ctx)
	if v == nil {
		return next(ctx)
	}
	caller := "key:" + v.APIKeyID
	if v.Person != nil {
		caller = "user:" + v.Person.UserID
	}
	wait, cancel := context.WithTimeout(ctx, f.share.Wait)
	defer cancel()
	releaseOrg, err := f.places.take(wait, "org:"+v.OrganizationID, f.share.PerOrganization)
	if err != nil {
		return f.refuse(ctx)
	}
	defer releaseOrg()
	releaseCaller, err := f.places.take(wait, caller, f.share.PerCaller)
	if err != nil {
		return f.refuse(ctx)
	}
	defer releaseCaller()
	if f.share.PerServer > 0 {
		releaseServer, err := f.places.take(wait, "server", f.share.PerServer)
		if err != nil {
			return f.refuse(ctx)
		}
		defer releaseServer()
	}
	if f.lane != nil {
		oc := graphql.GetOperationContext(ctx)
		previous := oc.ResolverMiddleware
		oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
			f.lane.Yield(ctx)
			return previous(ctx, next)
		}
	}
	return next(ctx)
}

// refuse answers an operation that found no place in time, or whose client left while it waited.
func (f fairShare) refuse(ctx context.Context) *graphql.Response {
	if err := ctx.Err(); err != nil {
		e := contextError(err)
		gqlErr := gqlerror.Errorf("%s", e.Message)
		gqlErr.Extensions = map[string]any{"code": e.Code}
		return &graphql.Response{Errors: gqlerror.List{gqlErr}}
	}
	retry := int(max(f.share.Wait/time.Second, 1))
	err := gqlerror.Errorf("Your organization or you already run as many large queries at once as may run; retry in %d s", retry)
	err.Extensions = map[string]any{"code": apperr.CodeRateLimited, "retryAfter": retry}
	return &graphql.Response{Errors: gqlerror.List{err}}
}

// places counts the places taken per key; a key's entry lives while someone holds or waits for
// one of its places.
type places struct {
	mu   sync.Mutex
	keys map[string]*place
}

type place struct {
	slots chan struct{}
	users int
}

func newPlaces() *places { return &places{keys: map[string]*place{}} }

// take waits for one of the n places of key until ctx is done.
func (p *places) take(ctx context.Context, key string, n int) (release func(), err error) {
	p.mu.Lock()
	pl := p.keys[key]
	if pl == nil {
		pl = &place{slots: make(chan struct{}, max(n, 1))}
		p.keys[key] = pl
	}
	pl.users++
	p.mu.Unlock()
	leave := func() {
		p.mu.Lock()
		if pl.users--; pl.users == 0 {
			delete(p.keys, key)
		}
		p.mu.Unlock()
	}
	select {
	case pl.slots <- struct{}{}:
		return func() { <-pl.slots; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, fmt.Errorf("graph: no place for %s: %w", key, ctx.Err())
	}
}
