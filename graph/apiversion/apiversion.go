// Package apiversion names the dated versions of the REST API (docs/rest-api.md §1 "Versions"):
// REST chooses one per request, and an API key may be pinned to one.
package apiversion

import "slices"

const (
	// Interface is the original API as integrators first wrote against it (its commit bad5dd2):
	// decide emails at once and takes feedback; speakers have a workflow to set.
	Interface = "2026-08-12"
	// Current is the original's current API (its commit b3f7d2f): decide records, inform emails;
	// the speaker pipeline is derived, so its workflow cannot be set.
	Current = "2026-08-21"
	// Default is the version of a request that names none, from a key pinned to none.
	Default = Interface
)

// All lists the versions, oldest first.
var All = []string{Interface, Current}

// Known reports whether v is one of the versions.
func Known(v string) bool { return slices.Contains(All, v) }
