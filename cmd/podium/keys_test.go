package main

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
)

// TestKeysCreatedAtOnceShareTheirNewOrganization: commands creating keys for one new organization
// at once (the multi-instance tests start several) make one organization, not a failure of the
// slug's unique index for all but the first.
func TestKeysCreatedAtOnceShareTheirNewOrganization(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := viewer.System(context.Background(), "test: keys created at once")
	const n = 8
	orgs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := db.InTx(ctx, func(ctx context.Context) error {
				_, rec, err := access.CreateKey(ctx, dbx.TxFromContext(ctx).Ent(), "Acme Events", "")
				if err == nil {
					orgs[i] = rec.OrganizationID
				}
				return err
			})
			require.NoError(t, err)
		})
	}
	wg.Wait()
	for _, org := range orgs {
		require.Equal(t, orgs[0], org)
	}
}
