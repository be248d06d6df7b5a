package jobs

import (
	"context"

	"github.com/riverqueue/river/rivertype"
)

// RescuerWork runs doInner as r's middleware runs an attempt of job in this process.
func RescuerWork(r *Rescuer, job *rivertype.JobRow, doInner func(context.Context) error) error {
	return r.middleware().Work(context.Background(), job, doInner)
}
