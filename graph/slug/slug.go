// Package slug makes URL slugs from names, the way organizers' existing links expect:
// lower-cased, runs of anything but a-z and 0-9 turned into one hyphen, no hyphen at either end.
package slug

import "strings"

// Make returns the slug of name, or fallback when name has no letters or digits.
func Make(name, fallback string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			if b.Len() >= 200 {
				break
			}
			continue
		}
		hyphen = true
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// Unique returns base, or base-2, base-3, … — the first that taken reports free.
func Unique(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for n := 2; ; n++ {
		candidate := base + "-" + itoa(n)
		if !taken(candidate) {
			return candidate
		}
	}
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
