package atomicx

import (
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

func TestStoreFull32(t *testing.T) {
	var x uint32
	StoreFull32(&x, 7)
	require.Equal(t, uint32(7), atomic.LoadUint32(&x))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { StoreFull32(&x, 8) }))
	require.Equal(t, uint32(8), atomic.LoadUint32(&x))
}
