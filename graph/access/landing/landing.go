// Package landing decides where a sign-in may send a browser: a path of this site, never another
// site (docs/people.md). It is a leaf package, so that the email delivery worker (package jobs),
// which mints one-click links, applies the same rule as the sign-in pages.
package landing

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Home is where a sign-in lands when it names no place, or names one it may not go to: the home
// page, which sends each person on to what their roles make theirs.
const Home = "/"

// maxLength bounds a target, as the sign_in_tokens.next column does.
const maxLength = 2048

// Path returns next when it is an absolute path of this site, else Home.
//
// Browsers read more as another site than a leading "//": they drop tabs and line breaks
// anywhere in a URL ("/\t/evil.example" becomes "//evil.example") and read a backslash as a
// slash ("/\evil.example"). So a control character or a backslash anywhere is refused, and so is
// one that percent-decoding would produce ("/%09/…", "/%5C…", or "/%2509/…" decoded twice), since
// some step between here and the browser may decode once more. Nothing is repaired: a target that
// needs repair was not written by this site.
func Path(next string) string {
	if !safe(next) {
		return Home
	}
	return next
}

func safe(next string) bool {
	if len(next) > maxLength || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return false
	}
	s := next
	for range 4 {
		if !clean(s) {
			return false
		}
		decoded, err := url.PathUnescape(s)
		if err != nil {
			// A "%" not followed by two hex digits: no browser decodes it, but nothing of this
			// site writes it either.
			return false
		}
		if decoded == s {
			return !strings.HasPrefix(decoded, "//")
		}
		s = decoded
	}
	// Still decoding after four rounds: no path of this site is encoded that deeply.
	return false
}

// clean reports whether s is valid UTF-8 without control characters or backslashes.
func clean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\\' || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}
