package scalar

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStrictScalars(t *testing.T) {
	t.Parallel()

	t.Run("Int", func(t *testing.T) {
		t.Parallel()
		for _, ok := range []any{int64(7), json.Number("7"), json.Number("7.0"), json.Number("1e2"), float64(-3)} {
			_, err := UnmarshalInt(ok)
			require.NoError(t, err, "%v", ok)
		}
		for _, bad := range []any{"7", json.Number("7.5"), json.Number("2147483648"), json.Number("1e400"), true, nil} {
			_, err := UnmarshalInt(bad)
			require.ErrorIs(t, err, ErrNotInt, "%v", bad)
		}
	})

	t.Run("Float", func(t *testing.T) {
		t.Parallel()
		f, err := UnmarshalFloat(json.Number("2.5"))
		require.NoError(t, err)
		require.Equal(t, 2.5, f)
		for _, bad := range []any{"2.5", json.Number("1e400"), false} {
			_, err := UnmarshalFloat(bad)
			require.ErrorIs(t, err, ErrNotFloat, "%v", bad)
		}
	})

	t.Run("StringAndID", func(t *testing.T) {
		t.Parallel()
		for _, bad := range []any{json.Number("42"), int64(42), true, map[string]any{}} {
			_, err := UnmarshalString(bad)
			require.ErrorIs(t, err, ErrNotString)
			_, err = UnmarshalID(bad)
			require.ErrorIs(t, err, ErrNotString)
		}
	})

	t.Run("Boolean", func(t *testing.T) {
		t.Parallel()
		_, err := UnmarshalBoolean("true")
		require.ErrorIs(t, err, ErrNotBoolean)
	})
}

func TestTime(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2027-09-10T09:00:00Z":        "2027-09-10T09:00:00.000Z",
		"2027-09-10T09:00:00.123456Z": "2027-09-10T09:00:00.123Z",
		"2027-09-10T11:00:00.5+02:00": "2027-09-10T09:00:00.500Z",
		"2027-09-10":                  "2027-09-10T00:00:00.000Z",
	} {
		got, err := ParseTime(in)
		require.NoError(t, err, in)
		require.Equal(t, want, FormatTime(got), in)
	}
	for _, bad := range []string{"", "2027-09-10 09:00", "10/09/2027", "2027-02-30T00:00:00Z", "tomorrow"} {
		_, err := ParseTime(bad)
		require.ErrorIs(t, err, ErrInvalidTime, bad)
	}
	_, err := UnmarshalTime(12)
	require.ErrorIs(t, err, ErrNotString)
	require.Nil(t, FormatTimePtr(nil))
	now := time.Date(2027, 1, 2, 3, 4, 5, 6_000_000, time.FixedZone("x", 3600))
	require.Equal(t, "2027-01-02T02:04:05.006Z", *FormatTimePtr(&now))
}
