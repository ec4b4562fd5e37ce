//go:build linux

package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFilesWorkload: a tiny run of every files mode returns, per queue
// depth, a point with positive ops/s and CPU time per op for fileio and
// for os.File, and for reads on io_uring a peer point of the task layer
// at the same depth; the direct modes are skipped (their points say why) where
// the temp dir refuses O_DIRECT. The temp files are removed.
func TestFilesWorkload(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	require.NoError(t, os.WriteFile(probe, make([]byte, 4096), 0o644))
	noDirect := directIO(probe)
	require.NoError(t, os.Remove(probe))
	for _, mode := range filesModes {
		t.Run(mode, func(t *testing.T) {
			c := &Config{Modes: []string{mode}, QD: []int{1, 4}, FileSize: 1 << 20, Duration: 20 * time.Millisecond, Reps: 1, Dir: dir}
			pts, err := runFiles(c)
			require.NoError(t, err)
			require.Len(t, pts, 2)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "the temp files are removed")
			for i, p := range pts {
				require.Equal(t, "files", p.Workload)
				require.Equal(t, mode, p.Mode)
				require.Equal(t, "qd", p.Axis)
				require.Equal(t, int64(c.QD[i]), p.X)
				require.Equal(t, c.QD[i], p.Params.QD)
				require.Equal(t, int64(1<<20), p.Params.FileSize)
				require.True(t, strings.HasPrefix(p.Impl, "fileio.File"), p.Impl)
				require.True(t, strings.HasPrefix(p.Baseline, "os.File"), p.Baseline)
			}
			if strings.Contains(mode, "direct") && noDirect != "" {
				for _, p := range pts {
					require.Contains(t, p.Unsupported, "O_DIRECT")
					require.Zero(t, p.Value)
				}
				t.Skipf("%s: %s", dir, noDirect)
			}
			for _, p := range pts {
				require.Empty(t, p.Unsupported)
				require.Positive(t, p.Value, "%+v", p)
				require.Positive(t, p.BaselineValue, "%+v", p)
				require.Positive(t, p.CPU, "%+v", p)
				require.Positive(t, p.BaselineCPU, "%+v", p)
				require.InDelta(t, p.Value/p.BaselineValue, p.Ratio, 1e-9)
				if strings.HasPrefix(mode, "write-") || strings.Contains(p.Impl, "fallback") {
					require.Empty(t, p.Peers, "no task-layer peer for writes, nor without io_uring")
					continue
				}
				require.Len(t, p.Peers, 1, "the task layer at the same depth")
				require.Equal(t, "task layer (1 executor)", p.Peers[0].Name)
				require.Positive(t, p.Peers[0].Value)
				require.InDelta(t, p.Value/p.Peers[0].Value, p.Peers[0].Ratio, 1e-9)
			}
		})
	}
	_, err := runFiles(&Config{Modes: []string{"sideways"}})
	require.ErrorContains(t, err, `files: unknown --mode "sideways"`)
	_, err = runFiles(&Config{FileSize: 4096, Dir: dir})
	require.ErrorContains(t, err, "below 1M")
}
