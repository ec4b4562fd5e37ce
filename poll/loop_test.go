//go:build linux

package poll

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDoNop(t *testing.T) {
	for _, st := range Strategies {
		t.Run(st.String(), func(t *testing.T) {
			requireNops(t, st)
			l := newLoop(t, WithStrategy(st), WithEntries(8))
			for i := 0; i < 100; i++ {
				res, err := l.Do(context.Background(), prepNop)
				require.NoError(t, err)
				require.Equal(t, int32(0), res.Res)
			}
			s := l.Stats()
			require.Equal(t, uint64(100), s.Completed)
			require.Equal(t, st.String(), s.Strategy)
			t.Logf("%+v", s)
		})
	}
}
