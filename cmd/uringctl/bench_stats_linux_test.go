//go:build linux

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/task"
)

// --json records the task layer's counters of each task implementation's
// run: the spawn workload's tasks are counted, and its fallback point says
// it ran on the fallback.
func TestBenchJSONTaskStats(t *testing.T) {
	code, out, errOut := benchRun("spawn", "--json", "--reps", "1", "--n", "1000")
	require.Equal(t, 0, code, errOut)
	pts := decodePoints(t, out)
	require.Len(t, pts, 2)
	for i, want := range []task.BackendKind{task.ChooseBackend().Kind, task.BackendFallback} {
		require.NotNil(t, pts[i].TaskStats, pts[i].Impl)
		b, err := json.Marshal(pts[i].TaskStats)
		require.NoError(t, err)
		var st task.Stats
		require.NoError(t, json.Unmarshal(b, &st))
		require.Equal(t, want, st.Backend.Kind, pts[i].Impl)
		require.GreaterOrEqual(t, st.TasksSpawned, uint64(1000), pts[i].Impl)
		require.Zero(t, st.TasksLive)
	}
}
