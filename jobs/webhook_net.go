package jobs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// WebhookNetwork says which URLs webhooks may be sent to. Its zero value is the safe default:
// https only, and only to public addresses. A webhook URL is chosen by an API client, so without
// these checks it would let any client make Podium send requests into its own network (SSRF): to
// a database's HTTP port, an admin console, a cloud provider's metadata service.
type WebhookNetwork struct {
	// AllowHTTP accepts http:// URLs (PODIUM_WEBHOOK_ALLOW_HTTP), for local testing.
	AllowHTTP bool
	// Allow lists address ranges reachable although they are not public
	// (PODIUM_WEBHOOK_ALLOW_NETWORKS): a receiver on the operator's own network, or loopback in
	// tests.
	Allow []netip.Prefix
}

// ErrForbiddenAddress is returned for a webhook URL, or a connection, to an address webhooks may
// not reach.
var ErrForbiddenAddress = errors.New("webhook address not allowed")

// notPublic are ranges that are neither private, loopback nor link-local by netip's tests but
// still not the public internet.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT, also used by some cloud metadata services
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and broadcast
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("100::/64"),      // discard-only
	netip.MustParsePrefix("fec0::/10"),     // site-local, deprecated but still routed by some networks
	// IPv6 forms that carry an IPv4 address, or reach one through a translator or relay: the IPv4
	// address inside may be loopback, private or the metadata service, and which one is not
	// checked by testing the IPv6 address. None is needed to reach a public receiver.
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (::127.0.0.1), and :: and ::1
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("2001::/32"),       // Teredo
}

// Check returns ErrForbiddenAddress unless webhooks may connect to addr: a public address, or one
// in an allowed range. Private (including the IPv6 ULA range that holds AWS's fd00:ec2::254),
// loopback, link-local (which holds the 169.254.169.254 metadata service), multicast and
// unspecified addresses are refused, and so are IPv6 addresses that embed an IPv4 one
// (IPv4-compatible, IPv4-mapped, 6to4, Teredo, NAT64) whatever the address inside.
func (n WebhookNetwork) Check(addr netip.Addr) error {
	for _, p := range n.Allow {
		if p.Contains(addr.Unmap()) {
			return nil
		}
	}
	bad := !addr.IsValid() || addr.IsPrivate() || addr.IsLoopback() || addr.IsLinkLocalUnicast() ||
		addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified()
	for _, p := range notPublic {
		bad = bad || p.Contains(addr)
	}
	if bad {
		return fmt.Errorf("%w: %s is not a public address", ErrForbiddenAddress, addr)
	}
	return nil
}

// CheckURL tells whether raw may be a webhook endpoint: an absolute https URL (or http when
// allowed) without credentials, whose host resolves only to addresses Check accepts. The answer
// can change with DNS; the address actually dialled is checked again on every delivery (see
// Client).
func (n WebhookNetwork) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return errors.New("the URL must be absolute, as in https://example.com/hooks")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && n.AllowHTTP:
	default:
		return errors.New("the URL must use https")
	}
	if u.User != nil {
		return errors.New("the URL must not carry a user name or password")
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		return n.Check(addr)
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return n.Check(netip.MustParseAddr("127.0.0.1"))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("the host %s does not resolve", host)
	}
	for _, a := range addrs {
		if err := n.Check(a); err != nil {
			return fmt.Errorf("the host %s resolves to an address webhooks may not reach: %w", host, err)
		}
	}
	return nil
}

// Client returns the HTTP client of deliveries. Its dialer checks each address it is about to
// connect to, after DNS resolution, so a name that resolved to a public address when the endpoint
// was saved and to an internal one now (DNS rebinding) is refused. It uses no proxy (a proxy
// would dial for it, unchecked), follows no redirects (a redirect could lead anywhere, and a
// receiver that moved should be updated, not followed) and gives up after timeout.
func (n WebhookNetwork) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout: timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
			}
			return n.Check(ap.Addr())
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ParseNetworks reads a comma-separated list of CIDR ranges or single addresses
// (PODIUM_WEBHOOK_ALLOW_NETWORKS).
func ParseNetworks(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address range (10.0.0.0/8) nor an address", part)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
