// Package scalar holds the wire formats Podium's two transports share, so that a value reads the
// same over REST and GraphQL.
package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// TimeLayout is how every timestamp leaves Podium: ISO 8601 in UTC with milliseconds,
// e.g. 2027-09-10T09:00:00.000Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// FormatTimePtr renders t, or returns nil for a nil time, for nullable fields.
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

// ParseTime reads an ISO 8601 date-time with a zone offset ("2027-09-10T09:00:00Z",
// "2027-09-10T11:00:00.000+02:00"). A bare date is read as midnight UTC.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, ErrInvalidTime
}

// MarshalTime writes t for GraphQL in TimeLayout.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(FormatTime(t)))
	})
}

// UnmarshalTime reads a GraphQL Time input with ParseTime.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, ErrNotString
	}
	return ParseTime(s)
}
