package atomicx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAtomic16(t *testing.T) {
	type pair struct{ C, D uint16 }
	v := make([]pair, 2)
	v[0].C, v[0].D = 7, 9
	StoreRelease16(&v[0].D, 0xbeef)
	require.Equal(t, uint16(7), v[0].C, "other half untouched")
	require.Equal(t, uint16(0xbeef), v[0].D)
	require.Equal(t, uint16(0xbeef), LoadAcquire16(&v[0].D))
	StoreRelease16(&v[0].C, 0xcafe)
	require.Equal(t, uint16(0xbeef), v[0].D)
	require.Equal(t, uint16(0xcafe), LoadAcquire16(&v[0].C))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { StoreRelease16(&v[1].D, 1) }))
}
