package udata

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReservedValuesAreDistinctAndMarked(t *testing.T) {
	seen := map[uint64]bool{}
	for _, v := range All {
		require.NotZero(t, v&Reserved, "%#x lacks the reserved bit", v)
		require.False(t, seen[v], "%#x reserved twice", v)
		seen[v] = true
	}
}
