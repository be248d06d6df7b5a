//go:build e2e && !reliability

package main

import (
	"os"
	"testing"

	"github.com/podium/podium/ent/pgtest"
)

// TestMain gives the browser check its databases. The reliability harness has its own TestMain,
// which does the same; this one stands aside when both tags are set.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
