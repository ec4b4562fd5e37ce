package atomicx

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStoreRelease32(t *testing.T) {
	var x uint32
	StoreRelease32(&x, 42)
	require.Equal(t, uint32(42), atomic.LoadUint32(&x))
	StoreRelease32(&x, ^uint32(0))
	require.Equal(t, ^uint32(0), atomic.LoadUint32(&x))
}

// TestStoreReleasePublishes: a reader that sees the flag sees the data
// written before it (message passing, the ring's SQE-then-tail pattern).
func TestStoreReleasePublishes(t *testing.T) {
	const rounds = 20000
	var data, flag, ack uint32
	bad := make(chan uint32, 1)
	go func() {
		for i := uint32(1); i <= rounds; i++ {
			for atomic.LoadUint32(&flag) != i {
				runtime.Gosched() // GOMAXPROCS=1: let the writer run
			}
			if d := atomic.LoadUint32(&data); d != i {
				bad <- d
				return
			}
			atomic.StoreUint32(&ack, i)
		}
		close(bad)
	}()
	for i := uint32(1); i <= rounds; i++ {
		for atomic.LoadUint32(&ack) != i-1 {
			runtime.Gosched()
		}
		atomic.StoreUint32(&data, i)
		StoreRelease32(&flag, i)
	}
	d, ok := <-bad
	require.False(t, ok, "reader saw stale data %d", d)
}

func BenchmarkStoreRelease32(b *testing.B) {
	var x uint32
	for i := 0; i < b.N; i++ {
		StoreRelease32(&x, uint32(i))
	}
}

func BenchmarkAtomicStoreUint32(b *testing.B) {
	var x uint32
	for i := 0; i < b.N; i++ {
		atomic.StoreUint32(&x, uint32(i))
	}
}
