package graph

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/graph/apperr"
)

// documentCacheBytes bounds each of the GraphQL server's caches (parsed documents, persisted
// queries) by the total length of the documents they hold, not by their number. A cache of a
// thousand entries lets anyone with a key park a thousand 1 MiB documents — a gigabyte — in the
// server's memory; a byte budget keeps that to a few megabytes, while the few hundred distinct
// documents a front end sends, a few kilobytes each, still all fit.
const documentCacheBytes = 4 << 20

// byteLRU is a least-recently-used cache whose capacity is a number of bytes of document text:
// a document longer than a quarter of the budget is not kept at all, so one request cannot empty
// the cache of everyone else's documents. It implements graphql.Cache.
type byteLRU[T any] struct {
	mu       sync.Mutex
	budget   int
	used     int
	order    *list.List // front: most recently used; values are *byteLRUEntry[T]
	entries  map[string]*list.Element
	maxEntry int
	// size is the number of bytes an entry counts for.
	size func(key string, value T) int
}

type byteLRUEntry[T any] struct {
	key   string
	value T
	size  int
}

func newByteLRU[T any](budget int, size func(key string, value T) int) *byteLRU[T] {
	return &byteLRU[T]{budget: budget, maxEntry: budget / 4, order: list.New(), entries: map[string]*list.Element{}, size: size}
}

// documentSize counts a parsed-document cache entry: its key is the document's text, which also
// bounds the parsed tree (the parser's token limit does the rest).
func documentSize(key string, _ *ast.QueryDocument) int { return len(key) }

// persistedQuerySize counts a persisted-query entry: a hash for key, the document as value.
func persistedQuerySize(key, value string) int { return len(key) + len(value) }

// Get returns the value cached under key.
func (c *byteLRU[T]) Get(_ context.Context, key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		var zero T
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*byteLRUEntry[T]).value, true
}

// Add caches value under key, evicting the least recently used documents until it fits.
func (c *byteLRU[T]) Add(_ context.Context, key string, value T) {
	size := c.size(key, value)
	if size > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	for c.used+size > c.budget {
		c.remove(c.order.Back())
	}
	c.entries[key] = c.order.PushFront(&byteLRUEntry[T]{key: key, value: value, size: size})
	c.used += size
}

func (c *byteLRU[T]) remove(el *list.Element) {
	e := el.Value.(*byteLRUEntry[T])
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.used -= e.size
}

// persistedQueries is gqlgen's automatic persisted queries with the client's mistakes coded:
// gqlgen answers a query that does not match its hash, extension data of another shape and an
// unknown version with errors that carry no code, which the presenter would take for the
// server's failure (internal_error, logged). They are a body of the wrong shape: invalid_body.
type persistedQueries struct {
	extension.AutomaticPersistedQuery
}

// MutateOperationParameters resolves the persisted query and codes what gqlgen left uncoded.
func (p persistedQueries) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	err := p.AutomaticPersistedQuery.MutateOperationParameters(ctx, raw)
	if err != nil && err.Extensions["code"] == nil {
		errcode.Set(err, apperr.CodeInvalidBody)
	}
	return err
}
