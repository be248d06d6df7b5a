// Package secret makes the random secrets of sign-in links and browser sessions and the hashes
// the database keeps in their place (docs/people.md). It is a leaf package, so that the email
// delivery worker (package jobs) can mint sign-in links as package access does.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// bytes is the entropy of a secret: 256 bits from crypto/rand, far beyond guessing.
const bytes = 32

// length is the length of a secret encoded in unpadded base64url.
var length = base64.RawURLEncoding.EncodedLen(bytes)

// Placeholder stands for a sign-in token in the emails that sign their recipient in with one
// click (reviewer invitations and reminders, portal invitations). The email log keeps it; the
// delivery worker replaces it with a fresh token in the message it sends and nowhere else, so
// no stored copy of the email signs anyone in. It is not shaped like a token, so following the
// logged link signs nobody in.
const Placeholder = "ONE-CLICK-SIGN-IN"

// RequestedPlaceholder stands for the token of a sign-in link a person asked for (the sign_in
// email), as Placeholder does in invitations: the delivery worker mints the token, with the
// lifetime LinkLifetime, in the message it sends and nowhere else.
const RequestedPlaceholder = "REQUESTED-SIGN-IN"

// AccessPlaceholder stands for the token of a contact's access link (/portal/access/<token>,
// docs/portal.md) in every email to a contact, as Placeholder does for sign-in links: the delivery
// worker mints the token in the message it sends and nowhere else.
const AccessPlaceholder = "CONTACT-ACCESS"

// AccessLifetime is how long a contact's access link works: as often as it is opened, for as
// long as people act on the emails of an event's run-up, unless organizers revoke it.
const AccessLifetime = 60 * 24 * time.Hour

// LinkLifetime is how long a sign-in link a person asked for works: it travels by email, which
// is read on many devices and kept for years, and the person is waiting for it.
const LinkLifetime = 15 * time.Minute

// InvitationLifetime is how long the link of an invitation or a reminder works: people act on
// invitations over days, not minutes. It works once, like every sign-in link.
const InvitationLifetime = 7 * 24 * time.Hour

// New returns a random secret and the hash the database keeps.
func New() (secret, hash string) {
	b := make([]byte, bytes)
	if _, err := rand.Read(b); err != nil {
		panic("secret: no randomness: " + err.Error())
	}
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, Hash(secret)
}

// Hash is the hex SHA-256 of a secret: what the database stores in its place.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// WellFormed reports whether s has the shape of a secret made by New, so that a truncated or
// mangled value is refused without a database read.
func WellFormed(s string) bool {
	if len(s) != length {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}
