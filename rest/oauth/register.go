package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/oauthclient"
	"github.com/podium/podium/ent/schema/viewer"
)

// Bounds of a registration.
const (
	maxRegistrationBytes = 16 << 10
	maxRedirectURIs      = 10
	maxNameLength        = 100
)

// registrationError is an RFC 7591 §3.2.2 error.
type registrationError struct {
	status int
	code   string
	desc   string
}

func (e *registrationError) Error() string { return e.code + ": " + e.desc }

func badMetadata(desc string) *registrationError {
	return &registrationError{http.StatusBadRequest, "invalid_client_metadata", desc}
}

func badRedirect(desc string) *registrationError {
	return &registrationError{http.StatusBadRequest, "invalid_redirect_uri", desc}
}

// register serves RFC 7591 dynamic registration. Anyone may register — an assistant meets Podium
// for the first time when its person connects it —, so registration is bounded: at most perNet
// registrations an hour from one network, and clients never authorized are deleted after a day.
// A client is public: it gets an id, never a secret.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		writeRegistrationError(w, badMetadata("The registration body is unreadable or larger than 16 KiB"))
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(raw, &meta); err != nil {
		writeRegistrationError(w, badMetadata("The registration body is not the JSON of RFC 7591 client metadata"))
		return
	}
	if err := checkMetadata(&meta); err != nil {
		writeRegistrationError(w, err)
		return
	}
	network := networkOf(r.RemoteAddr)
	ctx := viewer.System(r.Context(), "oauth: register a client, which belongs to no organization")
	now := s.now()
	var id string
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		tx := dbx.TxFromContext(ctx)
		// One registration at a time per network, so that the count below is exact.
		if _, err := tx.PGX().Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('oauth-register:' || $1))`, network); err != nil {
			return err
		}
		c := tx.Ent()
		if _, err := c.OAuthClient.Delete().Where(oauthclient.LastUsedAtIsNil(),
			oauthclient.CreatedAtLT(now.Add(-unusedClientLifetime))).Exec(ctx); err != nil {
			return err
		}
		n, err := c.OAuthClient.Query().Where(oauthclient.RegisteredFrom(network),
			oauthclient.CreatedAtGT(now.Add(-time.Hour))).Count(ctx)
		if err != nil {
			return err
		}
		if n >= s.perNet {
			return &registrationError{http.StatusTooManyRequests, "rate_limited",
				"Too many clients were registered from this network in the last hour: try again later"}
		}
		row, err := c.OAuthClient.Create().SetName(meta.ClientName).SetURI(meta.ClientURI).
			SetRedirectUris(meta.RedirectURIs).SetRegisteredFrom(network).Save(ctx)
		if err != nil {
			return err
		}
		id = row.ID
		return nil
	})
	var re *registrationError
	if errors.As(err, &re) {
		if re.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(3600))
		}
		writeRegistrationError(w, re)
		return
	}
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth: registration failed", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	resp := &oauthex.ClientRegistrationResponse{ClientRegistrationMetadata: meta, ClientID: id, ClientIDIssuedAt: now}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, resp)
}

// checkMetadata refuses what Podium's clients cannot be, and fills in what they are: public
// (token_endpoint_auth_method none), the code flow with refresh tokens.
func checkMetadata(m *oauthex.ClientRegistrationMetadata) *registrationError {
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > maxRedirectURIs {
		return badRedirect("Register between 1 and 10 redirect_uris")
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return err
		}
	}
	if m.TokenEndpointAuthMethod != "" && m.TokenEndpointAuthMethod != "none" {
		return badMetadata("Clients are public: token_endpoint_auth_method must be none")
	}
	m.TokenEndpointAuthMethod = "none"
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return badMetadata("The grant types are authorization_code and refresh_token")
		}
	}
	m.GrantTypes = []string{"authorization_code", "refresh_token"}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return badMetadata("The response type is code")
		}
	}
	m.ResponseTypes = []string{"code"}
	if m.JWKS != "" || m.JWKSURI != "" {
		return badMetadata("Clients are public: no jwks")
	}
	m.ClientName = strings.TrimSpace(m.ClientName)
	if m.ClientName == "" {
		m.ClientName = "Unnamed application"
	}
	if utf8.RuneCountInString(m.ClientName) > maxNameLength || strings.ContainsFunc(m.ClientName, isControl) {
		return badMetadata("client_name is at most 100 characters, on one line")
	}
	if m.ClientURI != "" {
		u, err := url.Parse(m.ClientURI)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(m.ClientURI) > 500 {
			return badMetadata("client_uri is an https address of at most 500 characters")
		}
	}
	var scopes []string
	for _, sc := range strings.Fields(m.Scope) {
		if slices.Contains(Scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	m.Scope = strings.Join(scopes, " ")
	// Shown nowhere, so kept nowhere: the answer does not claim them.
	m.LogoURI, m.TOSURI, m.PolicyURI, m.Contacts = "", "", "", nil
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// checkRedirectURI admits an https address, or an http one on a loopback host (an application
// on the person's own computer, RFC 8252 §7.3); never a fragment, userinfo or another scheme.
func checkRedirectURI(raw string) *registrationError {
	if len(raw) > 2000 {
		return badRedirect("A redirect_uri is at most 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return badRedirect("A redirect_uri is an absolute https address")
	}
	if strings.Contains(raw, "#") {
		return badRedirect("A redirect_uri has no fragment")
	}
	if u.User != nil {
		return badRedirect("A redirect_uri has no userinfo")
	}
	// A host name or an IP address, nothing else: the consent page names the host, and its
	// Content-Security-Policy admits the redirect URI's origin (no wildcard may slip in).
	if h := u.Hostname(); h == "" || strings.IndexFunc(h, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':')
	}) >= 0 {
		return badRedirect("A redirect_uri names a host by its name or address")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if h == "localhost" || h == "127.0.0.1" || h == "::1" {
			return nil
		}
		return badRedirect("An http redirect_uri must be on 127.0.0.1, [::1] or localhost")
	}
	return badRedirect("A redirect_uri is https, or http on a loopback address")
}

// networkOf is the network a registration comes from: the IPv4 /24 or IPv6 /56 of the peer.
func networkOf(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "unknown"
	}
	ip = ip.Unmap()
	bits := 56
	if ip.Is4() {
		bits = 24
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		return "unknown"
	}
	return p.String()
}

func writeRegistrationError(w http.ResponseWriter, e *registrationError) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.desc})
}

// writeJSON writes v as a JSON response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
