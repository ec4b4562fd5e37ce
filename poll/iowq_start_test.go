//go:build linux

package poll

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
)

// A Core starts its thread's io-wq workers (reg.StartIOWorkers): the
// owner's requests never wait for a first worker, whose start a signal can
// turn into -ECANCELED for them.
func TestCoreStartsIOWorkers(t *testing.T) {
	c := newTestCore(t)
	require.GreaterOrEqual(t, testutil.IOWorkers(c.Tid()), 2, "a bounded and an unbounded worker of the owner's thread")
}
