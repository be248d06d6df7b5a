package scalar

import (
	"io"
	"strconv"
	"time"
)

// Timestamp is a time in Podium's read models. It encodes as TimeLayout both as JSON (REST) and
// as the GraphQL Time scalar, so a read model struct serves both transports unchanged.
type Timestamp struct{ time.Time }

// At wraps t.
func At(t time.Time) Timestamp { return Timestamp{t} }

// AtPtr wraps t, keeping nil.
func AtPtr(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	return &Timestamp{*t}
}

// MarshalJSON writes TimeLayout.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(make([]byte, 0, 26), FormatTime(t.Time)), nil
}

// UnmarshalJSON reads what ParseTime accepts.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return ErrNotString
	}
	t.Time, err = ParseTime(s)
	return err
}

// MarshalGQL writes TimeLayout.
func (t Timestamp) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, strconv.Quote(FormatTime(t.Time)))
}

// UnmarshalGQL reads what ParseTime accepts.
func (t *Timestamp) UnmarshalGQL(v any) error {
	var err error
	t.Time, err = UnmarshalTime(v)
	return err
}
