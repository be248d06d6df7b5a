// Package pid makes Podium's string ids: a short type prefix, an underscore and a 26-character
// time-ordered random part ("evt_01jd3k2m9q8r7s6t5v4w3x2y1z"). The prefix tells a reader — and
// the GraphQL node resolver — what an id names without a database read; the time-ordered part
// keeps ids roughly in creation order, which makes "ties by id" orderings stable and natural.
package pid

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"time"
)

// alphabet is Crockford's base32 in lower case: no i, l, o or u, so ids survive being read aloud.
const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// New returns a fresh id with the given prefix ("evt" gives "evt_…").
func New(prefix string) string {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(raw[6:]); err != nil {
		panic("pid: no randomness: " + err.Error())
	}
	var b strings.Builder
	b.Grow(len(prefix) + 1 + 26)
	b.WriteString(prefix)
	b.WriteByte('_')
	// 128 bits as 26 base32 digits, most significant first (the top two bits of the first digit
	// are always zero).
	hi, lo := binary.BigEndian.Uint64(raw[:8]), binary.BigEndian.Uint64(raw[8:])
	for i := 25; i >= 0; i-- {
		shift := uint(i * 5)
		var v uint64
		switch {
		case shift >= 64:
			v = hi >> (shift - 64)
		case shift > 59:
			v = lo>>shift | hi<<(64-shift)
		default:
			v = lo >> shift
		}
		b.WriteByte(alphabet[v&31])
	}
	return b.String()
}

// Prefix returns the type prefix of id ("evt" for "evt_…"), or "" when id has none.
func Prefix(id string) string {
	i := strings.IndexByte(id, '_')
	if i <= 0 {
		return ""
	}
	return id[:i]
}

// Plausible reports whether s could be an id New made: a lower-case prefix, an underscore and
// 26 base32 digits. Lookups use it to answer "not found" for garbage without a database read.
func Plausible(s string) bool {
	i := strings.IndexByte(s, '_')
	if i <= 0 || i > 10 || len(s)-i-1 != 26 {
		return false
	}
	for j := 0; j < i; j++ {
		if s[j] < 'a' || s[j] > 'z' {
			return false
		}
	}
	for j := i + 1; j < len(s); j++ {
		if strings.IndexByte(alphabet, s[j]) < 0 {
			return false
		}
	}
	return true
}
