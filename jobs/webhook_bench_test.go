package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
)

// BenchmarkWebhookSuccessRows writes successful deliveries to the delivery log with successSQL,
// as DeliverWebhookWorker does, in statements of 1, 8 (what a dispatch's lanes batch under W5h)
// and 32 rows, on one connection of the pool the worker uses (commits not waiting for the disk).
// It reports the database backend's CPU and this process's CPU per row: what a statement costs
// whatever its rows, and what each row adds. Run with `make bench`.
func BenchmarkWebhookSuccessRows(b *testing.B) {
	db := pgtest.New(b)
	pool, err := db.SystemAsyncPool(1)
	require.NoError(b, err)
	ctx := viewer.System(context.Background(), "bench: the webhook delivery log")
	var backend int
	require.NoError(b, pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend))
	endpoints := make([]string, 5)
	for i := range endpoints {
		endpoints[i] = pid.New("whe")
	}
	for _, size := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("rows=%d", size), func(b *testing.B) {
			const rows = 16_000
			statements := make([]success, 0, rows)
			var message string
			for i := range rows {
				if i%len(endpoints) == 0 {
					message = pid.New("msg")
				}
				statements = append(statements, success{id: pid.New("whdl"), endpointID: endpoints[i%len(endpoints)],
					messageID: message, org: "org_bench", code: 204, latency: time.Millisecond})
			}
			w := &DeliverWebhookWorker{Records: pool}
			for b.Loop() {
				db0, own0 := processCPU(b, backend), ownCPU()
				for i := 0; i < rows; i += size {
					_, err := w.recordSuccesses(ctx, statements[i:i+size])
					require.NoError(b, err)
				}
				b.ReportMetric(float64((processCPU(b, backend)-db0).Microseconds())/rows, "db_us/row")
				b.ReportMetric(float64((ownCPU()-own0).Microseconds())/rows, "client_us/row")
				_, err := pool.Exec(ctx, "DELETE FROM webhook_deliveries")
				require.NoError(b, err)
			}
		})
	}
}

// processCPU is the CPU process pid has used (user and system), to the kernel's clock tick.
func processCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(b, err)
	// The fields after the command name, which may hold spaces, in parentheses.
	stat := string(raw)
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	user, err := strconv.ParseInt(fields[11], 10, 64)
	require.NoError(b, err)
	system, err := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(b, err)
	return time.Duration(user+system) * time.Second / 100 // USER_HZ
}

// ownCPU is the CPU this process has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
