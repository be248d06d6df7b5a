package jobs_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

func TestWebhookNetworkRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	var strict jobs.WebhookNetwork
	for _, a := range []string{"127.0.0.1", "::1", "10.0.0.1", "172.16.5.4", "192.168.0.1", "169.254.169.254",
		"fe80::1", "fd00:ec2::254", "::ffff:10.0.0.1", "0.0.0.0", "::", "100.64.0.1", "224.0.0.1", "255.255.255.255",
		"64:ff9b::a00:1"} {
		require.ErrorIs(t, strict.Check(netip.MustParseAddr(a)), jobs.ErrForbiddenAddress, a)
	}
	for _, a := range []string{"93.184.215.14", "1.1.1.1", "2606:4700:4700::1111"} {
		require.NoError(t, strict.Check(netip.MustParseAddr(a)), a)
	}
	allowed := jobs.WebhookNetwork{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	require.NoError(t, allowed.Check(netip.MustParseAddr("10.1.2.3")))
	require.Error(t, allowed.Check(netip.MustParseAddr("10.2.0.1")))
	require.Error(t, allowed.Check(netip.MustParseAddr("169.254.169.254")))
}

func TestParseNetworks(t *testing.T) {
	t.Parallel()
	got, err := jobs.ParseNetworks(" 127.0.0.0/8, ::1 ,10.0.0.7")
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("10.0.0.7/32")}, got)
	_, err = jobs.ParseNetworks("localhost")
	require.Error(t, err)
}

// The dialler checks the address it connects to, after resolution: a URL whose name passed the
// check when it was saved cannot lead to an internal address later (DNS rebinding). Here the name
// resolves to loopback, which the client refuses although http itself is allowed.
func TestWebhookClientChecksTheDialledAddress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)

	strict := jobs.WebhookNetwork{AllowHTTP: true}
	for _, target := range []string{"http://localhost:" + u.Port() + "/", srv.URL} {
		resp, err := strict.Client(5 * time.Second).Get(target)
		if err == nil {
			_ = resp.Body.Close()
		}
		require.ErrorIs(t, err, jobs.ErrForbiddenAddress, target)
	}

	loopback := jobs.WebhookNetwork{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	resp, err := loopback.Client(5 * time.Second).Get(srv.URL)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestWebhookClientTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	loopback := jobs.WebhookNetwork{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	start := time.Now()
	resp, err := loopback.Client(200 * time.Millisecond).Get(srv.URL)
	if err == nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var strict jobs.WebhookNetwork
	require.NoError(t, strict.CheckURL(ctx, "https://93.184.215.14/hooks"))
	for _, u := range []string{"http://93.184.215.14/", "ftp://93.184.215.14/", "https://localhost/", "https://LOCALHOST./",
		"https://u:p@93.184.215.14/", "93.184.215.14", "https:///x", "https://10.0.0.1:8443/"} {
		require.Error(t, strict.CheckURL(ctx, u), u)
	}
	require.NoError(t, jobs.WebhookNetwork{AllowHTTP: true}.CheckURL(ctx, "http://93.184.215.14/"))
}

// The signature is checked here against the Standard Webhooks specification's own example
// (the secret, id, timestamp, body and signature of the reference libraries' tests), computed
// independently of SignWebhook.
func TestSignWebhook(t *testing.T) {
	t.Parallel()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	id, ts := "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	sig, err := jobs.SignWebhook([]string{secret}, id, ts, body)
	require.NoError(t, err)
	require.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", sig)

	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + ".1614265330." + string(body)))
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), sig)

	two, err := jobs.SignWebhook([]string{secret, jobs.NewWebhookSecret()}, id, ts, body)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(two, sig+" v1,"))
	_, err = jobs.SignWebhook([]string{"whsec_!!!"}, id, ts, body)
	require.Error(t, err)
}

func TestWebhookBackoffSpansADay(t *testing.T) {
	t.Parallel()
	var total time.Duration
	for attempt := 1; attempt < jobs.WebhookMaxAttempts; attempt++ {
		d := jobs.WebhookBackoff(attempt)
		if attempt > 1 {
			require.Greater(t, d, jobs.WebhookBackoff(attempt-1))
		}
		total += d
	}
	require.Greater(t, total, 24*time.Hour)
	require.Less(t, total, 3*24*time.Hour)
}

// IPv6 forms that carry an IPv4 address, or lead to one through a translator, are refused when a
// URL is saved (CheckURL) and when a delivery dials (Client), so neither a literal nor a name that
// later resolves to one reaches loopback, private space or the metadata service.
func TestWebhookNetworkRefusesEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	strict := jobs.WebhookNetwork{AllowHTTP: true}
	for _, a := range []string{
		"::127.0.0.1",                          // IPv4-compatible, ::/96
		"::a9fe:a9fe",                          // 169.254.169.254, IPv4-compatible
		"::8.8.8.8",                            // IPv4-compatible, even of a public address
		"::ffff:127.0.0.1",                     // IPv4-mapped
		"::ffff:0:7f00:1",                      // IPv4-translated, ::ffff:0:0:0/96
		"2002:7f00:1::1",                       // 6to4 of 127.0.0.1
		"2002:a9fe:a9fe::",                     // 6to4 of the metadata service
		"2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
		"64:ff9b::7f00:1",                      // NAT64
		"64:ff9b:1::a00:1",                     // local-use NAT64
		"100::1",                               // discard-only
		"fec0::1",                              // site-local
	} {
		addr := netip.MustParseAddr(a)
		require.ErrorIs(t, strict.Check(addr), jobs.ErrForbiddenAddress, a)
		u := "http://" + netip.AddrPortFrom(addr, 9).String() + "/hooks"
		require.ErrorIs(t, strict.CheckURL(ctx, u), jobs.ErrForbiddenAddress, "saved: %s", u)
		resp, err := strict.Client(2 * time.Second).Get(u)
		if err == nil {
			_ = resp.Body.Close()
		}
		require.ErrorIs(t, err, jobs.ErrForbiddenAddress, "dialled: %s", u)
	}
	// An IPv4-mapped public address is refused when saved; the dialler sees it as the IPv4
	// address it is (Go dials mapped addresses over IPv4), which Check judges as any other.
	require.ErrorIs(t, strict.CheckURL(ctx, "https://[::ffff:8.8.8.8]/hooks"), jobs.ErrForbiddenAddress)
	// A public IPv6 address still passes.
	require.NoError(t, strict.CheckURL(ctx, "https://[2606:4700:4700::1111]/hooks"))
}
