package schema

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	// The IANA zone database is embedded so that time zone validation does not depend on the
	// machine's /usr/share/zoneinfo.
	_ "time/tzdata"
)

// The validators below are the schema's last line: the operation layer checks input first and
// answers with the contract's messages; these keep any other writer (a job, the command line, a
// future transport) from storing what no reader expects. Their messages are shown to callers as
// invalid_input, so they are written as sentences.

// text limits a string to maxLen characters (not bytes) and rejects NUL bytes, which PostgreSQL
// cannot store in text columns.
func text(label string, maxLen int) func(string) error {
	return func(s string) error {
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%s must not contain NUL characters", label)
		}
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s must be valid UTF-8", label)
		}
		if utf8.RuneCountInString(s) > maxLen {
			return fmt.Errorf("%s must be at most %d characters", label, maxLen)
		}
		return nil
	}
}

// webLink is a link a person may open from a page: blank (none), or an absolute http or https
// address with a host. Anything else — javascript:, data:, a scheme-relative //host, a path —
// is refused, on every write path at once: speakers, CRM contacts and events are written by REST,
// GraphQL, the portal's pages and imports, and a link shown on one of Podium's pages or in an
// integrator's must never run script.
func webLink(label string, maxLen int) func(string) error {
	check := text(label, maxLen)
	return func(s string) error {
		if err := check(s); err != nil {
			return err
		}
		if strings.TrimSpace(s) != "" && !IsWebLink(s) {
			return fmt.Errorf("%s must be a web address starting with https://", label)
		}
		return nil
	}
}

// fileLink is a link to a file: a web link, or a path on Podium itself ("/api/v1/…/files/…",
// what an upload stores when no PUBLIC_URL is known), never "//host" or another scheme.
func fileLink(label string, maxLen int) func(string) error {
	check := webLink(label, maxLen)
	return func(s string) error {
		if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") &&
			!strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
			return text(label, maxLen)(s)
		}
		return check(s)
	}
}

// IsWebLink reports whether s is an absolute http or https URL with a host and no control
// characters or spaces, the only links Podium stores for people to open.
func IsWebLink(s string) bool {
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Opaque == "" && u.Hostname() != ""
}

// requiredText is text that must not be blank.
func requiredText(label string, maxLen int) func(string) error {
	check := text(label, maxLen)
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s must not be empty", label)
		}
		return check(s)
	}
}

// timezone accepts IANA zone names such as "Europe/Berlin" or "UTC".
func timezone(s string) error {
	if s == "" || s == "Local" || len(s) > 64 {
		return errors.New("timezone must be an IANA time zone such as Europe/Berlin")
	}
	if _, err := time.LoadLocation(s); err != nil {
		return errors.New("timezone must be an IANA time zone such as Europe/Berlin")
	}
	return nil
}

// email accepts a single lower-case address; callers lower-case before saving.
func email(s string) error {
	if err := text("Email", 320)(s); err != nil {
		return err
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return errors.New("Enter a valid email address")
	}
	if strings.ToLower(s) != s {
		return errors.New("Email addresses are stored in lower case")
	}
	return nil
}

// atLeast accepts integers not below lo.
func atLeast(label string, lo int) func(int) error {
	return func(n int) error {
		if n < lo {
			return fmt.Errorf("%s must be at least %d", label, lo)
		}
		return nil
	}
}

// between accepts integers in [lo, hi].
func between(label string, lo, hi int) func(int) error {
	return func(n int) error {
		if n < lo || n > hi {
			return fmt.Errorf("%s must be between %d and %d", label, lo, hi)
		}
		return nil
	}
}
