package rest

import (
	"net/http"
)

// baseURL is the scheme and host the caller used, so that links in the meta document work behind
// whatever name the server is reached by.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// meta answers GET /api/v1/: what this API is and where its description lives, with the number of
// operations of the API version the request names (the default's without a header). No key needed.
func (a *API) meta(w http.ResponseWriter, r *http.Request) {
	version, err := requestVersion(r, "")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	endpoints := 0
	for i := range routes {
		if routes[i].inVersion(version) {
			endpoints++
		}
	}
	w.Header().Set(VersionHeader, version)
	base := baseURL(r)
	writeJSON(w, http.StatusOK, Meta{
		Name:           "Podium API",
		Version:        "v1",
		Documentation:  base + "/api/v1/openapi.json",
		OpenAPI:        base + "/api/v1/openapi.json",
		Authentication: "Authorization: Bearer pdm_… — create keys with `podium keys create --org NAME`",
		Endpoints:      endpoints,
	})
}

// Meta is the meta document of GET /api/v1/.
type Meta struct {
	Name           string `json:"name"`
	Version        string `json:"version"`
	Documentation  string `json:"documentation"`
	OpenAPI        string `json:"openapi"`
	Authentication string `json:"authentication"`
	Endpoints      int    `json:"endpoints"`
}
