package access

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeys(t *testing.T) {
	t.Parallel()

	t.Run("NewKeyIsWellFormed", func(t *testing.T) {
		t.Parallel()
		key, prefix, hash := NewKey()
		require.True(t, strings.HasPrefix(key, "pdm_"))
		require.Len(t, key, keyLen)
		require.True(t, WellFormed(key))
		require.Equal(t, key[:12], prefix)
		require.Equal(t, HashKey(key), hash)
		require.Len(t, hash, 64)
		require.NotContains(t, hash, key)
	})

	t.Run("TyposFailTheChecksum", func(t *testing.T) {
		t.Parallel()
		key, _, _ := NewKey()
		for i := len(KeyPrefix); i < len(key); i++ {
			b := []byte(key)
			if b[i] == 'a' {
				b[i] = 'b'
			} else {
				b[i] = 'a'
			}
			require.False(t, WellFormed(string(b)), "changed position %d", i)
		}
		require.False(t, WellFormed(key[:len(key)-1]))
		require.False(t, WellFormed("osk_"+key[4:]))
		require.False(t, WellFormed(""))
		require.False(t, WellFormed(key[:len(key)-1]+"!"))
	})

	t.Run("KeysDiffer", func(t *testing.T) {
		t.Parallel()
		a, _, _ := NewKey()
		b, _, _ := NewKey()
		require.NotEqual(t, a, b)
	})
}
