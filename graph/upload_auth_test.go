package graph

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUploadTargetsCoverUploads: every mutation field that takes an Upload has a check of its
// target, run before the file is read, and every check names such a field.
func TestUploadTargetsCoverUploads(t *testing.T) {
	t.Parallel()
	schema := NewExecutableSchema(Config{}).Schema()
	uploads := map[string]bool{}
	for _, f := range schema.Mutation.Fields {
		for _, a := range f.Arguments {
			if a.Type.Name() == "Upload" {
				uploads[f.Name] = true
			}
		}
	}
	require.NotEmpty(t, uploads)
	for name := range uploads {
		require.Contains(t, uploadTargets, name, "the mutation %s takes an Upload but its target is not checked before the file", name)
	}
	for name := range uploadTargets {
		require.True(t, uploads[name], "uploadTargets checks %s, which takes no Upload", name)
	}
}
