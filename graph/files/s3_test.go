//go:build s3

package files_test

import (
	"testing"

	"github.com/podium/podium/graph/files/filestest"
)

// TestS3Store runs the store's contract against a real MinIO server (make test-s3).
func TestS3Store(t *testing.T) {
	testStore(t, filestest.NewS3(t))
}
