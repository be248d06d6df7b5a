// Package viewer carries who is making a request through a context. It is a leaf package so that
// the ent schema's tenant interceptors, the access layer and both transports can share it without
// import cycles.
package viewer

import "context"

// Viewer is the caller of a request: an organization API key. Every request that passed the API
// key check has one; background work and the command line run without one.
type Viewer struct {
	// OrganizationID scopes every query: data of other organizations is invisible.
	OrganizationID string
	// APIKeyID and APIKeyName identify the key, recorded as the actor of writes.
	APIKeyID   string
	APIKeyName string
}

type contextKey struct{}

// NewContext returns ctx carrying v.
func NewContext(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, contextKey{}, v)
}

// FromContext returns the viewer of ctx, or nil when ctx carries none (system work).
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(contextKey{}).(*Viewer)
	return v
}
