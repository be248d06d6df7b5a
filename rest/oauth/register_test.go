package oauth

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"
)

func TestOAuthRedirectURIs(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		"https://app.example/callback",
		"https://app.example:8443/cb?x=1",
		"http://127.0.0.1:7777/callback",
		"http://[::1]:9/cb",
		"http://localhost/cb",
	} {
		require.Nil(t, checkRedirectURI(ok), ok)
	}
	for _, bad := range []string{
		"",
		"/relative",
		"https://app.example/cb#fragment",
		"https://app.example/cb#",
		"https://user:pw@app.example/cb",
		"https://user@app.example/cb",
		"http://app.example/cb",
		"http://127.0.0.2.evil.example/cb",
		"http://localhost.evil.example/cb",
		"javascript:alert(1)",
		"data:text/html,hi",
		"ftp://app.example/cb",
		"com.example.app:/cb",
		"https:///cb",
		"https://*.example/cb",
		"https://app.example;x/cb",
	} {
		err := checkRedirectURI(bad)
		require.NotNil(t, err, bad)
		require.Equal(t, "invalid_redirect_uri", err.code, bad)
	}
}

func TestOAuthRegistrationMetadata(t *testing.T) {
	t.Parallel()
	m := &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{"https://app.example/cb"}, ClientName: "  Claude ",
		Scope: "read write admin", LogoURI: "https://app.example/logo.png"}
	require.Nil(t, checkMetadata(m))
	require.Equal(t, "Claude", m.ClientName)
	require.Equal(t, "none", m.TokenEndpointAuthMethod)
	require.Equal(t, []string{"authorization_code", "refresh_token"}, m.GrantTypes)
	require.Equal(t, "read write", m.Scope)
	require.Empty(t, m.LogoURI)

	for name, m := range map[string]*oauthex.ClientRegistrationMetadata{
		"secret":      {RedirectURIs: []string{"https://a.example/cb"}, TokenEndpointAuthMethod: "client_secret_post"},
		"implicit":    {RedirectURIs: []string{"https://a.example/cb"}, ResponseTypes: []string{"token"}},
		"credentials": {RedirectURIs: []string{"https://a.example/cb"}, GrantTypes: []string{"client_credentials"}},
		"long name":   {RedirectURIs: []string{"https://a.example/cb"}, ClientName: string(make([]byte, 101))},
		"two lines":   {RedirectURIs: []string{"https://a.example/cb"}, ClientName: "A\nB"},
		"http site":   {RedirectURIs: []string{"https://a.example/cb"}, ClientURI: "http://a.example"},
		"keys":        {RedirectURIs: []string{"https://a.example/cb"}, JWKSURI: "https://a.example/jwks"},
	} {
		err := checkMetadata(m)
		require.NotNil(t, err, name)
		require.Equal(t, "invalid_client_metadata", err.code, name)
	}
	require.Equal(t, "invalid_redirect_uri", checkMetadata(&oauthex.ClientRegistrationMetadata{}).code)
}

func TestOAuthNetworks(t *testing.T) {
	t.Parallel()
	require.Equal(t, "203.0.113.0/24", networkOf("203.0.113.77:1234"))
	require.Equal(t, "203.0.113.0/24", networkOf("[::ffff:203.0.113.5]:1"))
	require.Equal(t, "2001:db8:0:1200::/56", networkOf("[2001:db8:0:12ab::1]:443"))
	require.Equal(t, "2001:db8:0:1200::/56", networkOf("[2001:db8:0:12ff:ffff::9]:443"))
	require.NotEqual(t, networkOf("[2001:db8:0:1200::1]:1"), networkOf("[2001:db8:0:1300::1]:1"))
	require.Equal(t, "unknown", networkOf("pipe"))
}
