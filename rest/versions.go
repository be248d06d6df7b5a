package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/podium/podium/graph/apiversion"
	"github.com/podium/podium/graph/apperr"
)

// API versions (docs/rest-api.md "Versions"). Each is the date of the original product's API it
// follows. A request picks one with the Podium-Version header; without it, the default applies:
// the interface's shapes and behaviour, which existing integrations rely on. One operation layer
// serves every version: a version decides which routes exist, how bodies are checked, and how a
// few handlers translate — never what the operations do.
const (
	// VersionInterface is the original API as integrators first wrote against it.
	VersionInterface = apiversion.Interface
	// VersionCurrent is the original's current API.
	VersionCurrent = apiversion.Current
	// DefaultVersion is the version of a request that names none, with a key pinned to none.
	DefaultVersion = apiversion.Default
)

// Versions lists the API versions, oldest first.
var Versions = apiversion.All

// VersionHeader names the version of a request, and of its answer.
const VersionHeader = "Podium-Version"

// CodeUnknownVersion answers a Podium-Version that is not one of Versions.
const CodeUnknownVersion = apperr.CodeUnknownAPIVersion

// routeVersions bounds the operations that exist in some versions only: from since, before until
// ("" for no bound). The others exist in every version.
var routeVersions = map[string]struct{ since, until string }{
	"informSubmissions":  {since: VersionCurrent},
	"getMyReviews":       {since: VersionCurrent},
	"saveMyReview":       {since: VersionCurrent},
	"setSpeakerWorkflow": {until: VersionCurrent},
}

// removedFields are keys of request bodies that versions from the given one no longer take
// ("Input.field" → version): a body that sends one is refused with 400 invalid_body naming the
// version, and the version's OpenAPI document leaves the key out. GraphQL keeps them.
var removedFields = map[string]string{
	// The pipeline is derived (Contact.pipeline): a speaker's status cannot be set.
	"SaveSpeakerInput.workflowStatus": VersionCurrent,
	// Deciding emails no one: the feedback goes with POST E/submissions/inform.
	"DecideSubmissionsInput.feedback": VersionCurrent,
	"DecideSubmissionsInput.inform":   VersionCurrent,
}

// addedFields are keys of request bodies that exist from the given version on ("Input.field" →
// version), where they are required: an earlier version ignores the key, as any unknown one, and
// its OpenAPI document leaves it out. GraphQL has them, optional.
var addedFields = map[string]string{
	// The original names the reviewer it provisions.
	"AddReviewerInput.name": VersionCurrent,
	// The original's campaigns name the group they go to.
	"SendCampaignInput.segment": VersionCurrent,
}

// addedIn reports whether the field of input type def is new in REST bodies of version v, or
// later: absent before it, required from it.
func addedIn(def, field, v string) (absent, required bool) {
	since, ok := addedFields[def+"."+field]
	if !ok {
		return false, false
	}
	return v < since, v >= since
}

// removedIn reports whether the field of input type def is gone from REST bodies of version v.
func removedIn(def, field, v string) bool {
	since, ok := removedFields[def+"."+field]
	return ok && v >= since
}

// inVersion reports whether the route exists in version v.
func (rt *route) inVersion(v string) bool {
	b, ok := routeVersions[rt.operationID]
	return !ok || (b.since == "" || v >= b.since) && (b.until == "" || v < b.until)
}

// versionsOf lists the versions the route exists in.
func (rt *route) versionsOf() []string {
	var out []string
	for _, v := range Versions {
		if rt.inVersion(v) {
			out = append(out, v)
		}
	}
	return out
}

// requestVersion reads the version a request asks for: its Podium-Version header, else the version
// its API key is pinned to (pin, "" for none), else the default. A version that does not exist is
// refused, naming those that do.
func requestVersion(r *http.Request, pin string) (string, error) {
	v := strings.TrimSpace(r.Header.Get(VersionHeader))
	if v == "" && apiversion.Known(pin) {
		return pin, nil
	}
	if v == "" {
		return DefaultVersion, nil
	}
	if !apiversion.Known(v) {
		return "", apperr.New(http.StatusBadRequest, CodeUnknownVersion,
			VersionHeader+" must be one of "+strings.Join(Versions, ", ")+" (none means "+DefaultVersion+")")
	}
	return v, nil
}

// notInVersion answers a route asked for in a version it does not exist in, naming where it does.
func notInVersion(rt *route, v string) error {
	return apperr.New(http.StatusNotFound, apperr.CodeUnknownEndpoint,
		rt.method+" /api/v1"+rt.path+" is not in API version "+v+": send "+VersionHeader+": "+
			strings.Join(rt.versionsOf(), " or "))
}

type versionKey struct{}

// withVersion returns ctx carrying the API version of its request.
func withVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// versionOf is the API version of ctx's request, the default when it has none.
func versionOf(ctx context.Context) string {
	if v, ok := ctx.Value(versionKey{}).(string); ok {
		return v
	}
	return DefaultVersion
}

// current reports whether the request of ctx asks for the original's current API or later.
func current(ctx context.Context) bool { return versionOf(ctx) >= VersionCurrent }
