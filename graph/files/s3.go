package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config locates an S3-compatible bucket (PODIUM_S3_* in docs/operations.md).
type S3Config struct {
	// Endpoint is the server's URL, e.g. https://s3.eu-west-1.amazonaws.com or
	// http://127.0.0.1:9000; the scheme decides TLS.
	Endpoint  string
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	// PathStyle addresses the bucket in the path (endpoint/bucket/key) rather than as a host name;
	// MinIO and most self-hosted servers need it.
	PathStyle bool
}

// S3 keeps objects in a bucket of an S3-compatible object store, through minio-go.
type S3 struct {
	client *minio.Client
	bucket string
}

// NewS3 connects to the bucket of cfg, creating it when it does not exist yet.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("files: PODIUM_S3_ENDPOINT %q is not an http(s) URL", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, errors.New("files: PODIUM_S3_BUCKET is required with PODIUM_S3_ENDPOINT")
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       cfg.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("files: s3 client: %w", err)
	}
	s := &S3{client: client, bucket: cfg.Bucket}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("files: s3 bucket %s: %w", cfg.Bucket, err)
	}
	if !ok {
		if err := client.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, fmt.Errorf("files: create s3 bucket %s: %w", cfg.Bucket, err)
		}
	}
	return s, nil
}

// Name says this is the S3 backend.
func (*S3) Name() string { return "s3" }

// s3PartSize is the multipart part size. A source that can be read at offsets (the spooled
// upload, an *os.File) is sent part by part without buffering; another source is buffered one
// part at a time.
const s3PartSize = 16 << 20

// Put uploads the object; S3 makes it visible only once complete.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if _, _, ok := ParseKey(key); !ok {
		return fmt.Errorf("files: malformed key %q", key)
	}
	_, err := s.client.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{
		ContentType: contentType, PartSize: s3PartSize, NumThreads: 1,
	})
	if err != nil {
		return fmt.Errorf("files: s3 put %s: %w", key, err)
	}
	return nil
}

// Open returns the object; reads and seeks become ranged GET requests.
func (s *S3) Open(ctx context.Context, key string) (Object, error) {
	if _, _, ok := ParseKey(key); !ok {
		return nil, ErrNotExist
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("files: s3 get %s: %w", key, err)
	}
	info, err := obj.Stat()
	if err != nil {
		_ = obj.Close()
		if resp := minio.ToErrorResponse(err); resp.StatusCode == http.StatusNotFound || resp.Code == "NoSuchKey" {
			return nil, ErrNotExist
		}
		return nil, fmt.Errorf("files: s3 stat %s: %w", key, err)
	}
	return &s3Object{Object: obj, info: info}, nil
}

type s3Object struct {
	*minio.Object
	info minio.ObjectInfo
}

func (o *s3Object) Size() int64         { return o.info.Size }
func (o *s3Object) Modified() time.Time { return o.info.LastModified }

// Delete removes the object; S3 answers success for a missing one.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("files: s3 delete %s: %w", key, err)
	}
	return nil
}

// List lists the bucket's objects whose keys are Podium's.
func (s *S3) List(ctx context.Context, fn func(key string, modified time.Time) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			return fmt.Errorf("files: s3 list: %w", obj.Err)
		}
		if _, _, ok := ParseKey(obj.Key); !ok || strings.HasSuffix(obj.Key, "/") {
			continue
		}
		if err := fn(obj.Key, obj.LastModified); err != nil {
			return err
		}
	}
	return nil
}
