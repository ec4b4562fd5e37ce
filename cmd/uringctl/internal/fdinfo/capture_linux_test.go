//go:build linux

package fdinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// dump saves the fdinfo of fd as dir/name (see testdata/README.md).
func dump(t *testing.T, name string, fd int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	require.NoError(t, err)
	dir := os.Getenv("FDINFO_CAPTURE")
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	fmt.Printf("=== %s\n%s", name, b)
}

// TestCapture writes the samples in testdata (FDINFO_CAPTURE=dir go test
// -run TestCapture); they are copied in by hand, as .txt.
func TestCapture(t *testing.T) {
	if os.Getenv("FDINFO_CAPTURE") == "" {
		t.Skip("set FDINFO_CAPTURE=dir to capture samples")
	}
	r := newTestRing(t, 8, sys.Params{})
	dump(t, "empty", r.fd)

	var p [2]int
	require.NoError(t, unix.Pipe(p[:]))
	r2 := newTestRing(t, 16, sys.Params{Flags: sys.SetupCQSize, CQEntries: 64})
	r2.registerFiles(t, []int32{int32(p[0]), -1, int32(p[1])})
	r2.registerBuffers(t, 2, 4096)
	r2.queue(t, 3, sys.OpNop, -1, 11)
	r2.submit(t, 3, 3)
	r2.queue(t, 2, sys.OpNop, -1, 22)
	dump(t, "files_bufs_pending", r2.fd)

	r3 := newTestRing(t, 4, sys.Params{Flags: sys.SetupSQE128 | sys.SetupCQE32})
	r3.queue(t, 1, sys.OpNop, -1, 5)
	r3.submit(t, 1, 1)
	r3.queue(t, 1, sys.OpNop, -1, 6)
	dump(t, "big", r3.fd)

	r4 := newTestRing(t, 4, sys.Params{Flags: sys.SetupSQPoll, SQThreadIdle: 1000})
	r4.queue(t, 1, sys.OpNop, -1, 9)
	dump(t, "sqpoll", r4.fd)

	r5 := newTestRing(t, 4, sys.Params{})
	napi := sys.NAPI{BusyPollTo: 50, PreferBusyPoll: 1}
	_, err := sys.Register(r5.fd, sys.RegisterNAPI, &napi, 1)
	require.NoError(t, err)
	r5.queue(t, 1, sys.OpPollAdd, int32(p[0]), 77)
	all := sys.SQEsAt(r5.sqes, 0, 4)
	all[0].OpFlags = unix.POLLIN
	r5.submit(t, 1, 0)
	_, err = sys.Register(r5.fd, sys.RegisterPersonality, (*byte)(nil), 0)
	require.NoError(t, err)
	dump(t, "napi_poll", r5.fd)

	r6 := newTestRing(t, 2, sys.Params{})
	for i := range 3 {
		r6.queue(t, 2, sys.OpNop, -1, uint64(100+i))
		_, err := sys.Enter(r6.fd, 2, 0, 0)
		require.NoError(t, err)
	}
	dump(t, "overflow", r6.fd)

	r7 := newTestRing(t, 4, sys.Params{Flags: sys.SetupNoSQArray})
	r7.queue(t, 2, sys.OpNop, -1, 3)
	dump(t, "nosqarray", r7.fd)

	r8 := newTestRing(t, 4, sys.Params{})
	contend(t, r8)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", r8.fd))
		require.NoError(t, err)
		if Parse(b).Missing(PartRing) {
			require.NoError(t, os.WriteFile(filepath.Join(os.Getenv("FDINFO_CAPTURE"), "locked"), b, 0o644))
			break
		}
	}
}
