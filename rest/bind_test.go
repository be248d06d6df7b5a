package rest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/graph/model"
)

// bind is the one way a handler reads its body; it refuses a struct other than the route's input,
// so a handler copied from another line of the table cannot bind the wrong type silently.
func TestBind(t *testing.T) {
	t.Parallel()
	q := &request{route: &route{operationID: "updateEvent", input: "UpdateEventInput"}, body: []byte(`{"name":"Gophercon"}`)}

	t.Run("TheRoutesInput", func(t *testing.T) {
		t.Parallel()
		in, err := bind[model.UpdateEventInput](q)
		require.NoError(t, err)
		name, set := in.Name.ValueOK()
		require.True(t, set)
		require.Equal(t, "Gophercon", *name)
	})

	t.Run("AnotherInput", func(t *testing.T) {
		t.Parallel()
		_, err := bind[model.CreateEventInput](q)
		require.EqualError(t, err, `rest: updateEvent binds CreateEventInput, but its route declares input "UpdateEventInput"`)
	})
}
