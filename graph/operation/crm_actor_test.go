package operation

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/viewer"
)

// A nameless person's email stands for their name, cut to what notes and stage history keep, so
// that a long address (up to 320 characters) cannot refuse the note or the card's move.
func TestCrmActorNameIsCut(t *testing.T) {
	t.Parallel()
	email := strings.Repeat("é", 310) + "@example.test"
	ctx := viewer.NewContext(context.Background(), &viewer.Viewer{OrganizationID: "org_1",
		Person: &viewer.Person{UserID: "usr_1", Email: email}})
	userID, keyID, name := crmActor(ctx)
	require.Equal(t, "usr_1", *userID)
	require.Nil(t, keyID)
	require.Equal(t, crmActorNameMax, utf8.RuneCountInString(name))
	require.True(t, strings.HasPrefix(email, name))

	ctx = viewer.NewContext(context.Background(), &viewer.Viewer{OrganizationID: "org_1", APIKeyID: "key_1", APIKeyName: "CRM sync"})
	_, keyID, name = crmActor(ctx)
	require.Equal(t, "key_1", *keyID)
	require.Equal(t, "API key: CRM sync", name)
}
