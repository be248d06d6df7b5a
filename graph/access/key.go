// Package access authenticates API keys and decides which events a caller may touch.
//
// A key is "pdm_" + 30 random base62 characters + a 6-character checksum of what precedes it.
// The checksum lets the server reject a mistyped or truncated key without a database read and
// lets secret scanners recognise real keys. Only the key's SHA-256 is stored, with a display
// prefix ("pdm_" and the first eight random characters) that identifies it in listings.
package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// KeyPrefix starts every Podium API key.
const KeyPrefix = "pdm_"

const (
	base62      = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomLen   = 30
	checksumLen = 6
	keyLen      = len(KeyPrefix) + randomLen + checksumLen
	// displayLen is how much of a key its display prefix keeps.
	displayLen = len(KeyPrefix) + 8
)

// NewKey returns a fresh key with its display prefix and hash.
func NewKey() (key, prefix, hash string) {
	var b strings.Builder
	b.WriteString(KeyPrefix)
	base := big.NewInt(int64(len(base62)))
	for range randomLen {
		n, err := rand.Int(rand.Reader, base)
		if err != nil {
			panic("access: no randomness: " + err.Error())
		}
		b.WriteByte(base62[n.Int64()])
	}
	body := b.String()
	key = body + checksum(body)
	return key, key[:displayLen], HashKey(key)
}

// WellFormed reports whether key has the shape and checksum of a Podium key.
func WellFormed(key string) bool {
	if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(key); i++ {
		if strings.IndexByte(base62, key[i]) < 0 {
			return false
		}
	}
	body := key[:len(key)-checksumLen]
	return key[len(body):] == checksum(body)
}

// HashKey is what the database stores for key: its hex SHA-256.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// checksum is the CRC-32 of s in base62, zero-padded to checksumLen characters.
func checksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}
