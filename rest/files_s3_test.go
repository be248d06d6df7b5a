//go:build s3

package rest_test

import (
	"testing"

	"github.com/podium/podium/graph/files/filestest"
)

// The S3 backend through the API, against a real MinIO server (make test-s3).

func TestS3FileRoundTrip(t *testing.T) {
	testRoundTrip(t, setupFiles(t, filestest.NewS3(t), 0))
}

func TestS3FileMemory(t *testing.T) { testMemory(t, filestest.NewS3(t)) }
